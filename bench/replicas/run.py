#!/usr/bin/env python3
"""Replicated shards (issue 27): what R = 2 costs on inserts, and a query stream across a kill.

1. INSERT throughput and latency, R = 1 vs R = 2: on S shards x R replicas (`granite worker`
   processes and a coordinator, tests/harness/cluster.py SplitCluster), `--inserts` small INSERTs
   of `--rows` distinct rows each, one client, sequential; then `--bulk` rows as one CSV insert.
   Reports rows/s and p50 / p99 latency of the small ones, and rows/s of the bulk one.
2. p99 of a steady query stream across a replica's kill -9 (R = 2): one client runs
   `SELECT count(), sum(x) FROM t` back to back; after `--warm` queries one replica is killed,
   restarted after `--down` seconds; reports failed queries and p50 / p99 / max latency of the
   steady part and of the window from the kill to 2 s after the restart.

    .venv/bin/python bench/replicas/run.py --granite build/granite
"""

import argparse
import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests", "harness"))
sys.path.insert(0, os.path.join(REPO, "client", "python"))

import cluster  # noqa: E402
import granite_client  # noqa: E402


def pct(values, p):
    values = sorted(values)
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(round(p / 100.0 * (len(values) - 1))))]


def ms(seconds):
    return "%.2f ms" % (seconds * 1000.0)


def insert_run(granite, shards, replicas, args):
    c = cluster.SplitCluster([granite], workers=shards * replicas, threads=1,
                             replicas=replicas).start()
    try:
        client = c.client(timeout=120)
        client.query("CREATE TABLE t (x UInt64, s String) ENGINE = MergeTree ORDER BY x")
        latencies = []
        start = time.monotonic()
        for i in range(args.inserts):
            rows = "".join("%d,row%d\n" % (i * args.rows + j, j) for j in range(args.rows))
            t0 = time.monotonic()
            client.query("INSERT INTO t FORMAT CSV", input_data=rows)
            latencies.append(time.monotonic() - t0)
        small_elapsed = time.monotonic() - start
        bulk = "".join("%d,bulk%d\n" % (10 ** 9 + j, j % 1000) for j in range(args.bulk))
        t0 = time.monotonic()
        client.query("INSERT INTO t FORMAT CSV", input_data=bulk)
        bulk_elapsed = time.monotonic() - t0
        count = int(client.query_text("SELECT count() FROM t"))
        assert count == args.inserts * args.rows + args.bulk, count
        client.close()
        return {
            "small_rows_per_s": args.inserts * args.rows / small_elapsed,
            "small_p50": pct(latencies, 50), "small_p99": pct(latencies, 99),
            "bulk_rows_per_s": args.bulk / bulk_elapsed,
        }
    finally:
        c.stop()


def kill_run(granite, args):
    c = cluster.SplitCluster([granite], workers=4, threads=1, replicas=2).start()
    try:
        client = c.client(timeout=120)
        client.query("CREATE TABLE t (x UInt64) ENGINE = MergeTree ORDER BY x")
        client.query("INSERT INTO t SELECT number FROM numbers(1000000)")
        want = client.query_text("SELECT count(), sum(x) FROM t")
        steady, window, failed = [], [], []
        killed_at = restarted_at = None
        deadline = time.monotonic() + 300
        n = 0
        while time.monotonic() < deadline:
            if n == args.warm and killed_at is None:
                c.kill9_worker(1)
                killed_at = time.monotonic()
            if killed_at and restarted_at is None and time.monotonic() - killed_at > args.down:
                c.restart_worker(1)
                restarted_at = time.monotonic()
            if restarted_at and time.monotonic() - restarted_at > 2.0:
                break
            t0 = time.monotonic()
            try:
                got = client.query_text("SELECT count(), sum(x) FROM t")
                if got != want:
                    failed.append("wrong result %r" % got)
            except granite_client.GraniteError as e:
                failed.append(str(e))
            dt = time.monotonic() - t0
            (window if killed_at else steady).append(dt)
            n += 1
        client.close()
        return steady, window, failed
    finally:
        c.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--granite", default=os.path.join(REPO, "build", "granite"))
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--inserts", type=int, default=300)
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--bulk", type=int, default=1000000)
    parser.add_argument("--warm", type=int, default=300)
    parser.add_argument("--down", type=float, default=5.0)
    args = parser.parse_args()
    results = {}
    for replicas in (1, 2):
        results[replicas] = insert_run(args.granite, args.shards, replicas, args)
        r = results[replicas]
        print("R=%d: %d small inserts of %d rows: %.0f rows/s, p50 %s, p99 %s; bulk %d rows: "
              "%.0f rows/s" % (replicas, args.inserts, args.rows, r["small_rows_per_s"],
                               ms(r["small_p50"]), ms(r["small_p99"]), args.bulk,
                               r["bulk_rows_per_s"]))
        sys.stdout.flush()
    print("R=2 / R=1: small %.2fx, bulk %.2fx" % (
        results[2]["small_rows_per_s"] / results[1]["small_rows_per_s"],
        results[2]["bulk_rows_per_s"] / results[1]["bulk_rows_per_s"]))
    steady, window, failed = kill_run(args.granite, args)
    print("query stream, 2 shards x 2 replicas, 1M rows: steady %d queries p50 %s p99 %s; "
          "kill -9 of a replica, restart after %.0f s: %d queries p50 %s p99 %s max %s; "
          "%d failed" % (len(steady), ms(pct(steady, 50)), ms(pct(steady, 99)), args.down,
                         len(window), ms(pct(window, 50)), ms(pct(window, 99)),
                         ms(max(window) if window else 0), len(failed)))
    for f in failed[:5]:
        print("  failed: %s" % f)


if __name__ == "__main__":
    main()
