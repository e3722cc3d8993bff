#!/usr/bin/env python3
"""CPU seconds per ClickBench query in granite, chdb and DuckDB over tables run.py --reuse loaded.

Usage: cpu_compare.py WORKDIR [--granite BINARY] [--runs N] [--queries 1,5-9] [--engines LIST]

Wall times on a machine other agents load move by 2x; CPU time (user + system) moves much less.
granite: the CPU of `granite local` and its worker children (/proc), around each query; chdb and
DuckDB run in this process: getrusage(RUSAGE_SELF) around each query (all their threads). Each
query runs once as a warm-up, then N times (default 3); the report is the median CPU seconds and
the median wall seconds per query, and granite's CPU over the smaller peer CPU. CPU is not wall:
an engine that parallelizes badly looks better here than it is; use it next to run.py's figures.
"""
import argparse
import math
import os
import resource
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import engines  # noqa: E402
from compare import parse_list  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def family_cpu(root):
    """CPU seconds of pid `root` and its direct children."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = open("/proc/%s/stat" % entry).read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry) == root or int(fields[1]) == root:
            total += int(fields[11]) + int(fields[12])
    return total / TICKS


def self_cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def measure(run, cpu, runs):
    run()
    cpus, walls = [], []
    for _ in range(runs):
        c0, w0 = cpu(), time.monotonic()
        run()
        walls.append(time.monotonic() - w0)
        cpus.append(cpu() - c0)
    return statistics.median(cpus), statistics.median(walls)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("workdir")
    parser.add_argument("--granite")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--queries")
    parser.add_argument("--engines", default="granite,chdb,duckdb")
    parser.add_argument("--clickbench", default=engines.DEFAULT_CLICKBENCH)
    args = parser.parse_args()
    names = [e for e in args.engines.split(",") if e]
    queries = engines.read_queries(args.clickbench)
    duck_queries = engines.read_queries(args.clickbench, "duckdb-queries.sql")
    selected = sorted(parse_list(args.queries) or range(1, len(queries) + 1))
    results = {}
    for name in names:
        if name == "granite":
            engine = engines.GraniteEngine(engines.cluster.find_granite(args.granite), 2,
                                           os.path.join(args.workdir, "granite"), timeout=600)
            root = engine._cluster.process.pid
            cpu = lambda: family_cpu(root)  # noqa: E731
        elif name == "chdb":
            engine, cpu = engines.ChdbEngine(os.path.join(args.workdir, "chdb")), self_cpu
        else:
            engine, cpu = engines.DuckdbEngine(os.path.join(args.workdir, "duckdb")), self_cpu
        texts = duck_queries if name == "duckdb" else queries
        results[name] = {}
        try:
            for q in selected:
                results[name][q] = measure(lambda: engine.query(texts[q - 1]), cpu, args.runs)
                print("%s Q%02d cpu %.3f wall %.3f" % ((name, q) + results[name][q]), flush=True)
        finally:
            engine.close(keep=True)
    print()
    print("| Q | " + " | ".join("%s CPU s (wall)" % n for n in names)
          + " | granite CPU / best peer CPU |")
    print("|---|" + "---:|" * (len(names) + 1))
    ratios = []
    for q in selected:
        cells = ["%.3f (%.3f)" % results[n][q] for n in names]
        peers = [results[n][q][0] for n in names if n != "granite"]
        ratio = ""
        if "granite" in names and peers:
            r = max(results["granite"][q][0], 0.001) / max(min(peers), 0.001)
            ratios.append(r)
            ratio = "%.2f" % r
        print("| %d | %s | %s |" % (q, " | ".join(cells), ratio))
    if ratios:
        print("\ngeomean granite CPU / best peer CPU: %.3f" % math.exp(
            sum(math.log(r) for r in ratios) / len(ratios)))


if __name__ == "__main__":
    sys.exit(main())
