#!/usr/bin/env python3
"""Paired A/B of one query on two running granite clusters: wall time and CPU per query.

Usage: cpu_ab.py QUERY_FILE ROUNDS PER_ROUND PORT_A PIDFILE_A PORT_B PIDFILE_B [--any-rows]

Each cluster is a `granite local` (coordinator and its worker children) whose pid is in PIDFILE;
both serve copies of one data folder. The query (QUERY_FILE, `--` comment lines dropped) runs
once on each as a warm-up, the answers must be equal (unless --any-rows: a LIMIT without ORDER
BY, or ties at the limit, may pick other rows), then ROUNDS rounds alternate A B, B A, ...
each running the query PER_ROUND times. CPU is user + system time of the coordinator and its
children from /proc, per query: unlike wall time it does not count waiting for a loaded machine.
"""
import os
import statistics
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "harness"))
import cluster  # noqa: E402,F401  (makes granite_client importable)
from granite_client import Client  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def family(root):
    """Returns root and its children's pids (a `granite local` and its workers)."""
    out = [root]
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = open("/proc/%s/stat" % entry).read()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == root:
            out.append(int(entry))
    return out


def cpu_seconds(pids):
    total = 0
    for pid in pids:
        fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICKS


def main():
    query_file, rounds, per_round = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    lines = open(query_file).read().strip().rstrip(";").splitlines()
    query = "\n".join(l for l in lines if not l.strip().startswith("--"))
    sides = []
    for port, pidfile in ((int(sys.argv[4]), sys.argv[5]), (int(sys.argv[6]), sys.argv[7])):
        client = Client(port=port, timeout=600)
        client.execute(query)  # warm-up
        sides.append({"client": client, "pids": family(int(open(pidfile).read())),
                      "walls": [], "cpus": [], "answer": client.execute(query).output})
    if sides[0]["answer"] != sides[1]["answer"] and "--any-rows" not in sys.argv[8:]:
        sys.exit("the answers of A and B differ")
    for r in range(rounds):
        for i in ((0, 1) if r % 2 == 0 else (1, 0)):
            side = sides[i]
            before = cpu_seconds(side["pids"])
            for _ in range(per_round):
                started = time.perf_counter()
                side["client"].execute(query)
                side["walls"].append(time.perf_counter() - started)
            side["cpus"].append((cpu_seconds(side["pids"]) - before) / per_round)
    for name, side in zip("AB", sides):
        print("%s wall best %.3f median %.3f | cpu/query median %.3f mean %.3f" % (
            name, min(side["walls"]), statistics.median(side["walls"]),
            statistics.median(side["cpus"]), statistics.mean(side["cpus"])))
    a, b = sides
    print("B/A cpu %.3f wall(median) %.3f" % (
        statistics.median(b["cpus"]) / statistics.median(a["cpus"]),
        statistics.median(b["walls"]) / statistics.median(a["walls"])))


if __name__ == "__main__":
    main()
