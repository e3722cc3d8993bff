#!/usr/bin/env python3
"""Fan-out cost by cluster size (issue 27, item 8): many small `granite worker` processes on
loopback (tests/harness/cluster.py SplitCluster, one thread each) behind one coordinator, as a
simulation of a large cluster. For each worker count, a table sharded by `k` with 100 rows per
worker, then `--queries` runs (one client, back to back, after 20 warm-up runs) of each shape:

  point        SELECT v FROM t WHERE id = 7           (not the key: every shard is asked)
  key_point    SELECT v FROM t WHERE k = 7            (the sharding key: one shard is asked)
  key_point_off  the same with optimize_skip_unused_shards = 0 (every shard)
  small_group  SELECT k % 10, count() FROM t GROUP BY 1

Prints p50 / p90 in ms per shape and worker count, the p50 slope per added worker, and the CPU
each query costs the coordinator and the workers together (from /proc over the timed runs): on
a machine with fewer cores than workers the latency slope is mostly the workers' own CPU
serialized on the cores, while the coordinator's CPU per added worker is the fan-out's cost.

    .venv/bin/python bench/fanout/run.py --granite build/granite --workers 1,2,4,8,16,32,64

--port P puts the coordinator on P and worker i on P + 1 + i (a machine shared with other
runs); --http_port the coordinator's HTTP interface.
"""

import argparse
import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests", "harness"))
sys.path.insert(0, os.path.join(REPO, "client", "python"))

import cluster  # noqa: E402

SHAPES = [
    ("point", "SELECT v FROM t WHERE id = 7", None),
    ("key_point", "SELECT v FROM t WHERE k = 7", None),
    ("key_point_off", "SELECT v FROM t WHERE k = 7", {"optimize_skip_unused_shards": "0"}),
    ("small_group", "SELECT k % 10, count() FROM t GROUP BY 1 ORDER BY 1", None),
]


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100.0 * (len(values) - 1))))]


def cpu_seconds(pid):
    """User + system CPU of process `pid` (all its threads, also the ended ones)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(granite, workers, queries, port=0, http_port=-1):
    c = cluster.SplitCluster([granite], workers=workers, threads=1,
                             coordinator_args=["--http_port", str(http_port)])
    if port:
        # Fixed ports on a shared machine: the coordinator on `port`, the workers above it.
        c.coordinator_port = port
        c.worker_ports = [port + 1 + i for i in range(workers)]
    c.start()
    try:
        client = c.client(timeout=120)
        client.query("CREATE TABLE t (id UInt64, k UInt32, v UInt64) ENGINE = MergeTree "
                     "ORDER BY id SETTINGS sharding_key = 'k'")
        client.query("INSERT INTO t SELECT number, number %% 1000, number * 3 FROM numbers(%d)"
                     % (100 * workers))
        out = {}
        for name, sql, settings in SHAPES:
            expected = client.query_text(sql, settings=settings)
            for _ in range(20):
                client.query(sql, settings=settings)
            latencies = []
            coordinator = c.coordinator.pid
            worker_pids = [w.pid for w in c.workers]
            cpu0 = cpu_seconds(coordinator), sum(cpu_seconds(p) for p in worker_pids)
            for _ in range(queries):
                t0 = time.perf_counter()
                text = client.query_text(sql, settings=settings)
                latencies.append(time.perf_counter() - t0)
                assert text == expected, (name, text, expected)
            cpu1 = cpu_seconds(coordinator), sum(cpu_seconds(p) for p in worker_pids)
            out[name] = (pct(latencies, 50) * 1000, pct(latencies, 90) * 1000,
                         (cpu1[0] - cpu0[0]) * 1000 / queries, (cpu1[1] - cpu0[1]) * 1000 / queries)
        client.close()
        return out
    finally:
        c.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--granite", default=os.path.join(REPO, "build", "granite"))
    parser.add_argument("--workers", default="1,2,4,8,16,32,64")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--port", type=int, default=0,
                        help="the coordinator's port, the workers' from port + 1 (0: ephemeral)")
    parser.add_argument("--http_port", type=int, default=-1,
                        help="the coordinator's HTTP port (-1: off, 0: ephemeral)")
    args = parser.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    results = {}
    for n in counts:
        results[n] = measure(args.granite, n, args.queries, args.port, args.http_port)
        print("workers %3d: %s" % (n, "  ".join(
            "%s p50 %.2f p90 %.2f cpu coordinator %.3f workers %.3f" % (s, *results[n][s])
            for s, _, _ in SHAPES)), flush=True)
    print()
    print("| workers | " + " | ".join("%s p50 / p90 ms" % s for s, _, _ in SHAPES) + " |")
    print("|---:|" + "---:|" * len(SHAPES))
    for n in counts:
        print("| %d | " % n + " | ".join("%.2f / %.2f" % results[n][s][:2] for s, _, _ in SHAPES)
              + " |")
    print()
    print("CPU per query, ms (coordinator / all workers):")
    print()
    print("| workers | " + " | ".join("%s" % s for s, _, _ in SHAPES) + " |")
    print("|---:|" + "---:|" * len(SHAPES))
    for n in counts:
        print("| %d | " % n + " | ".join("%.3f / %.3f" % results[n][s][2:] for s, _, _ in SHAPES)
              + " |")
    if len(counts) > 1:
        lo, hi = counts[0], counts[-1]
        print()
        for s, _, _ in SHAPES:
            slope = (results[hi][s][0] - results[lo][s][0]) / (hi - lo)
            cpu_slope = (results[hi][s][2] - results[lo][s][2]) / (hi - lo)
            print("%s: p50 slope %.3f ms, coordinator CPU slope %.4f ms per added worker "
                  "(%d -> %d workers)" % (s, slope, cpu_slope, lo, hi))


if __name__ == "__main__":
    main()
