#!/usr/bin/env python3
"""Two coordinators on one cluster with the catalog in etcd (docs/adr/0005-etcd-coordination.md):
  - DDL through one coordinator is visible through the other at once: CREATE TABLE / INSERT via
    A then SELECT via B, DROP via B then A no longer has the table; databases and views too;
  - two coordinators racing the same CREATE TABLE: exactly one succeeds, the other gets
    TABLE_ALREADY_EXISTS (57);
  - etcd SIGKILLed: SELECTs keep succeeding on both coordinators from their cached catalogs, DDL
    fails with KEEPER_EXCEPTION (999) naming etcd; once etcd is back, DDL works again and the
    watches resume (a table created via A is seen via B);
  - GRANT / REVOKE through one coordinator apply at once through the other;
  - a coordinator killed while a client is connected to the other: the other keeps serving, its
    DDL is not blocked, and the dead one's membership key expires;
  - a coordinator given an etcd that does not answer, or a malformed --etcd, exits non-zero with
    a clear message;
  - `granite local --replicas 2` starts an etcd of its own and stops it when it stops.
Sizes are small, every wait is bounded; nothing asserts timing."""

import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

import granite_client  # noqa: E402

WAIT = 60.0  # bound of every wait for the cluster to change state
PREFIX = "/granite/default"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class EtcdServer:
    """One etcd member on free loopback ports, data in a temporary folder; restartable."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="granite-etcd-")
        self.client_port = free_port()
        self.peer_port = free_port()
        self.endpoint = "127.0.0.1:%d" % self.client_port
        self.proc = None

    def start(self, attempts=3):
        # etcd itself sometimes exits at once when restarted on its ports on a loaded machine
        # (seen once under an ASan build); that is etcd's start-up, not what a test checks, so a
        # start is tried again before it fails.
        for attempt in range(attempts):
            try:
                return self._start_once()
            except RuntimeError:
                if attempt + 1 == attempts:
                    raise
                time.sleep(1)

    def _start_once(self):
        client = "http://%s" % self.endpoint
        peer = "http://127.0.0.1:%d" % self.peer_port
        log = open(os.path.join(self.dir, "etcd.log"), "ab")
        self.proc = subprocess.Popen(
            ["etcd", "--name", "t", "--data-dir", os.path.join(self.dir, "data"),
             "--listen-client-urls", client, "--advertise-client-urls", client,
             "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
             "--initial-cluster", "t=" + peer],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
            preexec_fn=cluster._set_parent_death_signal)
        log.close()
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("etcd exited with %s: %s" % (self.proc.returncode, self.log()))
            try:
                with urllib.request.urlopen(client + "/health", timeout=1) as r:
                    if b"true" in r.read():
                        return self
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError("etcd did not become healthy: %s" % self.log())

    def kill9(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def ctl(self, *args):
        out = subprocess.run(["etcdctl", "--endpoints", self.endpoint] + list(args),
                             capture_output=True, text=True, timeout=30,
                             env=dict(os.environ, ETCDCTL_API="3"))
        return out.stdout

    def log(self):
        try:
            with open(os.path.join(self.dir, "etcd.log"), errors="replace") as f:
                return f.read()[-2000:]
        except OSError:
            return ""

    def stop(self):
        self.kill9()
        shutil.rmtree(self.dir, ignore_errors=True)


class TwoCoordinators(unittest.TestCase):
    """Two workers (two shards), coordinator A (the SplitCluster's) and coordinator B, one etcd."""

    def setUp(self):
        self.etcd = EtcdServer().start()
        self.addCleanup(self.etcd.stop)
        self.cluster = cluster.SplitCluster(
            testmain.granite(), workers=2, threads=1,
            coordinator_args=["--etcd", self.etcd.endpoint] + self.extra_args()).start()
        self.addCleanup(self.cluster.stop)
        self.b_proc = self.start_coordinator("b")
        self.a = self.cluster.client(timeout=60)
        self.addCleanup(self.a.close)
        self.b = granite_client.Client(host="127.0.0.1", port=self.b_proc.port, timeout=60)
        self.addCleanup(self.b.close)

    def extra_args(self):
        """More flags for both coordinators."""
        return []

    def start_coordinator(self, name, etcd=None):
        addrs = ",".join("127.0.0.1:%d" % p for p in self.cluster.worker_ports)
        proc = cluster.GraniteProcess(
            testmain.granite() + ["coordinator", "--port", "0", "--http_port", "0", "--workers",
                                  addrs, "--etcd", etcd or self.etcd.endpoint] + self.extra_args(),
            name, "coordinator").start()
        self.addCleanup(proc.stop)
        return proc

    def scalar(self, client, sql):
        return client.query_text(sql).strip()

    def assert_error(self, client, sql, code, text=None):
        with self.assertRaises(granite_client.GraniteError) as ctx:
            client.query(sql)
        self.assertEqual(ctx.exception.code, code, str(ctx.exception))
        if text is not None:
            self.assertIn(text, ctx.exception.message)
        return ctx.exception

    def test_ddl_through_one_is_visible_through_the_other(self):
        # Both coordinators have loaded their catalogs before the DDL.
        self.assertEqual(self.scalar(self.a, "SELECT count() FROM system.tables WHERE name = 't'"), "0")
        self.assertEqual(self.scalar(self.b, "SELECT count() FROM system.tables WHERE name = 't'"), "0")
        self.a.query("CREATE TABLE t (x UInt64, s String) ENGINE = MergeTree ORDER BY x")
        self.a.query("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
        self.assertEqual(self.scalar(self.b, "SELECT count(), sum(x) FROM t"), "3\t6")
        self.b.query("INSERT INTO t VALUES (4, 'd')")
        self.assertEqual(self.scalar(self.a, "SELECT count() FROM t"), "4")
        self.b.query("DROP TABLE t")
        self.assert_error(self.a, "SELECT count() FROM t", 60)
        # Databases, views and ALTER, the same way.
        self.a.query("CREATE DATABASE d")
        self.assertIn("d", self.scalar(self.b, "SHOW DATABASES").split("\n"))
        self.a.query("CREATE TABLE d.u (x UInt64) ENGINE = MergeTree ORDER BY x")
        self.a.query("INSERT INTO d.u SELECT number FROM numbers(10)")
        self.a.query("CREATE VIEW d.v AS SELECT x FROM d.u WHERE x < 4")
        self.assertEqual(self.scalar(self.b, "SELECT count() FROM d.v"), "4")
        self.a.query("ALTER TABLE d.u ADD COLUMN y UInt8 DEFAULT 7")
        self.assertEqual(self.scalar(self.b, "SELECT sum(y) FROM d.u"), "70")
        self.b.query("DROP DATABASE d")
        self.assertNotIn("d", self.scalar(self.a, "SHOW DATABASES").split("\n"))
        # The catalog's keys in etcd.
        keys = self.etcd.ctl("get", "--prefix", "--keys-only", PREFIX + "/catalog/").split()
        self.assertIn(PREFIX + "/catalog/version", keys)
        self.assertFalse([k for k in keys if "/tables/" in k], keys)
        members = self.etcd.ctl("get", "--prefix", "--keys-only", PREFIX + "/coordinators/").split()
        self.assertEqual(len(members), 2, members)
        # The same through system.zookeeper, as ClickHouse shows its Keeper's nodes.
        names = self.scalar(self.b, "SELECT name FROM system.zookeeper WHERE path = '%s' "
                                    "ORDER BY name" % (PREFIX + "/coordinators")).split("\n")
        self.assertEqual(names, sorted(m.rsplit("/", 1)[1] for m in members))
        self.assertEqual(self.scalar(self.a, "SELECT numChildren > 0, ephemeralOwner = 0 FROM "
                                             "system.zookeeper WHERE path = '%s' AND "
                                             "name = 'coordinators'" % PREFIX), "1\t1")

    def test_racing_creates_give_one_success(self):
        for round_ in range(4):
            name = "race%d" % round_
            sql = "CREATE TABLE %s (x UInt64) ENGINE = MergeTree ORDER BY x" % name
            outcomes = {}

            def create(label, client):
                try:
                    client.query(sql)
                    outcomes[label] = 0
                except granite_client.GraniteError as e:
                    outcomes[label] = e.code

            threads = [threading.Thread(target=create, args=("a", self.a)),
                       threading.Thread(target=create, args=("b", self.b))]
            for t in threads:
                t.start()
            for t in threads:
                t.join(WAIT)
            self.assertEqual(sorted(outcomes.values()), [0, 57], outcomes)
            self.a.query("INSERT INTO %s VALUES (1)" % name)
            self.assertEqual(self.scalar(self.b, "SELECT count() FROM %s" % name), "1")

    def wait_for_ddl(self, client, sql):
        """Runs a DDL until it succeeds (etcd coming back); returns the errors seen meanwhile."""
        deadline = time.monotonic() + WAIT
        errors = []
        while True:
            try:
                client.query(sql)
                return errors
            except granite_client.GraniteError as e:
                errors.append(e.code)
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def test_etcd_down_keeps_queries_and_fails_ddl(self):
        self.a.query("CREATE TABLE t (x UInt64) ENGINE = MergeTree ORDER BY x")
        self.a.query("INSERT INTO t SELECT number FROM numbers(100)")
        self.assertEqual(self.scalar(self.b, "SELECT count() FROM t"), "100")
        stop = threading.Event()
        failures = []
        done = [0]

        def load():
            client = granite_client.Client(host="127.0.0.1", port=self.b_proc.port, timeout=60)
            try:
                while not stop.is_set():
                    try:
                        if self.scalar(client, "SELECT count() FROM t") != "100":
                            failures.append("wrong count")
                        done[0] += 1
                    except granite_client.GraniteError as e:
                        failures.append(str(e))
            finally:
                client.close()

        loader = threading.Thread(target=load)
        loader.start()
        try:
            self.etcd.kill9()
            for client in (self.a, self.b):
                for _ in range(5):
                    self.assertEqual(self.scalar(client, "SELECT sum(x) FROM t"), "4950")
            e = self.assert_error(self.a, "CREATE TABLE u (x UInt64) ENGINE = MergeTree ORDER BY x",
                                  999, "etcd")
            self.assertIn(self.etcd.endpoint, e.message)
            self.assert_error(self.b, "DROP TABLE t", 999)
            self.assertEqual(self.scalar(self.b, "SELECT count() FROM t"), "100")
            self.etcd.start()
            self.wait_for_ddl(self.a, "CREATE TABLE u (x UInt64) ENGINE = MergeTree ORDER BY x")
            # B's watch resumed: the table is visible through it.
            self.a.query("INSERT INTO u VALUES (5)")
            deadline = time.monotonic() + WAIT
            while True:
                try:
                    self.assertEqual(self.scalar(self.b, "SELECT sum(x) FROM u"), "5")
                    break
                except granite_client.GraniteError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.2)
            self.b.query("DROP TABLE u")
            self.assert_error(self.a, "SELECT count() FROM u", 60)
        finally:
            stop.set()
            loader.join(WAIT)
        self.assertEqual(failures, [])
        self.assertGreater(done[0], 0)

    def test_coordinator_killed_other_keeps_serving(self):
        self.a.query("CREATE TABLE t (x UInt64) ENGINE = MergeTree ORDER BY x")
        self.a.query("INSERT INTO t SELECT number FROM numbers(10)")
        self.assertEqual(self.scalar(self.b, "SELECT count() FROM t"), "10")
        a_id = "127.0.0.1:%d" % self.cluster.coordinator_port
        self.assertIn(PREFIX + "/coordinators/" + a_id,
                      self.etcd.ctl("get", "--prefix", "--keys-only", PREFIX + "/coordinators/"))
        self.cluster.coordinator.kill9()
        for _ in range(20):
            self.assertEqual(self.scalar(self.b, "SELECT count() FROM t"), "10")
        self.b.query("CREATE TABLE u (x UInt64) ENGINE = MergeTree ORDER BY x")
        self.b.query("DROP TABLE t")
        # The dead coordinator's lease expires (TTL 5 s): its membership key goes.
        deadline = time.monotonic() + WAIT
        while a_id in self.etcd.ctl("get", "--prefix", "--keys-only", PREFIX + "/coordinators/"):
            self.assertLess(time.monotonic(), deadline, "membership key of A never expired")
            time.sleep(0.5)


USERS_FILE = """
[user default]
no_password = 1

[user admin]
password_sha256_hex = %s
access_management = 1

[user bob]
password_sha256_hex = %s
grants = SELECT ON other.*
""" % tuple(hashlib.sha256(pw.encode()).hexdigest() for pw in ["admin-pw", "bob-pw"])


class GrantsAcrossCoordinators(TwoCoordinators):
    """GRANT / REVOKE through one coordinator apply at once through the other."""

    def setUp(self):
        self.users_dir = tempfile.mkdtemp(prefix="granite-etcd-users-")
        self.addCleanup(shutil.rmtree, self.users_dir, True)
        self.users = os.path.join(self.users_dir, "users.txt")
        with open(self.users, "w") as f:
            f.write(USERS_FILE)
        super().setUp()

    def extra_args(self):
        return ["--users_file", self.users]

    def user(self, proc_port, name):
        client = granite_client.Client(host="127.0.0.1", port=proc_port, user_name=name,
                                       password=name + "-pw", timeout=60)
        self.addCleanup(client.close)
        return client

    def test_grant_via_one_applies_via_the_other(self):
        a_port, b_port = self.cluster.coordinator_port, self.b_proc.port
        admin_a, admin_b = self.user(a_port, "admin"), self.user(b_port, "admin")
        bob_a, bob_b = self.user(a_port, "bob"), self.user(b_port, "bob")
        admin_a.query("CREATE TABLE t (x UInt64) ENGINE = MergeTree ORDER BY x")
        admin_a.query("INSERT INTO t VALUES (1), (2)")
        for bob in (bob_a, bob_b):
            self.assert_error(bob, "SELECT count() FROM t", 497)
        admin_a.query("GRANT SELECT ON default.t TO bob")
        self.assertEqual(self.scalar(bob_b, "SELECT count() FROM t"), "2")
        self.assertIn("GRANT SELECT ON default.t TO bob",
                      admin_b.query_text("SHOW GRANTS FOR bob"))
        admin_b.query("REVOKE SELECT ON default.t FROM bob")
        self.assert_error(bob_a, "SELECT count() FROM t", 497)

    # The two-coordinator scenarios run once, in TwoCoordinators.
    test_ddl_through_one_is_visible_through_the_other = None
    test_racing_creates_give_one_success = None
    test_etcd_down_keeps_queries_and_fails_ddl = None
    test_coordinator_killed_other_keeps_serving = None


class LocalWithEtcd(unittest.TestCase):
    """`granite local --replicas 2` starts an etcd of its own and stops it with the cluster."""

    def test_local_starts_and_stops_its_etcd(self):
        local = cluster.LocalCluster(testmain.granite(), workers=1, threads=1,
                                     extra_args=["--replicas", "2"]).start()
        try:
            client = local.client(timeout=60)
            client.query("CREATE TABLE t (x UInt64) ENGINE = MergeTree ORDER BY x")
            client.query("INSERT INTO t VALUES (1), (2)")
            self.assertEqual(client.query_text("SELECT count() FROM t").strip(), "2")
            self.assertEqual(client.query_text(
                "SELECT count() FROM system.zookeeper WHERE path = '%s/coordinators'" % PREFIX)
                .strip(), "1")
            client.close()
            log = local.log_tail(200)
            self.assertIn("granite local: etcd on 127.0.0.1:", log)
            pid = int(log.split("granite local: etcd on ", 1)[1].split("(pid ", 1)[1].split(")")[0])
            self.assertTrue(alive(pid))
        finally:
            self.assertEqual(local.stop(), 0)
        self.assertFalse(alive(pid), "etcd outlived granite local")


def alive(pid):
    """True while process `pid` runs (a zombie awaiting its parent's wait counts as ended)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class BadEtcd(unittest.TestCase):
    def run_coordinator(self, etcd):
        out = subprocess.run(
            testmain.granite() + ["coordinator", "--port", "0", "--http_port", "0",
                                  "--workers", "127.0.0.1:1", "--etcd", etcd],
            capture_output=True, text=True, timeout=WAIT)
        return out.returncode, out.stdout + out.stderr

    def test_unreachable_etcd_stops_the_start(self):
        code, text = self.run_coordinator("127.0.0.1:%d" % free_port())
        self.assertNotEqual(code, 0, text)
        self.assertIn("etcd at 127.0.0.1:", text)

    def test_malformed_etcd_stops_the_start(self):
        code, text = self.run_coordinator("no-port-here")
        self.assertNotEqual(code, 0, text)
        self.assertIn("Bad etcd endpoint", text)


if __name__ == "__main__":
    testmain.main([TwoCoordinators, GrantsAcrossCoordinators, LocalWithEtcd, BadEtcd])
