#!/usr/bin/env python3
"""Repair speed of a wiped replica (issue 27): MB/s of the part copy against the disk's own copy.

On 1 shard x 2 replicas (`granite worker` processes and a coordinator, tests/harness/cluster.py
SplitCluster): `--rows` rows inserted in `--batches` INSERTs, merged (OPTIMIZE FINAL) and released
on both replicas. Then:
  1. the disk: `cp -r` of the peer's data directory to a new directory, then `sync` (--cp-runs
     times, the best kept), in MB/s of the directory's size;
  2. the repair: replica 0 is kill -9ed, its data directory deleted and the worker started again
     with it empty; the time from its start until system.replicas shows it active with the
     peer's row count, in MB/s of the peer's table size on disk. The copy's own figures (parts,
     bytes) come from the coordinator's log line. The time includes the repair loop's wait for
     its next pass (up to 1 s) and the table's re-creation (two passes must find it missing); the
     copy itself (snapshot, fetch, per-file and per-block checks, install) is timed by the
     coordinator and printed separately.

    .venv/bin/python bench/replicas/repair_speed.py --granite build/granite --rows 4000000
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests", "harness"))
sys.path.insert(0, os.path.join(REPO, "client", "python"))

import cluster  # noqa: E402


def dir_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                pass
    return total


def replicas(client):
    text = client.query_text("SELECT worker, is_active, blocks_behind, retained_blocks, "
                             "total_rows, state FROM system.replicas WHERE table = 't' "
                             "ORDER BY worker")
    return [line.split("\t") for line in text.splitlines()]


def wait(client, predicate, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        rows = replicas(client)
        if len(rows) == 2 and predicate(rows):
            return rows
        time.sleep(0.05)
    raise SystemExit("timed out: %r" % replicas(client))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--granite", default=os.path.join(REPO, "build", "granite"))
    parser.add_argument("--rows", type=int, default=4000000)
    parser.add_argument("--batches", type=int, default=8)
    parser.add_argument("--cp-runs", type=int, default=3)
    args = parser.parse_args()

    c = cluster.SplitCluster([args.granite], workers=2, threads=2, replicas=2).start()
    try:
        client = c.client(timeout=600)
        client.query("CREATE TABLE t (x UInt64, s String, v Float64) ENGINE = MergeTree "
                     "ORDER BY x")
        per = args.rows // args.batches
        for b in range(args.batches):
            client.query("INSERT INTO t SELECT number + %d, concat('row ', toString(number "
                         "%% 100000)), number * 0.37 FROM numbers(%d)" % (b * per, per))
        client.query("OPTIMIZE TABLE t FINAL")
        rows = wait(client, lambda r: all(x[1] == "1" and x[2] == "0" and x[3] == "0"
                                          for x in r), 300)
        total_rows = int(rows[1][4])
        table_bytes = int(client.query_text(
            "SELECT sum(bytes_on_disk) FROM system.parts WHERE table = 't' AND active"
        ).strip()) // 2  # system.parts counts both replicas
        peer_dir = c.worker_dir(1)
        data_bytes = dir_bytes(peer_dir)

        cp_best = None
        for _ in range(args.cp_runs):
            target = tempfile.mkdtemp(prefix="granite-cp-", dir=os.path.dirname(peer_dir))
            os.rmdir(target)
            t0 = time.monotonic()
            subprocess.run(["cp", "-r", peer_dir, target], check=True)
            subprocess.run(["sync"], check=True)
            elapsed = time.monotonic() - t0
            shutil.rmtree(target)
            cp_best = elapsed if cp_best is None else min(cp_best, elapsed)

        c.kill9_worker(0)
        wait(client, lambda r: r[0][1] == "0", 60)
        shutil.rmtree(c.worker_dir(0))
        t0 = time.monotonic()
        c.restart_worker(0)
        wait(client, lambda r: r[0][5] == "active" and r[0][2] == "0" and
             int(r[0][4]) == total_rows, 3600)
        repair = time.monotonic() - t0
        copied = re.findall(r"copied table t from \S+: (\d+) parts, (\d+) rows, (\d+) bytes "
                            r"in ([0-9.]+) s", c.coordinator.log_tail(200))
        mb = 1024.0 * 1024.0
        print("rows %d, table on disk %.1f MB (data directory %.1f MB)"
              % (total_rows, table_bytes / mb, data_bytes / mb))
        print("cp -r + sync of the peer's data directory: %.2f s, %.1f MB/s"
              % (cp_best, data_bytes / mb / cp_best))
        print("repair of the wiped replica (start to caught up): %.2f s, %.1f MB/s"
              % (repair, table_bytes / mb / repair))
        if copied:
            parts, crows, cbytes = (int(v) for v in copied[-1][:3])
            took = float(copied[-1][3])
            print("the copy itself (CloneReplica: fetch, check, install): %d parts, %d rows, "
                  "%.1f MB worker to worker in %.2f s, %.1f MB/s"
                  % (parts, crows, cbytes / mb, took, cbytes / mb / took))
        client.close()
    finally:
        c.stop()


if __name__ == "__main__":
    main()
