#!/usr/bin/env python3
"""system.workers shows each worker's placement (issue 6): NUMA node, CPUs, memory policy and pool
threads from the worker's GetInfo RPC, checked against what this machine's /sys and the test
process's CPU affinity say, and against each worker's own start-up "NUMA:" line. Worker 0 runs
with --numa-node auto, worker 1 unpinned with --threads 3. A worker that is down shows as down
with empty placement columns, and does not hold up the query. `granite local` shares the allowed
CPUs out among its workers by default."""

import os
import socket
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

NODE_DIR = "/sys/devices/system/node"
COLUMNS = ("index", "state", "numa_node", "cpus", "cpu_count", "memory_policy", "threads", "pid",
           "hostname", "version", "data_path")


def parse_cpu_list(text):
    """Parses a kernel list such as "0-3,8" into a sorted list of ints."""
    ids = set()
    for item in text.strip().split(","):
        if not item:
            continue
        first, _, last = item.partition("-")
        ids.update(range(int(first), int(last or first) + 1))
    return sorted(ids)


def online_nodes():
    """Returns {node: [cpus]} from /sys, or None when the kernel exposes no NUMA nodes."""
    try:
        with open(os.path.join(NODE_DIR, "online")) as f:
            nodes = parse_cpu_list(f.read())
    except OSError:
        return None
    result = {}
    for node in nodes:
        try:
            with open(os.path.join(NODE_DIR, "node%d" % node, "cpulist")) as f:
                result[node] = parse_cpu_list(f.read())
        except OSError:
            result[node] = []
    return result


class PlacedCluster(cluster.SplitCluster):
    """A SplitCluster whose worker i gets extra flags worker_args[i]."""

    def __init__(self, granite, worker_args):
        super().__init__(granite, workers=len(worker_args))
        self.worker_args = worker_args

    def _start_worker(self, i):
        os.makedirs(self.worker_dir(i), exist_ok=True)
        args = self.granite + ["worker", "--port", str(self.worker_ports[i]),
                               "--data", self.worker_dir(i)] + list(self.worker_args[i])
        proc = cluster.GraniteProcess(args, "worker%d" % i, "worker").start()
        self.worker_ports[i] = proc.port
        self.workers[i] = proc


class WorkersTableTest(unittest.TestCase):
    def setUp(self):
        self.cluster = PlacedCluster(testmain.granite(),
                                     [["--numa-node", "auto"], ["--threads", "3"]]).start()
        self.addCleanup(self.cluster.stop)
        self.client = self.cluster.client(timeout=60)
        self.addCleanup(lambda: self.client.close())
        self.nodes = online_nodes()
        self.allowed = sorted(os.sched_getaffinity(0))  # the workers inherit it

    def rows(self):
        text = self.client.query_text("SELECT %s FROM system.workers ORDER BY index"
                                      % ", ".join(COLUMNS))
        rows = [dict(zip(COLUMNS, line.split("\t"))) for line in text.splitlines()]
        for row in rows:
            self.assertEqual(len(row), len(COLUMNS), row)
        return rows

    def numa_line(self, i):
        lines = [l for l in self.cluster.workers[i].log_tail(200).splitlines() if "NUMA:" in l]
        self.assertEqual(len(lines), 1, self.cluster.log_tail())
        return lines[0]

    def check_process(self, row, i, threads=None):
        self.assertEqual(row["state"], "up")
        self.assertEqual(int(row["pid"]), self.cluster.workers[i].pid)
        self.assertEqual(row["hostname"], socket.gethostname())
        self.assertEqual(row["version"], "0.1.0")
        self.assertEqual(row["data_path"], self.cluster.worker_dir(i))
        self.assertEqual(int(row["cpu_count"]), len(parse_cpu_list(row["cpus"])))
        self.assertGreaterEqual(int(row["threads"]), 1)
        if threads is not None:
            self.assertEqual(int(row["threads"]), threads)

    def test_placement_matches_the_machine(self):
        rows = self.rows()
        self.assertEqual([r["index"] for r in rows], ["0", "1"])
        auto, unpinned = rows
        self.check_process(auto, 0)
        self.check_process(unpinned, 1, threads=3)

        # Unpinned: every CPU the process may use, no memory policy of its own.
        self.assertEqual(unpinned["numa_node"], "-1")
        self.assertEqual(parse_cpu_list(unpinned["cpus"]), self.allowed)
        self.assertEqual(unpinned["memory_policy"],
                         "default" if self.nodes is not None else "unsupported")

        line = self.numa_line(0)
        if self.nodes is None:
            # No NUMA support: auto falls back to unpinned.
            self.assertEqual(auto["numa_node"], "-1")
            self.assertEqual(auto["memory_policy"], "unsupported")
            self.assertEqual(parse_cpu_list(auto["cpus"]), self.allowed)
            return
        # auto: the node with the most allowed CPUs (lowest id on a tie), pinned to those.
        best = max(self.nodes, key=lambda n: (len(set(self.nodes[n]) & set(self.allowed)), -n))
        self.assertEqual(int(auto["numa_node"]), best)
        self.assertEqual(parse_cpu_list(auto["cpus"]),
                         sorted(set(self.nodes[best]) & set(self.allowed)))
        self.assertEqual(int(auto["threads"]), int(auto["cpu_count"]))
        # The policy is what the worker's start-up line says it applied: bind (or preferred for
        # a node without memory), or default when the kernel or libnuma refused.
        if "left at default" in line:
            self.assertEqual(auto["memory_policy"], "default")
        else:
            self.assertIn(auto["memory_policy"], ("bind", "preferred"))
            self.assertIn("memory policy %s:%d" % (auto["memory_policy"], best), line)

    def test_down_worker_shows_empty_placement(self):
        self.assertEqual([r["state"] for r in self.rows()], ["up", "up"])
        self.cluster.kill9_worker(1)
        # Answers (the client's deadline bounds a hang; no stopwatch that a busy machine may
        # miss), with the dead worker down.
        rows = self.rows()
        up, down = rows
        self.check_process(up, 0)
        self.assertEqual(down["state"], "down")
        self.assertEqual(down["numa_node"], "-1")
        for column in ("cpus", "memory_policy", "hostname", "version", "data_path"):
            self.assertEqual(down[column], "", column)
        for column in ("cpu_count", "threads", "pid"):
            self.assertEqual(down[column], "0", column)
        # The cluster's other system tables still answer with the worker down.
        self.assertEqual(self.client.query_text(
            "SELECT count() FROM system.workers WHERE state = 'up'").strip(), "1")


class LocalThreadsTest(unittest.TestCase):
    """`granite local` shares the allowed CPUs out among its workers instead of sizing each
    worker's pool to all of them; --threads still sets every worker's pool."""

    def threads(self, workers, threads=None):
        local = cluster.LocalCluster(testmain.granite(), workers=workers, threads=threads).start()
        try:
            client = local.client(timeout=60)
            try:
                text = client.query_text("SELECT threads FROM system.workers ORDER BY index")
            finally:
                client.close()
        finally:
            local.stop()
        return [int(line) for line in text.split()]

    def test_default_shares_the_cpus(self):
        cpus = len(os.sched_getaffinity(0))
        for workers in (1, 2, 3):
            expected = [max(1, cpus // workers + (1 if i < cpus % workers else 0))
                        for i in range(workers)]
            self.assertEqual(self.threads(workers), expected, workers)
            if cpus >= workers:
                self.assertEqual(sum(expected), cpus)

    def test_explicit_threads_win(self):
        self.assertEqual(self.threads(2, threads=3), [3, 3])


if __name__ == "__main__":
    testmain.main([WorkersTableTest, LocalThreadsTest])
