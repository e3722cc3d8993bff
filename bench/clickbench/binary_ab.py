#!/usr/bin/env python3
"""Same-run, paired A/B of two granite binaries on the ClickBench queries over loaded data.

Usage: binary_ab.py [--data-b DATA_DIR_B] [--cold] [--queries FILE] BINARY_A BINARY_B DATA_DIR RUNS
                    [QUERY_NUMBERS]
  e.g. binary_ab.py /tmp/old/granite build/granite /tmp/cbw/granite 5 1-43
DATA_DIR is a `granite local --workers 2` data folder that run.py --keep loaded. B runs on a copy
of it (DATA_DIR-ab-copy; a data folder is locked by the process that serves it), so both binaries
read the same parts; with --data-b, B serves DATA_DIR_B instead (the same rows loaded by B, to
compare storage formats). With --cold, every timed run starts with the page cache dropped (root
only) and bypasses the uncompressed cache (SETTINGS use_uncompressed_cache = 0), with no warm-up. Both clusters run at once; each query runs once on each as a warm-up, then
RUNS times alternately A B B A A B ... (drift and background load hit both alike). Prints, per
query, the median seconds of A and B and B/A, then the geometric mean of B/A. The ClickBench files
stay outside the project (license): CLICKBENCH_DIR, default ../shared/clickbench. --queries
FILE runs FILE's queries (one per line, e.g. bench/shapes/*.sql over the hits table) instead.
"""
import math
import os
import shutil
import statistics
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests", "harness"))
import cluster  # noqa: E402


def numbers(spec, count):
    out = []
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    return [n for n in out if 1 <= n <= count]


def drop_page_cache():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def main():
    argv = sys.argv[1:]
    data_b = None
    cold = False
    queries_file = None
    while argv[:1] in (["--data-b"], ["--cold"], ["--queries"]):
        if argv[0] == "--cold":
            cold, argv = True, argv[1:]
        elif argv[0] == "--queries":
            queries_file, argv = argv[1], argv[2:]
        else:
            data_b, argv = argv[1], argv[2:]
    binary_a, binary_b, data, runs = argv[0], argv[1], argv[2], int(argv[3])
    clickbench = os.environ.get("CLICKBENCH_DIR",
                                os.path.join(os.path.dirname(REPO), "shared", "clickbench"))
    queries_file = queries_file or os.path.join(clickbench, "queries.sql")
    queries = [l.strip().rstrip(";") for l in open(queries_file)
               if l.strip() and not l.startswith("--")]
    wanted = numbers(argv[4] if len(argv) > 4 else "1-%d" % len(queries), len(queries))
    copy = data_b or data.rstrip("/") + "-ab-copy"
    if data_b is None:
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(data, copy)
    clusters = [cluster.LocalCluster([b], workers=2, data_dir=d, keep_data=True).start()
                for b, d in ((binary_a, data), (binary_b, copy))]
    try:
        clients = [c.client(timeout=600) for c in clusters]
        for client in clients:
            client.wait_ready(60)
        ratios = []
        print("query\tA median s\tB median s\tB/A", flush=True)
        for n in wanted:
            sql = queries[n - 1]
            if cold:
                sql += " SETTINGS use_uncompressed_cache = 0"
            else:
                for client in clients:
                    client.query(sql)  # warm-up
            times = [[], []]
            for r in range(runs):
                order = (0, 1) if r % 2 == 0 else (1, 0)
                for i in order:
                    if cold:
                        drop_page_cache()
                    started = time.monotonic()
                    clients[i].query(sql)
                    times[i].append(time.monotonic() - started)
            a, b = statistics.median(times[0]), statistics.median(times[1])
            ratios.append(b / a)
            print("Q%d\t%.4f\t%.4f\t%.3f" % (n, a, b, b / a), flush=True)
        geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print("geomean B/A over %d queries: %.3f" % (len(ratios), geomean), flush=True)
    finally:
        for c in clusters:
            c.stop()
        if data_b is None:
            shutil.rmtree(copy, ignore_errors=True)


if __name__ == "__main__":
    main()
