#!/usr/bin/env python3
"""Times the aggregation seed queries on granite (a `granite local` cluster) and on chdb in one run.

Each query runs `--runs` times on each engine, alternating engines, and the minimum wall time is
kept; the ratio granite/chdb is computed from the two minima of the same run (chdb is timed again
for every cluster size). chdb runs in this process, so its times exclude Python start-up; granite's
include the gRPC round trip. Results of both
engines are compared (exactly, or within 1% for uniq) so a fast wrong answer is caught.

    .venv/bin/python bench/queries/seed_aggregation.py --granite build/granite --workers 1 \
        [--workers 2] [--runs 3] [--rows 100000000] [--markdown]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import chdb
import granite_client

QUERIES = [
    ("uniq UInt16 key",
     "SELECT number % 10000 AS k, uniq(number) AS u FROM numbers_mt({n}) "
     "GROUP BY k ORDER BY u DESC, k LIMIT 10"),
    ("uniq UInt64 key",
     "SELECT 0 + number % 10000 AS k, uniq(number) AS u FROM numbers_mt({n}) "
     "GROUP BY k ORDER BY u DESC, k LIMIT 10"),
    ("count UInt16 key",
     "SELECT number % 10000 AS k, count() AS u FROM numbers_mt({n}) "
     "GROUP BY k ORDER BY u DESC, k LIMIT 10"),
    ("count UInt64 key",
     "SELECT 0 + number % 10000 AS k, count() AS u FROM numbers_mt({n}) "
     "GROUP BY k ORDER BY u DESC, k LIMIT 10"),
    ("uniqExact UInt16 key",
     "SELECT number % 10000 AS k, uniqExact(number) AS u FROM numbers_mt({n}) "
     "GROUP BY k ORDER BY u DESC, k LIMIT 10"),
    ("uniqExact UInt64 key",
     "SELECT 0 + number % 10000 AS k, uniqExact(number) AS u FROM numbers_mt({n}) "
     "GROUP BY k ORDER BY u DESC, k LIMIT 10"),
    ("count(DISTINCT)",
     "SELECT count(DISTINCT number % 5000000) FROM numbers_mt({n})"),
    # GROUP BY key ORDER BY key LIMIT: only the first keys' rows need aggregating.
    ("uniq by key ORDER BY key",
     "SELECT number % 10000 AS k, uniq(number) AS u FROM numbers_mt({n}) "
     "GROUP BY k ORDER BY k LIMIT 10"),
    ("sum by key ORDER BY key DESC",
     "SELECT intDiv(number, 1000) AS k, sum(number) AS s FROM numbers_mt({n}) "
     "GROUP BY k ORDER BY k DESC LIMIT 10"),
]


def start_cluster(granite, workers, data_dir, threads):
    cmd = [granite, "local", "--workers", str(workers), "--data", data_dir, "--port", "0"]
    if threads:
        cmd += ["--threads", str(threads)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in proc.stdout:
        m = re.search(r"listening on [^:]+:(\d+)", line)
        if m:
            return proc, int(m.group(1))
    raise RuntimeError("granite local did not start")


def rows_of(text):
    return [line.split("\t") for line in text.strip().splitlines()]


def same(a, b, approx):
    if len(a) != len(b):
        return False
    for ra, rb in zip(a, b):
        for x, y in zip(ra, rb):
            if x == y:
                continue
            if not approx:
                return False
            try:
                fx, fy = float(x), float(y)
            except ValueError:
                return False
            if abs(fx - fy) > 0.01 * max(abs(fy), 1):
                return False
    return True


def time_once(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--granite", required=True)
    ap.add_argument("--workers", type=int, action="append")
    ap.add_argument("--threads", type=int, default=0, help="threads per worker (0 = default)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rows", default="100000000")
    ap.add_argument("--only", default="", help="regex of query names to run")
    ap.add_argument("--no-chdb", action="store_true")
    args = ap.parse_args()
    workers_list = args.workers or [1]
    queries = [(name, sql.format(n=args.rows)) for name, sql in QUERIES
               if re.search(args.only, name)]
    chdb_times = {}
    chdb_rows = {}
    results = []
    for workers in workers_list:
        data = tempfile.mkdtemp(prefix="granite-seed-")
        proc, port = start_cluster(args.granite, workers, data, args.threads)
        try:
            client = granite_client.connect("127.0.0.1", port)
            client.wait_ready()
            for name, sql in queries:
                g_best = c_best = float("inf")
                g_out = None
                for _ in range(args.runs):
                    t, g_out = time_once(lambda: client.query_text(sql))
                    g_best = min(g_best, t)
                    if not args.no_chdb:
                        t, out = time_once(lambda: str(chdb.query(sql, "TabSeparated")))
                        c_best = min(c_best, t)
                        chdb_rows[name] = rows_of(out)
                if not args.no_chdb:
                    chdb_times[name] = c_best
                ok = args.no_chdb or same(rows_of(g_out), chdb_rows[name], "uniq(" in sql)
                results.append((name, workers, g_best, chdb_times.get(name), ok, g_out))
                c = chdb_times.get(name)
                print(f"{name:24s} workers={workers} granite={g_best:.3f}s "
                      + (f"chdb={c:.3f}s ratio={g_best / c:.2f}" if c else "")
                      + ("" if ok else "  RESULT DIFFERS"), flush=True)
                if not ok:
                    print("granite:", rows_of(g_out)[:3], "chdb:", chdb_rows[name][:3])
        finally:
            proc.terminate()
            proc.wait()
            shutil.rmtree(data, ignore_errors=True)
    byname = {(r[0], r[1]): r[2] for r in results}
    for workers in workers_list:
        for fn in ("uniq", "count", "uniqExact"):
            a, b = byname.get((f"{fn} UInt16 key", workers)), byname.get((f"{fn} UInt64 key", workers))
            if a and b:
                print(f"{fn}: UInt16/UInt64 time ratio (workers={workers}) = {a / b:.2f}")
    return 0 if all(r[4] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
