#!/usr/bin/env python3
"""CREATE TABLE and DROP TABLE on a 2-worker cluster (separate worker processes) are all-or-nothing
(issue 19, item 3): with a worker down they change nothing and name the worker; a table left on one
worker only (an interrupted CREATE or DROP, made here by deleting it from one worker's data
folder) is shown as unusable with the missing worker named, is not listed by system.tables, and
converges: CREATE with the same schema creates it where it is missing, DROP removes it from every
worker that has it."""

import os
import shutil
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

import granite_client  # noqa: E402

CREATE = "CREATE TABLE t (x UInt64) ENGINE = MergeTree ORDER BY x"
UNKNOWN_TABLE = 60
TABLE_ALREADY_EXISTS = 57
ALL_CONNECTION_TRIES_FAILED = 279


class DdlAtomicityTest(unittest.TestCase):
    def setUp(self):
        self.cluster = cluster.SplitCluster(testmain.granite(), workers=2).start()
        self.addCleanup(self.cluster.stop)
        self.client = self.cluster.client(timeout=60)
        self.addCleanup(lambda: self.client.close())

    def table_dir(self, worker, name="t"):
        return os.path.join(self.cluster.worker_dir(worker), "tables", name)

    def assert_error(self, sql, code, *texts):
        with self.assertRaises(granite_client.GraniteError) as ctx:
            self.client.query(sql)
        self.assertEqual(ctx.exception.code, code, str(ctx.exception))
        for text in texts:
            self.assertIn(text, ctx.exception.message)
        return ctx.exception

    def restart_worker(self, i):
        """Restarts worker i and waits (bounded) until DDL sees every worker again: the
        coordinator's channel to it may still be in its reconnect backoff for a moment."""
        self.cluster.restart_worker(i)
        cluster.wait_for_all_workers(self.client)

    def count(self):
        return int(self.client.query_text("SELECT count() FROM t").strip())

    def listed(self):
        return self.client.query_text(
            "SELECT name FROM system.tables WHERE name = 't'").split()

    def reconnect_after_coordinator_restart(self):
        self.cluster.restart_coordinator()
        self.client.close()
        self.client = self.cluster.client(timeout=60)

    def make_partial(self, rows=1000):
        """Creates t with rows, then deletes it from worker 1's data folder behind the cluster's
        back, and restarts the coordinator so that it loads its catalog from the workers."""
        self.client.query(CREATE)
        self.client.query("INSERT INTO t SELECT number FROM numbers(%d)" % rows)
        self.cluster.workers[1].stop()
        shutil.rmtree(self.table_dir(1))
        self.cluster.restart_worker(1)
        self.reconnect_after_coordinator_restart()  # a fresh coordinator: fresh channels

    def test_create_with_a_worker_down_creates_nothing(self):
        self.client.query("SELECT 1")  # the catalog is loaded while both workers are up
        self.cluster.workers[1].stop()
        port = self.cluster.worker_ports[1]
        error = self.assert_error(CREATE, ALL_CONNECTION_TRIES_FAILED, "127.0.0.1:%d" % port)
        self.assertFalse(os.path.exists(self.table_dir(0)), "the live worker created the table")
        self.assertIn("nothing was changed", error.message)
        self.restart_worker(1)
        # Not a table that half exists: plainly unknown everywhere.
        self.assert_error("SELECT count() FROM t", UNKNOWN_TABLE, "does not exist")
        self.assert_error("DROP TABLE t", UNKNOWN_TABLE, "does not exist")
        self.client.query("DROP TABLE IF EXISTS t")
        self.client.query(CREATE)
        self.client.query("INSERT INTO t SELECT number FROM numbers(5000)")
        self.assertEqual(self.count(), 5000)
        self.assertEqual(self.listed(), ["t"])

    def test_drop_with_a_worker_down_drops_nothing(self):
        self.client.query(CREATE)
        self.client.query("INSERT INTO t SELECT number FROM numbers(3000)")
        self.cluster.workers[1].stop()
        self.assert_error("DROP TABLE t", ALL_CONNECTION_TRIES_FAILED, "nothing was changed")
        self.assertTrue(os.path.exists(self.table_dir(0)))
        self.restart_worker(1)
        self.assertEqual(self.count(), 3000)
        self.client.query("DROP TABLE t")
        self.assertFalse(os.path.exists(self.table_dir(0)))
        self.assertFalse(os.path.exists(self.table_dir(1)))

    def test_partial_table_is_unusable_and_create_completes_it(self):
        self.make_partial()
        port = self.cluster.worker_ports[1]
        error = self.assert_error("SELECT count() FROM t", UNKNOWN_TABLE, "incomplete",
                                  "missing on worker 1 (127.0.0.1:%d)" % port)
        self.assertIn("CREATE TABLE t", error.message)
        self.assert_error("INSERT INTO t VALUES (1)", UNKNOWN_TABLE, "incomplete")
        self.assertEqual(self.listed(), [], "system.tables lists a table queries cannot use")
        # Another schema is refused, saying where the table differs.
        self.assert_error("CREATE TABLE t (y String) ENGINE = MergeTree ORDER BY y",
                          TABLE_ALREADY_EXISTS, "another schema", "missing on worker 1")
        self.assertFalse(os.path.exists(self.table_dir(1)))
        # The same schema completes it.
        self.client.query(CREATE)
        self.assertTrue(os.path.exists(self.table_dir(1)))
        self.assertEqual(self.listed(), ["t"])
        before = self.count()  # worker 0's rows (worker 1's were deleted with its copy)
        self.client.query("INSERT INTO t SELECT number FROM numbers(4000)")
        self.assertEqual(self.count(), before + 4000)
        self.assert_error(CREATE, TABLE_ALREADY_EXISTS, "already exists")

    def test_drop_removes_a_partial_table_everywhere(self):
        self.make_partial()
        self.client.query("DROP TABLE t")
        self.assertFalse(os.path.exists(self.table_dir(0)))
        self.assert_error("SELECT count() FROM t", UNKNOWN_TABLE, "does not exist")
        self.client.query(CREATE)  # no leftover on either worker stands in the way
        self.assertEqual(self.count(), 0)


if __name__ == "__main__":
    testmain.main([DdlAtomicityTest])
