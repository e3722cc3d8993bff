#!/usr/bin/env python3
"""Issue 22: ALTER TABLE on columns across restarts and with a worker down (separate worker
processes).

- Column defaults and every kind of ALTER (a metadata change: RENAME / COMMENT / DEFAULT; a
  mutation: ADD / DROP / MODIFY type) survive a restart of every worker and of the coordinator:
  the rows and SHOW CREATE TABLE are the same afterwards.
- An ALTER with a worker down changes nothing and names the worker; once it is back, the ALTER
  runs on every worker.
- INSERTs running during an ALTER that rewrites the rows wait for it and are kept.
"""

import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

import granite_client  # noqa: E402

ALL_CONNECTION_TRIES_FAILED = 279


class AlterTest(unittest.TestCase):
    def setUp(self):
        self.cluster = cluster.SplitCluster(testmain.granite(), workers=2).start()
        self.addCleanup(self.cluster.stop)
        self.client = self.cluster.client(timeout=60)
        self.addCleanup(lambda: self.client.close())

    def reconnect(self):
        self.client.close()
        self.client = self.cluster.client(timeout=60)

    def wait_all_workers(self):
        cluster.wait_for_all_workers(self.client)

    def rows(self):
        return self.client.query_text("SELECT * FROM t ORDER BY k")

    def test_alters_survive_a_restart(self):
        q = self.client.query
        q("CREATE TABLE t (k UInt32, a UInt32, s String DEFAULT 'none', "
          "m UInt64 MATERIALIZED k * 10, al UInt64 ALIAS k + a) ENGINE = MergeTree ORDER BY k")
        q("INSERT INTO t (k, a) SELECT number, number * 2 FROM numbers(1000)")
        q("INSERT INTO t (k, a, s) VALUES (5000, 1, '12')")
        q("ALTER TABLE t RENAME COLUMN a TO b, COMMENT COLUMN k 'key', "
          "MODIFY COLUMN s DEFAULT 'x'")
        q("ALTER TABLE t ADD COLUMN c UInt16 DEFAULT k + 1 AFTER k, DROP COLUMN s")
        q("ALTER TABLE t MODIFY COLUMN b UInt64")
        q("INSERT INTO t (k) VALUES (6000)")
        rows = self.rows()
        create = self.client.query_text("SHOW CREATE TABLE t")
        sums = self.client.query_text("SELECT sum(m), sum(al), sum(c) FROM t")
        self.assertEqual(rows.splitlines()[:2], ["0\t1\t0", "1\t2\t2"])
        self.assertEqual(rows.splitlines()[-1], "6000\t6001\t0")
        for i in range(len(self.cluster.workers)):
            self.cluster.restart_worker(i)
        self.cluster.restart_coordinator()
        self.reconnect()
        self.wait_all_workers()
        self.assertEqual(self.rows(), rows)
        self.assertEqual(self.client.query_text("SHOW CREATE TABLE t"), create)
        self.assertEqual(self.client.query_text("SELECT sum(m), sum(al), sum(c) FROM t"), sums)
        self.assertIn("`k` UInt32 COMMENT", create)
        self.assertIn("`c` UInt16 DEFAULT k + 1", create)

    def test_alter_with_a_worker_down_changes_nothing(self):
        q = self.client.query
        q("CREATE TABLE t (k UInt32, a UInt32) ENGINE = MergeTree ORDER BY k")
        q("INSERT INTO t VALUES (1, 2), (3, 4)")
        before = self.client.query_text("SHOW CREATE TABLE t")
        self.cluster.workers[1].stop()
        port = self.cluster.worker_ports[1]
        for alter in ["ALTER TABLE t RENAME COLUMN a TO b",
                      "ALTER TABLE t ADD COLUMN c UInt8 DEFAULT 7"]:
            with self.assertRaises(granite_client.GraniteError) as ctx:
                q(alter)
            self.assertEqual(ctx.exception.code, ALL_CONNECTION_TRIES_FAILED, str(ctx.exception))
            self.assertIn("127.0.0.1:%d" % port, ctx.exception.message)
            self.assertIn("nothing was changed", ctx.exception.message)
        self.cluster.restart_worker(1)
        self.wait_all_workers()
        self.assertEqual(self.client.query_text("SHOW CREATE TABLE t"), before)
        self.assertEqual(self.rows(), "1\t2\n3\t4\n")
        q("ALTER TABLE t RENAME COLUMN a TO b, ADD COLUMN c UInt8 DEFAULT 7")
        self.assertEqual(self.client.query_text("SELECT k, b, c FROM t ORDER BY k"),
                         "1\t2\t7\n3\t4\t7\n")

    def test_inserts_during_a_rewrite_are_kept(self):
        """INSERTs running while ALTER copies the table into its new layout wait for the swap
        and then land in the new table: every acknowledged row is there afterwards."""
        q = self.client.query
        q("CREATE TABLE t (k UInt64, v UInt64) ENGINE = MergeTree ORDER BY k")
        q("INSERT INTO t SELECT number, number FROM numbers(200000)")
        acknowledged = []
        errors = []
        stop = threading.Event()

        def insert_loop():
            client = self.cluster.client(timeout=60)
            try:
                for i in range(1000):  # bounded; the ALTERs end long before
                    if stop.is_set():
                        break
                    client.query("INSERT INTO t (k, v) VALUES (%d, 1)" % (1000000 + i))
                    acknowledged.append(i)
            except granite_client.GraniteError as e:
                errors.append(e)
            finally:
                client.close()

        writer = threading.Thread(target=insert_loop)
        writer.start()
        try:
            time.sleep(0.2)
            q("ALTER TABLE t ADD COLUMN w UInt32 DEFAULT 7")
            q("ALTER TABLE t MODIFY COLUMN v UInt32")
            q("ALTER TABLE t DROP COLUMN w")
        finally:
            stop.set()
            writer.join(60)
        self.assertEqual(errors, [])
        self.assertGreater(len(acknowledged), 0)
        self.assertEqual(
            self.client.query_text("SELECT count() FROM t WHERE k >= 1000000"),
            "%d\n" % len(acknowledged))
        self.assertEqual(self.client.query_text("SELECT count() FROM t"),
                         "%d\n" % (200000 + len(acknowledged)))


if __name__ == "__main__":
    testmain.main([AlterTest])
