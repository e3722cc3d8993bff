#!/usr/bin/env python3
"""Wall-time A/B of two granite binaries on the same queries, paired.

Starts one `granite local` cluster per binary (same worker count, both running at once) and runs
each query `runs` times on A and B alternately (A B B A A B ..., so drift hits both alike),
after one warm-up each. Prints, per query, the minimum and median seconds of each binary and the
B/A ratio of the medians. For table functions and other queries that need no loaded data.

    .venv/bin/python bench/queries/binary_ab.py BINARY_A BINARY_B WORKERS RUNS "SELECT ..." ...
"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "harness"))
import cluster  # noqa: E402


def main():
    binary_a, binary_b, workers, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    queries = sys.argv[5:]
    clusters = [cluster.LocalCluster([b], workers=workers).start() for b in (binary_a, binary_b)]
    try:
        clients = [c.client(timeout=600) for c in clusters]
        print("query\tA min\tA median\tB min\tB median\tB/A median")
        for sql in queries:
            times = [[], []]
            for client in clients:
                client.query(sql)  # warm-up
            for r in range(runs):
                order = (0, 1) if r % 2 == 0 else (1, 0)
                for side in order:
                    started = time.perf_counter()
                    clients[side].query(sql)
                    times[side].append(time.perf_counter() - started)
            a, b = statistics.median(times[0]), statistics.median(times[1])
            print("%s\t%.4f\t%.4f\t%.4f\t%.4f\t%.3f" % (sql, min(times[0]), a, min(times[1]), b,
                                                         b / a))
    finally:
        for c in clusters:
            c.stop()


if __name__ == "__main__":
    main()
