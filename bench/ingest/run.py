#!/usr/bin/env python3
"""Times the load of one TabSeparated file into ClickBench's `hits` table: granite (one or more
binaries, `granite local --workers N`, the file streamed in 1 MiB messages into INSERT ... FORMAT
TabSeparated by the Python gRPC client, as bench/clickbench loads it) and chdb (INSERT ... SELECT
FROM file(), in-process) in the same run, alternating engines round by round.

Per load: wall seconds, rows/s, and CPU seconds from /proc (utime + stime) of the coordinator
(`granite local` itself) and of its worker processes, plus this Python process's (the client for
granite; chdb itself for chdb), so rows/s per core = rows / server CPU seconds, and the instructions and cycles perf stat counts
in the same processes (instructions do not grow with the machine's load as CPU seconds do). The
load average is printed with every load. A measurement, never a test.

Usage:
    build/granite gen hits --rows 1000000 --seed 1 > /tmp/ingest/hits.tsv
    .venv/bin/python bench/ingest/run.py --data /tmp/ingest/hits.tsv \\
        --binary before=/tmp/granite-before --binary after=build/granite --chdb --rounds 2
"""

import argparse
import os
import resource
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "clickbench"))
import engines  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """Returns utime + stime of process `pid` in seconds (0 if it is gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS
    except OSError:
        return 0.0


def children(pid):
    """Returns the pids of the children of `pid` (every thread's)."""
    out = []
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                out += [int(p) for p in f.read().split()]
    except OSError:
        pass
    return out


def self_cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class PerfStat:
    """Counts instructions and cycles of processes `pids` (perf stat) from start to stop()."""

    def __init__(self, pids):
        self._proc = subprocess.Popen(
            ["perf", "stat", "-x", ",", "-e", "instructions,cycles", "-p",
             ",".join(str(p) for p in pids)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True)
        time.sleep(0.3)

    def stop(self):
        """Returns (instructions, cycles) in billions."""
        self._proc.send_signal(signal.SIGINT)
        err = self._proc.communicate()[1]
        counts = {}
        for line in err.splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[0].isdigit():
                counts[fields[2].split(":")[0]] = int(fields[0]) / 1e9
        return counts.get("instructions"), counts.get("cycles")


def load_avg():
    return "%.2f %.2f %.2f" % os.getloadavg()


def run_granite(name, binary, data, rows, workers, clickbench, settings):
    engine = engines.GraniteEngine([binary], workers=workers)
    try:
        engine.create(engines.read_statement(clickbench, "create.sql"))
        coordinator = engine._cluster.process.pid
        worker_pids = children(coordinator)
        before = [cpu_seconds(coordinator)] + [cpu_seconds(p) for p in worker_pids]
        stat = PerfStat([coordinator] + worker_pids)
        client_before = self_cpu()
        load_before = load_avg()

        def chunks():
            with open(data, "rb") as f:
                while True:
                    block = f.read(1 << 20)
                    if not block:
                        return
                    yield block

        start = time.monotonic()
        engine._run(lambda: engine._client.insert_stream(
            "INSERT INTO hits FORMAT TabSeparated", chunks(), settings=settings, timeout=3600))
        wall = time.monotonic() - start
        instructions, cycles = stat.stop()
        after = [cpu_seconds(coordinator)] + [cpu_seconds(p) for p in worker_pids]
        client = self_cpu() - client_before
        count = int(engine.query("SELECT count() FROM hits")[0].decode().strip())
        assert count == rows, (count, rows)
        coord = after[0] - before[0]
        work = sum(after[1:]) - sum(before[1:])
        return {"engine": name, "wall": wall, "coordinator": coord, "workers": work,
                "client": client, "server": coord + work, "instructions": instructions,
                "cycles": cycles, "load": load_before + " -> " + load_avg()}
    finally:
        engine.close()


def run_chdb(data, rows, clickbench):
    engine = engines.ChdbEngine()
    try:
        engine.create(engines.read_statement(clickbench, "create.sql"))
        cpu_before = self_cpu()
        load_before = load_avg()
        stat = PerfStat([os.getpid()])
        wall = engine.load(data)
        instructions, cycles = stat.stop()
        cpu = self_cpu() - cpu_before
        count = int(engine.query("SELECT count() FROM hits")[0].decode().strip())
        assert count == rows, (count, rows)
        return {"engine": "chdb", "wall": wall, "coordinator": None, "workers": None,
                "client": None, "server": cpu, "instructions": instructions, "cycles": cycles,
                "load": load_before + " -> " + load_avg()}
    finally:
        engine.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="the TabSeparated file of `hits` rows")
    parser.add_argument("--binary", action="append", default=[],
                        help="NAME=PATH of a granite binary (repeatable)")
    parser.add_argument("--chdb", action="store_true", help="load the same file into chdb too")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clickbench", default=engines.DEFAULT_CLICKBENCH)
    parser.add_argument("--setting", action="append", default=[],
                        help="NAME=VALUE sent with granite's INSERT (repeatable)")
    args = parser.parse_args()
    with open(args.data, "rb") as f:
        rows = sum(block.count(b"\n") for block in iter(lambda: f.read(1 << 24), b""))
    binaries = [b.split("=", 1) for b in args.binary]
    settings = dict(s.split("=", 1) for s in args.setting) or None
    results = []
    print("| round | engine | wall s | rows/s | server CPU s | coordinator CPU s | workers CPU s "
          "| client CPU s | rows/s per server core | server instructions (G) | server cycles (G) "
          "| load avg (1 5 15) before -> after |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in range(args.rounds):
        order = list(binaries) if r % 2 == 0 else list(reversed(binaries))
        runs = [("granite", name, path) for name, path in order]
        if args.chdb:
            runs.insert(r % (len(runs) + 1), ("chdb", "chdb", None))
        for kind, name, path in runs:
            res = (run_chdb(args.data, rows, args.clickbench) if kind == "chdb" else
                   run_granite(name, path, args.data, rows, args.workers, args.clickbench,
                               settings))
            results.append(res)
            fmt = lambda v: "-" if v is None else "%.1f" % v
            print("| %d | %s | %.1f | %.0f | %.1f | %s | %s | %s | %.0f | %s | %s | %s |" % (
                r + 1, res["engine"], res["wall"], rows / res["wall"], res["server"],
                fmt(res["coordinator"]), fmt(res["workers"]), fmt(res["client"]),
                rows / res["server"], fmt(res["instructions"]), fmt(res["cycles"]), res["load"]),
                flush=True)


if __name__ == "__main__":
    main()
