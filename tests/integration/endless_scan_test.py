#!/usr/bin/env python3
"""Issue 19: scans of numbers(N) with a huge N (granite local, 2 workers).

Each worker used to list every morsel of its slice before reading one, and the listing wrapped
past 2^64 for numbers(18446744073709551615): `SELECT * FROM numbers(18446744073709551615) LIMIT 1`
never ended and the workers grew by ~100 MB/s, out of reach of KILL QUERY and of the client's
deadline (the coordinator dropped the query; its workers went on). Now morsels are computed as they
are read: a LIMIT answers at once, and a query that would read for ever is visible in
system.processes and stopped — on the workers too — by KILL QUERY or by its client going away, with
the workers' memory bounded meanwhile.

Memory is read from /proc/<pid>/status of the workers (pids from system.workers) and bounded with
generous slack; nothing here depends on speed beyond bounded waits.
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

from granite_client.errors import GraniteError  # noqa: E402

MAX_U64 = 18446744073709551615
# A worker idles at a few tens of MiB; a scan of numbers with constant memory adds a few MiB per
# thread. The old morsel listing passed this within seconds.
RSS_BOUND_KB = 400 * 1024
WAIT = 30  # seconds: the bound of every wait below


class EndlessScanTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=2).start()
        cls.client = cls.cluster.client(timeout=WAIT)
        cls.worker_pids = [int(pid) for (pid,) in cls.rows("SELECT pid FROM system.workers")]
        assert len(cls.worker_pids) == 2, cls.worker_pids

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.stop()

    @classmethod
    def rows(cls, sql):
        text = cls.client.query_text(sql)
        return [line.split("\t") for line in text.splitlines()]

    def fragments_in_flight(self):
        """Fragments the workers started and have not finished (system.events)."""
        return cluster.fragments_in_flight(self.rows)

    def wait_until(self, what, condition):
        cluster.wait_until(what, condition, WAIT)

    def assert_workers_bounded(self):
        for pid in self.worker_pids:
            self.assertLess(cluster.rss_kb(pid), RSS_BOUND_KB, "worker pid %d" % pid)

    def test_limit_over_the_largest_numbers_ends_with_its_row(self):
        self.assertEqual(self.client.query_text(
            "SELECT * FROM numbers(%d) LIMIT 1" % MAX_U64), "0\n")
        # Without ORDER BY any matching rows answer; each worker stops at its first two.
        rows = self.client.query_text(
            "SELECT number FROM numbers_mt(%d) WHERE number %% 1000 = 5 LIMIT 2" % MAX_U64).split()
        self.assertEqual(len(rows), 2)
        self.assertTrue(all(int(r) % 1000 == 5 for r in rows), rows)
        self.assertEqual(len(self.client.query_text(
            "SELECT number FROM numbers(1000000000000) LIMIT 3").split()), 3)
        self.assert_workers_bounded()
        self.wait_until("no fragment in flight", lambda: self.fragments_in_flight() == 0)

    def run_in_background(self, sql, query_id, timeout=WAIT):
        outcome = {}

        def run():
            try:
                self.client.execute(sql, query_id=query_id, timeout=timeout)
                outcome["result"] = "finished"
            except GraniteError as e:
                outcome["result"] = e.code or e.name

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread, outcome

    def check_killed(self, sql, query_id):
        thread, outcome = self.run_in_background(sql, query_id)
        self.wait_until("%s in system.processes" % query_id, lambda: self.rows(
            "SELECT query_id FROM system.processes WHERE query_id = '%s'" % query_id))
        # It runs for a while with bounded memory.
        for _ in range(10):
            self.assert_workers_bounded()
            time.sleep(0.2)
        self.assertEqual(self.fragments_in_flight(), 2)
        killed = self.rows("KILL QUERY WHERE query_id = '%s' SYNC" % query_id)
        self.assertEqual(killed[0][:2], ["finished", query_id])
        thread.join(WAIT)
        self.assertFalse(thread.is_alive())
        self.assertEqual(outcome["result"], 394)  # QUERY_WAS_CANCELLED
        self.assertEqual(self.rows(
            "SELECT query_id FROM system.processes WHERE query_id = '%s'" % query_id), [])
        # The workers stopped too, and their memory stays bounded.
        self.wait_until("the workers' fragments ended", lambda: self.fragments_in_flight() == 0)
        self.assert_workers_bounded()

    def test_kill_query_stops_an_endless_sum_on_every_worker(self):
        self.check_killed("SELECT sum(number) FROM numbers(%d)" % MAX_U64, "endless-sum")

    def test_kill_query_stops_an_endless_count(self):
        self.check_killed("SELECT count() FROM numbers_mt(1000000000000000000)", "endless-count")

    def test_a_client_that_goes_away_stops_the_workers(self):
        thread, outcome = self.run_in_background(
            "SELECT sum(number) FROM numbers(%d)" % MAX_U64, "endless-timeout", timeout=2)
        thread.join(WAIT)
        self.assertFalse(thread.is_alive())
        self.assertEqual(outcome["result"], "DEADLINE_EXCEEDED")
        self.wait_until("endless-timeout left system.processes", lambda: not self.rows(
            "SELECT query_id FROM system.processes WHERE query_id = 'endless-timeout'"))
        self.wait_until("the workers' fragments ended", lambda: self.fragments_in_flight() == 0)
        self.assert_workers_bounded()


if __name__ == "__main__":
    testmain.main([EndlessScanTest])
