#!/usr/bin/env python3
"""Grace hash join cost (core/join/grace_hash_join.h): the same co-located join run in memory
(join_algorithm = 'hash') and forced to spill (join_algorithm = 'grace_hash' with a small
max_bytes_in_join), best of --runs hot runs each, in probe rows per second, with the buckets and
bytes the workers spilled (system.events JoinSpilledBuckets / JoinSpilledBytes) and the workers'
peak memory of the query (system.query_log memory_usage is the coordinator's, so the worker
figure is not shown).

    .venv/bin/python bench/grace_join/run.py --granite build/granite --rows 4000000 --workers 1

Tables: `probe` (--rows rows: k = a hash of the row number modulo --keys, v) and `build` (--keys
rows, one per key, with a ~40-byte string), both sharded by k (each worker joins its own shard);
the query counts and sums the joined rows so the result itself is tiny.
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "harness"))
import cluster  # noqa: E402
from granite_client import Client  # noqa: E402

QUERY = ("SELECT count(), sum(v), sum(cityHash64(s) %% 1000) FROM probe JOIN build "
         "ON probe.k = build.k "
         "SETTINGS join_algorithm = '%s'%s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--granite", default=None)
    parser.add_argument("--rows", type=int, default=4000000)
    parser.add_argument("--keys", type=int, default=1000000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--spill_bytes", default="4000000,1000000",
                        help="max_bytes_in_join values of the spilling runs")
    args = parser.parse_args()
    granite = cluster.find_granite(args.granite)
    with cluster.LocalCluster(granite, workers=args.workers) as local:
        c = Client(port=local.port, timeout=3600)
        c.execute("CREATE TABLE probe (k UInt64, v Int64) ENGINE = MergeTree ORDER BY v "
                  "SETTINGS sharding_key = 'k'")
        c.execute("CREATE TABLE build (k UInt64, s String) ENGINE = MergeTree ORDER BY k "
                  "SETTINGS sharding_key = 'k'")
        c.execute("INSERT INTO probe SELECT cityHash64(number) %% %d, number FROM numbers(%d)"
                  % (args.keys, args.rows))
        c.execute("INSERT INTO build SELECT number, concat(repeat('s', 32), toString(number)) "
                  "FROM numbers(%d)" % args.keys)
        configs = [("hash", "")] + [("grace_hash", ", max_bytes_in_join = %s" % b)
                                    for b in args.spill_bytes.split(",")]
        results = []
        for algorithm, extra in configs:
            best, answer, spilled = None, None, {}
            for _ in range(args.runs):
                before = cluster.event_totals(c, "JoinSpilled%")
                start = time.perf_counter()
                answer = c.execute(QUERY % (algorithm, extra)).output.decode().strip()
                elapsed = time.perf_counter() - start
                after = cluster.event_totals(c, "JoinSpilled%")
                spilled = {k: after.get(k, 0) - before.get(k, 0) for k in after}
                best = elapsed if best is None else min(best, elapsed)
            results.append((algorithm + extra, best, answer, spilled))
    print("| settings | best s | probe rows/s | buckets spilled | bytes spilled | answer |")
    print("|---|---|---|---|---|---|")
    for name, best, answer, spilled in results:
        print("| %s | %.3f | %.0f | %d | %d | %s |" % (
            name, best, args.rows / best, spilled.get("JoinSpilledBuckets", 0),
            spilled.get("JoinSpilledBytes", 0), answer.replace("\t", " ")))
    if len({r[2] for r in results}) != 1:
        print("ANSWERS DIFFER")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
