#!/usr/bin/env python3
"""Files a small INSERT creates on the workers (compact parts; issue 27's ext4 inode cost).

On S shards x R replicas (tests/harness/cluster.py SplitCluster), `strace -f` is attached to every
worker while `--inserts` INSERTs of `--rows` rows run into a table of `--columns` columns (x
UInt64, s String, then UInt32 columns); it counts the files created (openat with O_CREAT) and the
directories made (mkdir) under the workers' data directories, merges included, and prints them
per insert: in part directories (parts/...) and elsewhere (block log, staged chunks).

    .venv/bin/python bench/replicas/files_per_insert.py --granite build/granite --replicas 2

Needs strace and permission to trace one's own processes (kernel.yama.ptrace_scope 0).
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


def count(trace_paths, root):
    parts = other = dirs = 0
    for path in trace_paths:
        with open(path) as f:
            for line in f:
                m = _OPEN_RE.search(line)
                if m and "O_CREAT" in m.group(2) and m.group(1).startswith(root):
                    if "/parts/" in m.group(1):
                        parts += 1
                    else:
                        other += 1
                    continue
                m = _MKDIR_RE.search(line)
                if m and m.group(1).startswith(root) and "= 0" in line:
                    dirs += 1
    return parts, other, dirs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--granite", default=os.path.join(REPO, "build", "granite"))
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--inserts", type=int, default=50)
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--columns", type=int, default=2)
    parser.add_argument("--out", default="/tmp")
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
        for i in range(workers):
            out = os.path.join(args.out, "files_per_insert.%d.trace" % i)
            traces.append(out)
            tracers.append(subprocess.Popen(
                ["strace", "-f", "-qq", "-e", "trace=openat,mkdir,mkdirat", "-o", out,
                 "-p", str(c.workers[i].pid)], stderr=subprocess.DEVNULL))
        time.sleep(1.0)  # strace attaches to every thread
        tail = "".join(",%d" % j for j in range(2, args.columns))
        for i in range(args.inserts):
            rows = "".join("%d,row%d%s\n" % (i * args.rows + j, j, tail) for j in range(args.rows))
            client.query("INSERT INTO t FORMAT CSV", input_data=rows)
        time.sleep(1.0)
        client.close()
    finally:
        for tracer in tracers:
            tracer.send_signal(signal.SIGINT)
            tracer.wait()
        c.stop()
    parts, other, dirs = count(traces, c.data_root)
    n = float(args.inserts)
    print("%d x %d: %d inserts of %d rows into %d columns: per insert (all %d workers) %.1f files "
          "in part directories, %.1f other files, %.1f directories; per worker %.1f files" % (
              args.shards, args.replicas, args.inserts, args.rows, args.columns, workers,
              parts / n, other / n, dirs / n, (parts + other) / n / workers))


if __name__ == "__main__":
    main()
