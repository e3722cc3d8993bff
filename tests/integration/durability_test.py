#!/usr/bin/env python3
"""Crash durability with workers and the coordinator as separate processes (granite worker /
granite coordinator): every acknowledged row survives a kill -9 of a worker and its restart on
the same port and data folder; an insert cut by a crash is all-or-nothing; a query while a worker
is down fails loudly naming it rather than answering from part of the data; the coordinator can
be restarted (gracefully or by kill -9) without losing tables or rows."""

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

RECOVERY_TIMEOUT = 30.0


class DurabilityTest(unittest.TestCase):
    def setUp(self):
        self.cluster = cluster.SplitCluster(testmain.granite(), workers=2).start()
        self.addCleanup(self.cluster.stop)
        self.client = self.cluster.client(timeout=60)
        self.addCleanup(lambda: self.client.close())
        self.acked_count = 0
        self.acked_sum = 0
        self.client.query("CREATE TABLE t (x UInt64, batch UInt32) ENGINE = MergeTree ORDER BY x")

    def fail_with_logs(self, message):
        self.fail("%s\n%s" % (message, self.cluster.log_tail()))

    def reconnect(self):
        self.client.close()
        self.client = self.cluster.client(timeout=60)

    def insert_batch(self, start, n, batch):
        """Inserts rows start..start+n-1; counts them as acknowledged once the insert returns."""
        def chunks():
            for lo in range(start, start + n, 10000):
                hi = min(lo + 10000, start + n)
                yield "".join("%d,%d\n" % (x, batch) for x in range(lo, hi)).encode()
        self.client.insert_stream("INSERT INTO t FORMAT CSV", chunks())
        self.acked_count += n
        self.acked_sum += sum(range(start, start + n))

    def totals(self):
        count, total = self.client.query_text("SELECT count(), sum(x) FROM t").split()
        return int(count), int(total)

    def wait_totals(self):
        """Returns the totals once the cluster answers again after a restart."""
        deadline = time.monotonic() + RECOVERY_TIMEOUT
        while True:
            try:
                return self.totals()
            except granite_client.GraniteError as e:
                if time.monotonic() > deadline:
                    self.fail_with_logs("no answer %.0f s after the restart: %s"
                                        % (RECOVERY_TIMEOUT, e))
                time.sleep(0.3)

    def assert_all_acked_rows(self, totals=None):
        self.assertEqual(totals or self.wait_totals(), (self.acked_count, self.acked_sum))

    def test_worker_kill9_and_restart_keeps_acknowledged_rows(self):
        for b in range(5):
            self.insert_batch(b * 20000, 20000, b)
        self.assert_all_acked_rows()

        self.cluster.kill9_worker(1)
        port = self.cluster.worker_ports[1]
        started = time.monotonic()
        with self.assertRaises(granite_client.GraniteError) as ctx:
            self.totals()  # must fail, not answer from worker 0's rows alone
        self.assertLess(time.monotonic() - started, 30, "a query with a dead worker hung")
        self.assertIn(str(port), str(ctx.exception), "the error does not name the dead worker")

        self.cluster.restart_worker(1)
        self.assert_all_acked_rows()
        self.insert_batch(100000, 20000, 5)
        self.assert_all_acked_rows()
        self.assertEqual(self.client.query_text(
            "SELECT batch, count() FROM t GROUP BY batch ORDER BY batch"),
            "".join("%d\t20000\n" % b for b in range(6)))

    def test_insert_cut_by_a_worker_crash_is_all_or_nothing(self):
        self.insert_batch(0, 10000, 0)
        outcome = {}
        reached, killed = threading.Event(), threading.Event()

        def chunks():
            # 40 chunks of 10,000 rows; worker 0 is killed while the insert is in flight, after
            # the first 10 chunks went out.
            for j, lo in enumerate(range(10000, 410000, 10000)):
                if j == 10:
                    reached.set()
                    killed.wait(30)
                yield "".join("%d,1\n" % x for x in range(lo, lo + 10000)).encode()

        def big_insert():
            try:
                self.client.insert_stream("INSERT INTO t FORMAT CSV", chunks())
                outcome["ok"] = True
            except granite_client.GraniteError as e:
                outcome["error"] = e

        thread = threading.Thread(target=big_insert)
        thread.start()
        self.assertTrue(reached.wait(30), "the insert never got going")
        self.cluster.kill9_worker(0)
        killed.set()
        thread.join(120)
        self.assertFalse(thread.is_alive(), "the insert hung after a worker crash")
        print("  insert outcome: %s" % ("acknowledged" if outcome.get("ok") else
                                         "failed: %s" % outcome.get("error")), flush=True)
        self.cluster.restart_worker(0)
        totals = self.wait_totals()
        full = (self.acked_count + 400000, self.acked_sum + sum(range(10000, 410000)))
        if outcome.get("ok"):
            self.assertEqual(totals, full, "an acknowledged insert lost rows in the crash")
        else:
            self.assertEqual(totals, (self.acked_count, self.acked_sum),
                             "a failed insert left rows behind: %s" % outcome.get("error"))

    def test_coordinator_restart_keeps_tables_and_rows(self):
        self.client.query("CREATE TABLE other (s String) ENGINE = MergeTree ORDER BY s")
        for b in range(3):
            self.insert_batch(b * 30000, 30000, b)
        self.cluster.restart_coordinator()
        self.reconnect()
        self.assert_all_acked_rows()
        self.assertEqual(self.client.query_text("SHOW TABLES"), "other\nt\n")

        self.insert_batch(90000, 30000, 3)
        self.cluster.coordinator.kill9()
        self.cluster.restart_coordinator()
        self.reconnect()
        self.assert_all_acked_rows()
        self.assertEqual(self.client.query_text("SHOW TABLES"), "other\nt\n")
        self.insert_batch(120000, 1000, 4)
        self.assert_all_acked_rows()


if __name__ == "__main__":
    testmain.main([DurabilityTest])
