#!/usr/bin/env python3
"""`granite local` supervises its workers (issue 19):
  - a worker killed with SIGKILL is reaped and restarted on the same address, and queries work
    again (no zombie, no dead shard);
  - each worker listens on exactly one TCP port, the one the coordinator knows;
  - when the launcher is killed with SIGKILL its workers exit too;
  - a second `granite local` (or a `granite worker`) on a data directory in use refuses to start
    with a message naming the directory and the PID that holds it, and the first cluster is
    unharmed.
Worker PIDs come from /proc (children of the launcher), never from the launcher's own words."""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

import granite_client  # noqa: E402

WAIT = 60.0  # bound of every wait for the cluster to change state


def proc_state(pid):
    """Returns (state, ppid) of a process from /proc/PID/stat, or None when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    return fields[0], int(fields[1])


def alive(pid):
    """True while `pid` runs (a zombie nobody reaped yet counts as gone)."""
    state = proc_state(pid)
    return state is not None and state[0] not in ("Z", "X")


def worker_pids(launcher):
    """Returns {worker index: pid} of the running `granite worker` children of `launcher`."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        state = proc_state(pid)
        if state is None or state[1] != launcher or state[0] in ("Z", "X"):
            continue
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                argv = f.read().decode("utf-8", "replace").split("\0")
        except OSError:
            continue
        if "worker" not in argv:
            continue
        for arg in argv:
            m = re.search(r"^--data=.*/worker-(\d+)$", arg)
            if m:
                found[int(m.group(1))] = pid
    return found


def listening_ports(pid):
    """Returns the TCP ports `pid` listens on (its socket inodes matched with /proc/net/tcp*)."""
    inodes = set()
    fd_dir = "/proc/%d/fd" % pid
    for fd in os.listdir(fd_dir):
        try:
            target = os.readlink(os.path.join(fd_dir, fd))
        except OSError:
            continue
        m = re.match(r"socket:\[(\d+)\]", target)
        if m:
            inodes.add(m.group(1))
    ports = set()
    for table in ("tcp", "tcp6"):
        try:
            with open("/proc/%d/net/%s" % (pid, table)) as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            cols = line.split()
            if cols[3] == "0A" and cols[9] in inodes:  # 0A: LISTEN
                ports.add(int(cols[1].rsplit(":", 1)[1], 16))
    return ports


def run_bounded(argv):
    """Runs argv in its own process group and returns (code, stdout, stderr); after WAIT seconds
    the whole group (a launcher and any workers it forked) is killed and code is None."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=WAIT)
        return proc.returncode, out.decode(), err.decode()
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return None, out.decode(), err.decode()


def kill_leftovers(pids):
    """SIGKILLs workers that outlived their test (only where supervision is broken)."""
    for pid in pids:
        if alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


class LocalSupervisionTest(unittest.TestCase):
    def setUp(self):
        self.data = tempfile.mkdtemp(prefix="granite-local-test-")
        self.addCleanup(shutil.rmtree, self.data, ignore_errors=True)
        self.cluster = cluster.LocalCluster(testmain.granite(), workers=2, data_dir=self.data,
                                            threads=1).start()
        self.addCleanup(self.cluster.stop)
        self.launcher = self.cluster.process.pid
        self.client = self.cluster.client(timeout=30)
        self.addCleanup(self.client.close)
        self.client.query("CREATE TABLE s (k UInt64) ENGINE = MergeTree ORDER BY k")
        self.client.query("INSERT INTO s SELECT number FROM numbers(1000)")
        self.workers = self.wait_for_workers(2)
        self.addCleanup(kill_leftovers, list(self.workers.values()))

    def fail_with_logs(self, message):
        self.fail("%s\n%s" % (message, self.cluster.log_tail(60)))

    def wait_for_workers(self, count, not_pids=()):
        deadline = time.monotonic() + WAIT
        while True:
            pids = worker_pids(self.launcher)
            if len(pids) == count and not set(pids.values()) & set(not_pids):
                return pids
            if time.monotonic() > deadline:
                self.fail_with_logs("workers of launcher %d: %s (want %d, none of %s)"
                                    % (self.launcher, pids, count, list(not_pids)))
            time.sleep(0.1)

    def count(self):
        return self.client.query_text("SELECT count(), sum(k) FROM s")

    def test_killed_worker_is_restarted_on_the_same_address(self):
        self.assertEqual(self.count(), "1000\t499500\n")
        addresses = self.client.query_text("SELECT index, address FROM system.workers "
                                           "ORDER BY index")
        killed = self.workers[1]
        os.kill(killed, signal.SIGKILL)
        restarted = self.wait_for_workers(2, not_pids=[killed])
        self.assertEqual(restarted[0], self.workers[0])
        # The launcher reaped it: no zombie left behind.
        deadline = time.monotonic() + WAIT
        while proc_state(killed) is not None and proc_state(killed)[1] == self.launcher:
            if time.monotonic() > deadline:
                self.fail_with_logs("worker %d was never reaped" % killed)
            time.sleep(0.05)
        # Queries work again, with every row (the restarted worker has its shard back).
        deadline = time.monotonic() + WAIT
        while True:
            try:
                if self.count() == "1000\t499500\n":
                    break
            except granite_client.GraniteError as e:
                last = e
            else:
                last = "partial answer"
            if time.monotonic() > deadline:
                self.fail_with_logs("no full answer after the restart: %s" % last)
            time.sleep(0.1)
        self.assertEqual(self.client.query_text("SELECT index, address FROM system.workers "
                                                "ORDER BY index"), addresses)
        self.client.query("INSERT INTO s SELECT number + 1000 FROM numbers(10)")
        self.assertEqual(self.count(), "1010\t509545\n")
        self.assertRegex(self.cluster.log_tail(200),
                         r"worker 1 \(pid %d\) was killed by signal 9; restarting" % killed)

    def test_each_worker_listens_on_one_port(self):
        addresses = [line.split("\t") for line in self.client.query_text(
            "SELECT index, address FROM system.workers ORDER BY index").splitlines()]
        for index, address in addresses:
            pid = self.workers[int(index)]
            self.assertEqual(listening_ports(pid), {int(address.rsplit(":", 1)[1])},
                             "worker %s (pid %d, %s)" % (index, pid, address))

    def test_a_lone_worker_on_any_port_listens_on_one(self):
        # gRPC bound one ephemeral port per listening socket with --port 0.
        folder = tempfile.mkdtemp(prefix="granite-lone-worker-")
        self.addCleanup(shutil.rmtree, folder, ignore_errors=True)
        worker = cluster.GraniteProcess(
            testmain.granite() + ["worker", "--data", folder, "--port", "0"], "lone", "worker")
        worker.start()
        self.addCleanup(worker.stop)
        self.assertEqual(listening_ports(worker.pid), {worker.port})

    def test_workers_exit_when_the_launcher_is_killed(self):
        os.kill(self.launcher, signal.SIGKILL)
        deadline = time.monotonic() + WAIT
        while any(alive(pid) for pid in self.workers.values()):
            if time.monotonic() > deadline:
                self.fail_with_logs("workers still running %.0f s after the launcher's kill -9: %s"
                                    % (WAIT, {i: p for i, p in self.workers.items() if alive(p)}))
            time.sleep(0.1)
        # The data directory is free again: a new launcher starts on it and has the rows.
        self.cluster.stop()
        again = cluster.LocalCluster(testmain.granite(), workers=2, data_dir=self.data,
                                     threads=1).start()
        try:
            with again.client(timeout=30) as client:
                self.assertEqual(client.query_text("SELECT count(), sum(k) FROM s"),
                                 "1000\t499500\n")
        finally:
            again.stop()

    def test_second_launcher_on_the_same_data_refuses(self):
        code, out, err = run_bounded(
            testmain.granite() + ["local", "--workers", "2", "--data", self.data, "--port", "0"])
        self.assertEqual(code, 1, "the second launcher did not refuse:\n%s%s" % (out, err))
        self.assertIn("data directory %s is in use by another granite process (PID %d"
                      % (self.data, self.launcher), err)
        self.assertNotIn("listening on", out)
        # A lone worker on one of its folders refuses too, naming that worker.
        folder = os.path.join(self.data, "worker-0")
        code, out, err = run_bounded(
            testmain.granite() + ["worker", "--data", folder, "--port", "0"])
        self.assertEqual(code, 1, "the lone worker did not refuse:\n%s%s" % (out, err))
        self.assertIn("data directory %s is in use by another granite process (PID %d"
                      % (folder, self.workers[0]), err)
        # The first cluster still answers, with the same workers.
        self.assertEqual(self.count(), "1000\t499500\n")
        self.assertEqual(worker_pids(self.launcher), self.workers)


if __name__ == "__main__":
    testmain.main([LocalSupervisionTest])
