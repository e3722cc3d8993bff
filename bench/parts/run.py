#!/usr/bin/env python3
"""Many-parts benchmark: a SELECT that partition pruning narrows to one part, and small INSERTs,
against tables of 100, 10,000 and 100,000 parts (one per partition), through the whole stack
(`granite local --workers 1`, load from `granite benchmark`).

For each table size:
  - the pruned SELECT (`SELECT count(), sum(x) FROM t WHERE p = <random>`) at concurrency 1, 8
    and 64: QPS, p50 / p99 latency, and lock waits — with the shared parts snapshot (default) and
    with it switched off (`SETTINGS use_parts_snapshot = 0`: a private snapshot per query);
  - small INSERTs (one row into a random existing partition) at concurrency 4, alone and with 8
    and 64 concurrent pruned SELECTs (at 64 also with the snapshot off).
Time spent choosing parts alone is measured by bench/parts/parts_registry_bench (C++).

Data lives under --data-root (default /dev/shm, where fsync costs nothing, so that creating
100,000 parts takes seconds and the figures show CPU and locks, not the disk); --data-root on a
real disk adds ~2-4 ms per fsync to every INSERT. Writes a Markdown report to --out.

  .venv/bin/python bench/parts/run.py --granite build/granite [--parts 100,10000,100000]
      [--seconds 5] [--out bench/results/parts-DATE.md]

Server configurations compared in one run (insert-under-load only, appended to --append):

  bench/parts/run.py --inserts-only --parts 100,100000 --append bench/results/parts-DATE.md \
      --configs "no admission=--max_concurrent_select_queries=0;admission (default)=;..."

Each configuration starts its own cluster with those extra `granite local` flags; a first word
"@PATH" runs that granite binary instead (e.g. a build of the previous commit, as the baseline).
--repeat N measures N alone/loaded pairs per configuration and reports medians (one pair's
slowdown moves by +-15% on a shared 2-core machine). Each phase also reports the share of CPU time
the hypervisor stole (/proc/stat): a pair measured while a neighbouring VM took the CPU says
nothing about the code.
"""

import argparse
import datetime
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests", "harness"))
import cluster  # noqa: E402


def write_queries(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def benchmark(granite, port, queries_file, concurrency, seconds, prefix=()):
    """Runs `granite benchmark` (under the command `prefix`, if any) and returns its JSON report."""
    out = subprocess.run(list(prefix) + granite + ["benchmark", "--port", str(port), "--concurrency",
                                    str(concurrency), "--timelimit", str(seconds), "--json",
                                    "--queries_file", queries_file],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = [l for l in out.stdout.splitlines() if l.startswith("{")]
    if not lines:
        raise RuntimeError("granite benchmark failed: %s %s" % (out.stdout, out.stderr))
    return json.loads(lines[-1])


def cpu_times():
    """The machine's CPU time counters (/proc/stat's first line), or None where there is none."""
    try:
        with open("/proc/stat") as f:
            return [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None


def stolen(before, after):
    """Share of CPU time the hypervisor took (steal) between two cpu_times() readings: a virtual
    machine's neighbours, which make a phase slower for reasons outside the code measured."""
    if not before or not after or len(before) < 8:
        return 0.0
    total = sum(after[:8]) - sum(before[:8])
    return (after[7] - before[7]) / total if total > 0 else 0.0


def measured(run):
    """Runs `run()` (returning a benchmark report) and adds the steal share during it."""
    before = cpu_times()
    report = run()
    report["steal"] = stolen(before, cpu_times())
    return report


def lock_summary(report, names=("parts_registry", "parts_registry_writers", "table_drop")):
    parts = []
    for lock in report.get("locks", []):
        if lock["name"] in names and lock["acquisitions"]:
            parts.append("%s %d/%d contended, %.1f ms" % (lock["name"], lock["contended"],
                                                        lock["acquisitions"],
                                                        lock["wait_seconds"] * 1000))
    return "; ".join(parts) or "-"


def fill(client, parts):
    """Creates t with `parts` partitions of one row each."""
    client.query("CREATE TABLE t (p UInt32, x UInt64) ENGINE = MergeTree PARTITION BY p ORDER BY x")
    step = 10000
    started = time.monotonic()
    for first in range(0, parts, step):
        n = min(step, parts - first)
        client.query("INSERT INTO t SELECT number + %d, number FROM numbers(%d)" % (first, n))
    return time.monotonic() - started


def insert_under_load(granite, port, inserts, selects, clients, seconds, select_prefix=(),
                      insert_clients=4):
    """Runs `insert_clients` insert clients while `clients` SELECT clients run; returns
    (inserts, selects)."""
    loaded = {}

    def select_load():
        loaded["select"] = benchmark(granite, port, selects, clients, seconds + 2, select_prefix)
    thread = threading.Thread(target=select_load)
    thread.start()
    time.sleep(1)
    under = measured(lambda: benchmark(granite, port, inserts, insert_clients, seconds))
    thread.join()
    return under, loaded["select"]


def cpu_ms_per_query(report):
    """CPU milliseconds per query in each server process (coordinator, worker 0...)."""
    queries = max(report.get("queries", 0), 1)
    return ", ".join("%s %.2f" % (name, seconds * 1000 / queries)
                     for name, seconds in sorted(report.get("cpu_seconds", {}).items()))


def compare_configs(args):
    """Insert latency alone and under SELECT load, per server configuration, in one run."""
    granite = cluster.find_granite(args.granite)
    configs = []
    for item in args.configs.split(";"):
        name, _, flags = item.partition("=")
        words = flags.split()
        binary = granite
        if words and words[0].startswith("@"):
            binary = cluster.find_granite(words.pop(0)[1:])
        configs.append((name.strip(), binary, words))
    loads = [int(c) for c in args.loads.split(",")]
    rng = random.Random(1)
    rows = []
    workdir = tempfile.mkdtemp(prefix="granite-parts-bench-")
    try:
        for parts in [int(p) for p in args.parts.split(",")]:
            keys = [rng.randrange(parts) for _ in range(2000)]
            selects = os.path.join(workdir, "selects.sql")
            inserts = os.path.join(workdir, "inserts.sql")
            write_queries(selects, ["SELECT count(), sum(x) FROM t WHERE p = %d" % k for k in keys])
            write_queries(inserts, ["INSERT INTO t VALUES (%d, %d)" % (k, 1000000 + i)
                                    for i, k in enumerate(keys)])
            for name, binary, flags in configs:
                data = tempfile.mkdtemp(prefix="granite-parts-", dir=args.data_root)
                local = cluster.LocalCluster(binary, workers=1, data_dir=data,
                                             extra_args=flags).start()
                try:
                    fill(local.client(timeout=600), parts)
                    # Warm-up, not measured: the first second of inserts after the fill runs
                    # slower (server threads and connections start, allocator caches fill).
                    benchmark(granite, local.port, inserts, args.insert_clients, 1)
                    pairs = {clients: [] for clients in loads}
                    for _ in range(args.repeat):
                        alone = measured(
                            lambda: benchmark(granite, local.port, inserts, args.insert_clients,
                                              args.seconds))
                        print("%d parts [%s] INSERT alone %.1f/s p50 %.2f ms; cpu ms/insert %s; "
                              "steal %.1f%%" % (parts, name, alone["qps"], alone["p50_ms"],
                                                cpu_ms_per_query(alone), 100 * alone["steal"]),
                              flush=True)
                        for clients in loads:
                            under, select = insert_under_load(
                                granite, local.port, inserts, selects, clients, args.seconds,
                                ["chrt", "--idle", "0"] if args.select_load_idle else [],
                                args.insert_clients)
                            pairs[clients].append((alone, under, select))
                            print("  with %d SELECT clients: INSERT %.1f/s p50 %.2f ms p99 %.2f "
                                  "ms (%.2fx); SELECT %.0f qps p50 %.1f ms errors %d; steal %.1f%%"
                                  % (clients, under["qps"], under["p50_ms"], under["p99_ms"],
                                     under["p50_ms"] / max(alone["p50_ms"], 1e-9),
                                     select["qps"], select["p50_ms"], select["errors"],
                                     100 * under["steal"]), flush=True)
                    for clients in loads:
                        rows.append((parts, name, clients, pairs[clients]))
                finally:
                    local.stop()
                    shutil.rmtree(data, ignore_errors=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    # With --repeat N, each figure is the median over the N alone/loaded pairs, and the slowdowns
    # also show their range: one pair's ratio moves by +-15% on a shared 2-core machine. Pairs
    # measured while the hypervisor stole more than --max-steal of the CPU are left out.
    lines = ["| parts | config | SELECT clients | INSERT/s alone | p50 ms alone | INSERT/s loaded "
             "| p50 ms loaded | p99 ms loaded | slowdown (p50) | slowdown (throughput) | "
             "SELECT QPS | SELECT p50 ms | SELECT errors | steal % (max) |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for parts, name, clients, pairs in rows:
        def med(values):
            return statistics.median(values)

        def ratio(values):
            if len(values) == 1:
                return "%.2fx" % values[0]
            return "%.2fx (%.2f-%.2f)" % (med(values), min(values), max(values))
        clean = [p for p in pairs if max(p[0]["steal"], p[1]["steal"]) <= args.max_steal]
        excluded = len(pairs) - len(clean)
        steal_max = 100 * max(max(a["steal"], u["steal"]) for a, u, _ in pairs)
        pairs = clean or pairs  # all of them if none is clean (the steal column says so)
        alone = [a for a, _, _ in pairs]
        under = [u for _, u, _ in pairs]
        select = [s for _, _, s in pairs]
        lines.append("| %d | %s | %d | %.1f | %.2f | %.1f | %.2f | %.2f | %s | %s | %.0f | "
                     "%.1f | %d | %s |"
                     % (parts, name, clients, med([a["qps"] for a in alone]),
                        med([a["p50_ms"] for a in alone]), med([u["qps"] for u in under]),
                        med([u["p50_ms"] for u in under]), med([u["p99_ms"] for u in under]),
                        ratio([u["p50_ms"] / max(a["p50_ms"], 1e-9) for a, u, _ in pairs]),
                        ratio([a["qps"] / max(u["qps"], 1e-9) for a, u, _ in pairs]),
                        med([s["qps"] for s in select]), med([s["p50_ms"] for s in select]),
                        sum(s["errors"] for s in select),
                        "%.1f (%d of %d pairs left out)" % (steal_max, excluded, excluded + len(
                            clean)) if clean and excluded else "%.1f" % steal_max))
    table = "\n".join(lines) + "\n"
    print(table)
    if args.append:
        with open(args.append, "a") as f:
            f.write("\n## Insert-under-load comparison (%s, %s)\n\n"
                    % (datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), " vs ".join(
                        name for name, _, _ in configs)))
            f.write("`bench/parts/run.py --inserts-only --parts %s --seconds %g --loads %s "
                    "--repeat %d --configs \"%s\"`; %d cores.\n\n"
                    % (args.parts, args.seconds, args.loads, args.repeat, args.configs,
                       os.cpu_count()))
            f.write("INSERT clients: %d.\n\n" % args.insert_clients)
            f.write(table)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--granite", default=None)
    parser.add_argument("--parts", default="100,10000,100000")
    parser.add_argument("--concurrency", default="1,8,64")
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--data-root", default="/dev/shm")
    parser.add_argument("--out", default=os.path.join(
        REPO, "bench", "results", "parts-%s.md" % datetime.date.today().isoformat()))
    parser.add_argument("--configs", default=None,
                        help="name=extra flags;name=extra flags...: compare server configurations "
                             "(insert-under-load only)")
    parser.add_argument("--loads", default="8,64", help="SELECT clients under which to insert")
    parser.add_argument("--insert-clients", type=int, default=4,
                        help="with --configs: concurrent INSERT clients")
    parser.add_argument("--max-steal", type=float, default=0.05,
                        help="with --configs: pairs in which either phase lost more than this "
                             "share of CPU time to the hypervisor are left out of the medians")
    parser.add_argument("--repeat", type=int, default=1,
                        help="with --configs: alone/loaded pairs per configuration; the table "
                             "shows medians and the slowdowns' range")
    parser.add_argument("--inserts-only", action="store_true",
                        help="skip the SELECT table and the snapshot-off runs")
    parser.add_argument("--select-load-idle", action="store_true",
                        help="with --configs: run the SELECT load generator under SCHED_IDLE, as "
                             "if its clients were on other machines (it still shares the cores)")
    parser.add_argument("--append", default=None,
                        help="with --configs: append the comparison as a dated section here")
    args = parser.parse_args()
    if args.configs:
        return compare_configs(args)
    granite = cluster.find_granite(args.granite)
    rng = random.Random(1)
    rows = []
    insert_rows = []
    workdir = tempfile.mkdtemp(prefix="granite-parts-bench-")
    try:
        for parts in [int(p) for p in args.parts.split(",")]:
            data = tempfile.mkdtemp(prefix="granite-parts-", dir=args.data_root)
            local = cluster.LocalCluster(granite, workers=1, data_dir=data).start()
            try:
                client = local.client(timeout=600)
                fill_seconds = fill(client, parts)
                count = client.query_text("SELECT count() FROM system.parts WHERE table = 't' "
                                          "AND active").strip()
                print("%d parts (%s active) created in %.1f s" % (parts, count, fill_seconds),
                      flush=True)
                keys = [rng.randrange(parts) for _ in range(2000)]
                shared = os.path.join(workdir, "shared.sql")
                private = os.path.join(workdir, "private.sql")
                inserts = os.path.join(workdir, "inserts.sql")
                write_queries(shared, ["SELECT count(), sum(x) FROM t WHERE p = %d" % k
                                       for k in keys])
                write_queries(private, ["SELECT count(), sum(x) FROM t WHERE p = %d "
                                        "SETTINGS use_parts_snapshot = 0" % k for k in keys])
                write_queries(inserts, ["INSERT INTO t VALUES (%d, %d)" % (k, 1000000 + i)
                                        for i, k in enumerate(keys)])
                for concurrency in [int(c) for c in args.concurrency.split(",")]:
                    for mode, path in (("shared", shared), ("private", private)):
                        report = benchmark(granite, local.port, path, concurrency, args.seconds)
                        rows.append((parts, concurrency, mode, report))
                        print("  SELECT c=%d %-7s qps %8.1f p50 %7.3f ms p99 %7.3f ms errors %d; %s"
                              % (concurrency, mode, report["qps"], report["p50_ms"],
                                 report["p99_ms"], report["errors"], lock_summary(report)),
                              flush=True)
                # Small inserts alone, then under 8 and 64 concurrent pruned SELECTs (with the
                # shared snapshot, and at 64 also without it).
                alone = benchmark(granite, local.port, inserts, 4, args.seconds)
                print("  INSERT c=4 alone %.1f/s p50 %.2f ms" % (alone["qps"], alone["p50_ms"]),
                      flush=True)
                for clients, mode, path in ((8, "shared", shared), (64, "shared", shared),
                                            (64, "private", private)):
                    loaded = {}

                    def select_load():
                        loaded["select"] = benchmark(granite, local.port, path, clients,
                                                     args.seconds + 2)
                    thread = threading.Thread(target=select_load)
                    thread.start()
                    time.sleep(1)
                    under = benchmark(granite, local.port, inserts, 4, args.seconds)
                    thread.join()
                    insert_rows.append((parts, clients, mode, alone, under, loaded["select"]))
                    print("  INSERT c=4 with %d %s SELECT clients %.1f/s p50 %.2f ms (SELECTs "
                          "meanwhile %.0f qps); %s"
                          % (clients, mode, under["qps"], under["p50_ms"],
                             loaded["select"]["qps"], lock_summary(under)), flush=True)
            finally:
                local.stop()
                shutil.rmtree(data, ignore_errors=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    with open(args.out, "w") as f:
        f.write("# Many-parts benchmark (%s)\n\n" % datetime.date.today().isoformat())
        f.write("`bench/parts/run.py --parts %s --seconds %g --data-root %s`; `granite local "
                "--workers 1` on %d cores; table `t (p UInt32, x UInt64) PARTITION BY p ORDER BY "
                "x` with one one-row part per partition.\n\n"
                % (args.parts, args.seconds, args.data_root, os.cpu_count()))
        f.write("## Pruned SELECT (`WHERE p = <random>`: one part of N)\n\n")
        f.write("| parts | clients | snapshot | QPS | p50 ms | p99 ms | errors | locks |\n")
        f.write("|---:|---:|---|---:|---:|---:|---:|---|\n")
        for parts, concurrency, mode, r in rows:
            f.write("| %d | %d | %s | %.1f | %.3f | %.3f | %d | %s |\n"
                    % (parts, concurrency, mode, r["qps"], r["p50_ms"], r["p99_ms"],
                       r["errors"], lock_summary(r)))
        f.write("\n## Small INSERTs (one row into a random partition, 4 clients)\n\n")
        f.write("| parts | SELECT clients | snapshot | INSERT/s alone | p50 ms | INSERT/s loaded | "
                "p50 ms | slowdown | SELECT QPS meanwhile | insert-side locks |\n"
                "|---:|---:|---|---:|---:|---:|---:|---:|---:|---|\n")
        for parts, clients, mode, alone, under, select in insert_rows:
            f.write("| %d | %d | %s | %.1f | %.2f | %.1f | %.2f | %.2fx | %.0f | %s |\n"
                    % (parts, clients, mode, alone["qps"], alone["p50_ms"], under["qps"],
                       under["p50_ms"], alone["qps"] / max(under["qps"], 1e-9), select["qps"],
                       lock_summary(under)))
    print("wrote", args.out)


if __name__ == "__main__":
    main()
