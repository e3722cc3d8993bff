#!/usr/bin/env python3
"""Files a small INSERT creates on the workers (compact parts; issue 27's ext4 inode cost).

On S shards x R replicas (tests/harness/cluster.py SplitCluster), `strace -f` is attached to every
worker while `--inserts` INSERTs of `--rows` rows run into a table of `--columns` columns (x
UInt64, s String, then UInt32 columns); it counts the files created (openat with O_CREAT) and the
directories made (mkdir) under the workers' data directories and prints them per insert: in the
inserted parts, in parts written by background merges (tmp_merge_...), and elsewhere (block log,
staged chunks).

    .venv/bin/python bench/replicas/files_per_insert.py --granite build/granite --replicas 2

Needs strace and permission to trace one's own processes (kernel.yama.ptrace_scope 0). With
--cpu, nothing is traced: it prints the workers' CPU time (user + system, from /proc) per insert
and the inserts' wall time instead, which a loaded machine disturbs less than rows/s.
"""

import argparse
import os
import re
import signal
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests", "harness"))
sys.path.insert(0, os.path.join(REPO, "client", "python"))

import cluster  # noqa: E402

_OPEN_RE = re.compile(r'openat\([^,]+, "([^"]+)", ([A-Z_|]+)')
_MKDIR_RE = re.compile(r'mkdir(?:at)?\((?:[^,]+, )?"([^"]+)"')


def cpu_seconds(pid):
    """User + system CPU time of process `pid` (all its threads) so far."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / float(os.sysconf("SC_CLK_TCK"))


def count(trace_paths, root):
    parts = merges = other = dirs = 0
    for path in trace_paths:
        with open(path) as f:
            for line in f:
                m = _OPEN_RE.search(line)
                if m and "O_CREAT" in m.group(2) and m.group(1).startswith(root):
                    if "/tmp_merge_" in m.group(1):
                        merges += 1
                    elif "/parts/" in m.group(1):
                        parts += 1
                    else:
                        other += 1
                    continue
                m = _MKDIR_RE.search(line)
                if m and m.group(1).startswith(root) and "= 0" in line:
                    dirs += 1
    return parts, merges, other, dirs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--granite", default=os.path.join(REPO, "build", "granite"))
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--inserts", type=int, default=50)
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--columns", type=int, default=2)
    parser.add_argument("--out", default="/tmp")
    parser.add_argument("--cpu", action="store_true", help="measure CPU time, do not trace")
    args = parser.parse_args()
    workers = args.shards * args.replicas
    c = cluster.SplitCluster([args.granite], workers=workers, threads=1,
                             replicas=args.replicas).start()
    tracers = []
    try:
        client = c.client(timeout=120)
        extra = "".join(", c%d UInt32" % i for i in range(2, args.columns))
        client.query("CREATE TABLE t (x UInt64, s String%s) ENGINE = MergeTree ORDER BY x" % extra)
        traces = []
        for i in range(0 if args.cpu else workers):
            out = os.path.join(args.out, "files_per_insert.%d.trace" % i)
            traces.append(out)
            tracers.append(subprocess.Popen(
                ["strace", "-f", "-qq", "-e", "trace=openat,mkdir,mkdirat", "-o", out,
                 "-p", str(c.workers[i].pid)], stderr=subprocess.DEVNULL))
        time.sleep(1.0)  # strace attaches to every thread; merges of the CREATE settle
        cpu_before = sum(cpu_seconds(w.pid) for w in c.workers)
        start = time.monotonic()
        tail = "".join(",%d" % j for j in range(2, args.columns))
        for i in range(args.inserts):
            rows = "".join("%d,row%d%s\n" % (i * args.rows + j, j, tail) for j in range(args.rows))
            client.query("INSERT INTO t FORMAT CSV", input_data=rows)
        wall = time.monotonic() - start
        cpu = sum(cpu_seconds(w.pid) for w in c.workers) - cpu_before
        time.sleep(0 if args.cpu else 1.0)
        client.close()
    finally:
        for tracer in tracers:
            tracer.send_signal(signal.SIGINT)
            tracer.wait()
        c.stop()
    n = float(args.inserts)
    if args.cpu:
        print("%d x %d: %d inserts of %d rows into %d columns: workers' CPU %.2f ms per insert, "
              "wall %.2f ms per insert" % (args.shards, args.replicas, args.inserts, args.rows,
                                           args.columns, cpu * 1000 / n, wall * 1000 / n))
        return
    parts, merges, other, dirs = count(traces, c.data_root)
    print("%d x %d: %d inserts of %d rows into %d columns: per insert (all %d workers) %.1f files "
          "in inserted parts, %.1f in merged parts, %.1f other files, %.1f directories; per "
          "worker %.1f files" % (
              args.shards, args.replicas, args.inserts, args.rows, args.columns, workers,
              parts / n, merges / n, other / n, dirs / n, (parts + merges + other) / n / workers))


if __name__ == "__main__":
    main()
