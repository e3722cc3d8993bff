#!/usr/bin/env python3
"""Issue 21: shuffle joins end cleanly however they end (worker/exchange.h).

A shuffle join keeps rows in flight between the workers: each worker's inbox waits for its
peers' rows, and a full inbox holds its senders back. On a 3-worker `granite local` cluster:

- a streamed shuffle join whose client stops reading holds the workers back (the join waits,
  nothing grows without bound), and cancelling it ends the fragment on every worker;
- a shuffle join over max_memory_usage fails with MEMORY_LIMIT_EXCEEDED (241) and leaves no
  fragment running;
- a worker killed (SIGKILL) during a shuffle join fails the query (or, if it had already sent
  everything, the query completes whole) instead of hanging it; once the worker is back, the
  same join gives the right answer;
- after each, a shuffle join answers exactly what the coordinator's own join answers.

Every wait is bounded; nothing depends on the machine's speed.
"""

import os
import signal
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import grpc_case  # noqa: E402
import testmain  # noqa: E402
from granite_client._stubs import pb2  # noqa: E402

TIMEOUT = 60
WAIT = 60  # seconds: the bound of every wait below
ROWS_A = 900000
ROWS_B = 300000
KEYS = 300000
JOIN = "FROM sa JOIN sb ON sa.k = sb.k"
SHUFFLE = " SETTINGS distributed_join_mode = 'shuffle'"
CHECK = "SELECT count(), sum(sa.v), sum(length(sb.s)) " + JOIN


class ShuffleJoinTest(grpc_case.GrpcClusterCase):
    WORKERS = 3
    TIMEOUT = TIMEOUT

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.ok("CREATE TABLE sa (k UInt64, v Int64) ENGINE = MergeTree ORDER BY v")
        cls.ok("CREATE TABLE sb (k UInt32, s String) ENGINE = MergeTree ORDER BY s")
        cls.ok("INSERT INTO sa SELECT number %% %d, number FROM numbers(%d)" % (KEYS, ROWS_A))
        cls.ok("INSERT INTO sb SELECT number %% %d, repeat('x', number %% 50) FROM numbers(%d)"
               % (KEYS, ROWS_B))
        cls.expected = cls.ok(CHECK + " SETTINGS distributed_join_mode = 'coordinator'")

    def rows(self, sql):
        return [line.split("\t") for line in self.ok(sql).decode().splitlines()]

    def wait_until(self, what, condition):
        cluster.wait_until(what, condition, WAIT)

    def fragments_in_flight(self):
        return cluster.fragments_in_flight(self.rows)

    def assert_clean_and_right(self):
        self.wait_until("every fragment ended", lambda: self.fragments_in_flight() == 0)
        self.assertEqual(self.ok(CHECK + SHUFFLE), self.expected)

    def test_answer_equals_the_coordinators(self):
        self.assertEqual(self.ok(CHECK + SHUFFLE), self.expected)
        plan = self.ok("EXPLAIN " + CHECK + SHUFFLE).decode()
        self.assertIn("ShuffleJoin INNER", plan)

    def test_cancel_while_the_client_does_not_read(self):
        call = self.stub.ExecuteQueryWithStreamOutput(
            pb2.QueryInfo(query="SELECT sa.k, sa.v, sb.s " + JOIN + SHUFFLE,
                          query_id="shuffle-stalled"), timeout=TIMEOUT)
        first = next(call)
        self.assertFalse(first.HasField("exception"), first.exception.display_text)
        # The client reads nothing more: the query stays, held back by flow control.
        time.sleep(1)
        self.assertEqual(self.rows("SELECT count() FROM system.processes "
                                   "WHERE query_id = 'shuffle-stalled'"), [["1"]])
        call.cancel()
        self.wait_until("the query left system.processes", lambda: self.rows(
            "SELECT count() FROM system.processes WHERE query_id = 'shuffle-stalled'") == [["0"]])
        self.assert_clean_and_right()

    def test_memory_limit(self):
        # The build side alone is ~8 MB of rows plus its hash tables, spread over 3 workers.
        result = self.run_query(CHECK + SHUFFLE + ", max_memory_usage = 1000000")
        self.assertTrue(result.HasField("exception"), "succeeded under a 1 MB limit")
        self.assertEqual(result.exception.code, 241, result.exception.display_text)
        self.assert_clean_and_right()

    def test_worker_killed_mid_join(self):
        pids = [int(pid) for (pid,) in self.rows("SELECT pid FROM system.workers ORDER BY pid")]
        self.assertEqual(len(pids), 3, pids)
        call = self.stub.ExecuteQueryWithStreamOutput(
            pb2.QueryInfo(query="SELECT sa.k, sa.v, sb.s " + JOIN + SHUFFLE,
                          query_id="shuffle-killed"), timeout=TIMEOUT)
        first = next(call)
        self.assertFalse(first.HasField("exception"), first.exception.display_text)
        os.kill(pids[-1], signal.SIGKILL)
        # The stream ends (the client reads again) with an exception, or, when the killed worker
        # had already handed all its rows over, with the whole answer; it never hangs.
        failed, lines = False, first.output.count(b"\n")
        for result in call:
            failed = failed or result.HasField("exception")
            lines += result.output.count(b"\n")
        if not failed:
            self.assertEqual(lines, ROWS_A, "a query that lost a worker answered partly")
        # `granite local` restarts the worker; then the join runs as before.
        self.wait_until("the worker is back", lambda: self.rows(
            "SELECT count() FROM system.workers WHERE state = 'up' AND pid != %d" % pids[-1])
            == [["3"]])
        self.assert_clean_and_right()


if __name__ == "__main__":
    testmain.main([ShuffleJoinTest])
