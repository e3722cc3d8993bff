#!/usr/bin/env python3
"""Records CPU profiles (perf record, no call graph) of the coordinator and of each worker of
`granite local --workers N` while it loads a TabSeparated (or any format's) file into ClickBench's
`hits` table, streamed like bench/ingest/run.py. Writes <out>/coordinator.data and
<out>/worker-<i>.data and prints, per process, the CPU seconds and the top threads and symbols
(`perf report --sort comm` / `--sort symbol`). A measurement, never a test.

Usage: .venv/bin/python bench/ingest/profile.py --granite build/granite --data hits.tsv \\
           --out /tmp/ingest/prof-after [--format TabSeparated] [--setting NAME=VALUE]
"""

import argparse
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "clickbench"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # before clickbench's run.py
import engines  # noqa: E402
import run  # noqa: E402  (bench/ingest/run.py: cpu_seconds, children)


def report(path, sort, limit):
    out = subprocess.run(["perf", "report", "-i", path, "--no-children", "--sort", sort,
                          "--percent-limit", "0.7", "--stdio", "-q"],
                         capture_output=True, text=True).stdout
    return "\n".join(line for line in out.splitlines() if line.strip())[:limit]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--granite", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--format", default="TabSeparated")
    parser.add_argument("--setting", action="append", default=[])
    parser.add_argument("--create", help="CREATE TABLE of the target table (default: ClickBench's "
                        "hits)")
    parser.add_argument("--table", default="hits")
    parser.add_argument("--frequency", type=int, default=250)
    parser.add_argument("--dwarf", action="store_true",
                        help="record call graphs (--call-graph dwarf): who calls memmove")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    settings = dict(s.split("=", 1) for s in args.setting) or None
    engine = engines.GraniteEngine([args.granite], workers=args.workers)
    try:
        engine.create(args.create or
                      engines.read_statement(engines.DEFAULT_CLICKBENCH, "create.sql"))
        coordinator = engine._cluster.process.pid
        pids = [("coordinator", coordinator)] + [
            ("worker-%d" % i, p) for i, p in enumerate(run.children(coordinator))]
        before = {name: run.cpu_seconds(pid) for name, pid in pids}
        graph = ["--call-graph", "dwarf,8192"] if args.dwarf else []
        perfs = [subprocess.Popen(["perf", "record", "-F", str(args.frequency), "-p", str(pid),
                                   "-o", os.path.join(args.out, name + ".data")] + graph,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                 for name, pid in pids]
        time.sleep(1)

        def chunks():
            with open(args.data, "rb") as f:
                while True:
                    block = f.read(1 << 20)
                    if not block:
                        return
                    yield block

        start = time.monotonic()
        engine._run(lambda: engine._client.insert_stream(
            "INSERT INTO %s FORMAT %s" % (args.table, args.format), chunks(), settings=settings, timeout=3600))
        wall = time.monotonic() - start
        for p in perfs:
            p.send_signal(signal.SIGINT)
        for p in perfs:
            p.wait()
        print("load: %.1f s wall, load average %s" % (wall, run.load_avg()))
        for name, pid in pids:
            print("\n== %s: %.1f CPU s" % (name, run.cpu_seconds(pid) - before[name]))
            path = os.path.join(args.out, name + ".data")
            print(report(path, "comm", 1500))
            print(report(path, "dso,symbol", 4000))
    finally:
        engine.close()


if __name__ == "__main__":
    main()
