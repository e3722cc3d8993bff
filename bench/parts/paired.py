#!/usr/bin/env python3
"""Paired A/B of small INSERTs, alone and under SELECT load, for two granite binaries.

Both clusters (`granite local --workers 1`, a table of --parts one-row partitions) run at once;
short bursts alternate between them (A then B, then B then A, ...), so each round measures both
binaries within seconds of each other. On a shared machine whose speed drifts by 2x within
minutes (hypervisor steal), the per-round ratio B/A is far steadier than two separate runs.

Each round, per binary: --seconds of INSERTs (one row into a random partition, from
--insert-clients clients) alone, then the same while --loads SELECT clients run the pruned
`SELECT count(), sum(x) FROM t WHERE p = <random>`. Reported, as medians over rounds (rounds
where either burst lost more than --max-steal of the CPU to the hypervisor left out, if any
remain): INSERT p50, throughput, server CPU per insert (all granite processes; under load it
includes the SELECTs' CPU), and the ratios
B/A alone, B/A loaded, and loaded/alone per binary (issue 4's "slowdown under load").

With --selects-only, each round instead runs the pruned SELECT alone at each of
--select-concurrency, with no INSERTs: what a configuration costs a read-only load.

  .venv/bin/python bench/parts/paired.py --a OLD/granite --b build/granite [--rounds 10]
      [--seconds 1.5] [--insert-clients 1] [--loads 64] [--flags "--query_thread_nice=20 ..."]
      [--flags-b "..."]   (B's flags, if they differ: two configurations of one binary)
"""

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (bench/parts/run.py: benchmark, measured, fill, write_queries)
from run import cluster  # noqa: E402


def burst(granite, port, inserts, selects, args, loaded):
    """One measured INSERT burst (with a SELECT load around it if `loaded`): returns
    (p50 ms, INSERT/s, server CPU ms per insert, steal share, SELECT QPS)."""
    load = {}
    if loaded:
        def select_load():
            load["report"] = run.benchmark(granite, port, selects, args.loads, args.seconds + 1.5,
                                           ["chrt", "--idle", "0"] if args.select_load_idle else [])
        thread = threading.Thread(target=select_load)
        thread.start()
        time.sleep(0.75)
    report = run.measured(lambda: run.benchmark(granite, port, inserts, args.insert_clients,
                                                args.seconds))
    if loaded:
        thread.join()
    queries = max(report.get("queries", 0), 1)
    cpu_ms = sum(report.get("cpu_seconds", {}).values()) * 1000 / queries
    return (report["p50_ms"], report["qps"], cpu_ms, report["steal"],
            load["report"]["qps"] if loaded else 0.0)


def ratios(first, second, max_steal):
    """Per-round p50 and CPU ratios second/first: over the rounds clean in both (if any), and
    over all rounds."""
    def summary(pairs, label):
        p50 = [b[0] / max(a[0], 1e-9) for a, b in pairs]
        cpu = [b[2] / max(a[2], 1e-9) for a, b in pairs]
        return ("p50 %.3fx (%.2f-%.2f), CPU/insert %.3fx over %d %s rounds"
                % (statistics.median(p50), min(p50), max(p50), statistics.median(cpu), len(pairs),
                   label))
    every = list(zip(first, second))
    clean = [(a, b) for a, b in every if max(a[3], b[3]) <= max_steal]
    return "; ".join(([summary(clean, "clean")] if clean else []) + [summary(every, "")])


def selects_only(clusters, selects, args):
    """The SELECT alone at each concurrency, rounds alternating A/B; prints medians and B/A."""
    levels = [int(c) for c in args.select_concurrency.split(",")]
    results = {}
    for round_ in range(args.rounds):
        for level in levels:
            for name, granite, local, _ in clusters if round_ % 2 == 0 else clusters[::-1]:
                report = run.measured(
                    lambda: run.benchmark(granite, local.port, selects, level, args.seconds))
                results.setdefault((name, level), []).append(
                    (report["qps"], report["p50_ms"], report["steal"]))
        print("round %d done" % (round_ + 1), flush=True)
    print("\nA = %s %s, B = %s %s; %d parts; SELECT only"
          % (args.a, args.flags or "(defaults)", args.b,
             (args.flags if args.flags_b is None else args.flags_b) or "(defaults)", args.parts))
    for level in levels:
        a, b = results[("A", level)], results[("B", level)]
        qps = [y[0] / max(x[0], 1e-9) for x, y in zip(a, b)]
        p50 = [y[1] / max(x[1], 1e-9) for x, y in zip(a, b)]
        print("%3d clients: A %.0f qps p50 %.2f ms | B %.0f qps p50 %.2f ms | B/A QPS %.3fx "
              "(%.2f-%.2f), p50 %.3fx; steal max %.0f%%"
              % (level, statistics.median(x[0] for x in a), statistics.median(x[1] for x in a),
                 statistics.median(y[0] for y in b), statistics.median(y[1] for y in b),
                 statistics.median(qps), min(qps), max(qps), statistics.median(p50),
                 100 * max(r[2] for r in a + b)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--a", required=True, help="granite binary A (the baseline)")
    parser.add_argument("--b", required=True, help="granite binary B")
    parser.add_argument("--flags", default="", help="extra `granite local` flags for both")
    parser.add_argument("--flags-b", default=None,
                        help="B's flags instead of --flags (A/B of two configurations)")
    parser.add_argument("--parts", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=1.5)
    parser.add_argument("--insert-clients", type=int, default=1)
    parser.add_argument("--loads", type=int, default=64, help="SELECT clients; 0 = alone only")
    parser.add_argument("--max-steal", type=float, default=0.05)
    parser.add_argument("--data-root", default="/dev/shm")
    parser.add_argument("--selects-only", action="store_true",
                        help="measure the SELECT alone (no INSERTs) at --select-concurrency")
    parser.add_argument("--select-concurrency", default="1,8,64")
    parser.add_argument("--select-load-idle", action="store_true",
                        help="run the SELECT load generator under SCHED_IDLE, as if its clients "
                             "were on other machines (it still shares the cores)")
    args = parser.parse_args()

    rng = random.Random(1)
    keys = [rng.randrange(args.parts) for _ in range(5000)]
    workdir = tempfile.mkdtemp(prefix="granite-paired-")
    inserts = os.path.join(workdir, "inserts.sql")
    selects = os.path.join(workdir, "selects.sql")
    run.write_queries(inserts, ["INSERT INTO t VALUES (%d, %d)" % (k, 1000000 + i)
                                for i, k in enumerate(keys)])
    run.write_queries(selects, ["SELECT count(), sum(x) FROM t WHERE p = %d" % k for k in keys])
    clusters = []
    try:
        flags_b = args.flags if args.flags_b is None else args.flags_b
        for name, path, flags in (("A", args.a, args.flags), ("B", args.b, flags_b)):
            granite = cluster.find_granite(path)
            data = tempfile.mkdtemp(prefix="granite-paired-", dir=args.data_root)
            local = cluster.LocalCluster(granite, workers=1, data_dir=data,
                                         extra_args=flags.split())
            clusters.append((name, granite, local.start(), data))
            run.fill(local.client(timeout=600), args.parts)
            run.benchmark(granite, local.port, inserts, args.insert_clients, 1)  # warm-up
        if args.selects_only:
            return selects_only(clusters, selects, args)
        phases = [False, True] if args.loads else [False]
        results = {(name, loaded): [] for name, _, _, _ in clusters for loaded in phases}
        for round_ in range(args.rounds):
            for name, granite, local, _ in clusters if round_ % 2 == 0 else clusters[::-1]:
                for loaded in phases:
                    results[(name, loaded)].append(
                        burst(granite, local.port, inserts, selects, args, loaded))
            print("round %d done" % (round_ + 1), flush=True)
        print("\nA = %s %s, B = %s %s; %d parts; %d INSERT client(s); %d SELECT clients%s"
              % (args.a, args.flags or "(defaults)", args.b, flags_b or "(defaults)", args.parts,
                 args.insert_clients, args.loads,
                 " (load generator at SCHED_IDLE)" if args.select_load_idle else ""))
        for (name, loaded), rows in results.items():
            kept = [r for r in rows if r[3] <= args.max_steal] or rows
            print("%s %-7s p50 %.3f ms, %.0f INSERT/s, CPU %.3f ms/insert, SELECT %.0f qps "
                  "(medians of %d rounds; steal max %.0f%%)"
                  % (name, "loaded" if loaded else "alone",
                     statistics.median(r[0] for r in kept), statistics.median(r[1] for r in kept),
                     statistics.median(r[2] for r in kept), statistics.median(r[4] for r in kept),
                     len(kept), 100 * max(r[3] for r in rows)))
        for loaded in phases:
            print("B/A %-7s %s" % ("loaded" if loaded else "alone",
                                   ratios(results[("A", loaded)], results[("B", loaded)],
                                          args.max_steal)))
        if args.loads:
            for name, _, _, _ in clusters:
                print("%s loaded/alone %s" % (name, ratios(results[(name, False)],
                                                         results[(name, True)], args.max_steal)))
    finally:
        for _, _, local, data in clusters:
            local.stop()
            shutil.rmtree(data, ignore_errors=True)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
