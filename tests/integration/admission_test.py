#!/usr/bin/env python3
"""SELECT admission control on the coordinator (coordinator/server/admission_queue.h), on a cluster started
with --max_concurrent_select_queries 1 --max_queued_select_queries 2: while one long SELECT runs,
the next SELECTs wait (system.processes shows them queued) and INSERT, DDL and system-table queries
do not; a full queue refuses with TOO_MANY_SIMULTANEOUS_QUERIES (202), as does a SELECT whose
queue_max_wait_ms passes; KILL QUERY takes a waiting query out of the queue; and a query that
waited reports its wait in system.query_log.queue_wait_us."""

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

LONG_SELECT = "SELECT sum(number) FROM numbers(100000000000)"


class Background:
    """Runs one query on its own client in a thread and keeps its outcome (rows or error code)."""

    def __init__(self, local, sql, query_id):
        self.outcome = None
        self._client = local.client(timeout=60)
        self._thread = threading.Thread(target=self._run, args=(sql, query_id))
        self._thread.start()

    def _run(self, sql, query_id):
        try:
            self.outcome = self._client.query_text(sql, query_id=query_id).strip()
        except GraniteError as e:
            self.outcome = e.code

    def join(self, timeout=30):
        self._thread.join(timeout)
        self._client.close()
        return self.outcome


class AdmissionTest(unittest.TestCase):
    EXTRA_ARGS = []

    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster.LocalCluster(
            testmain.granite(), workers=1, threads=2,
            extra_args=["--max_concurrent_select_queries", "1",
                        "--max_queued_select_queries", "2"] + cls.EXTRA_ARGS).start()
        cls.client = cls.cluster.client(timeout=30)
        cls.client.query("CREATE TABLE adm (k UInt64) ENGINE = MergeTree ORDER BY k")
        cls.client.query("INSERT INTO adm SELECT number FROM numbers(1000)")

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.stop()

    def rows(self, sql):
        return [line.split("\t") for line in self.client.query_text(sql).splitlines()]

    def processes(self):
        return {row[0]: row[1] for row in self.rows("SELECT query_id, queued FROM system.processes")}

    def wait_for(self, condition, what):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if condition():
                return
            time.sleep(0.02)
        self.fail("timed out waiting for " + what + "; processes: " + str(self.processes()))

    def test_queue(self):
        long = Background(self.cluster, LONG_SELECT, "adm-long")
        self.wait_for(lambda: self.processes().get("adm-long") == "0", "the long SELECT to run")
        first = Background(self.cluster, "SELECT count() FROM adm", "adm-first")
        self.wait_for(lambda: self.processes().get("adm-first") == "1", "adm-first to queue")
        second = Background(self.cluster, "SELECT count() FROM adm WHERE k < 10", "adm-second")
        self.wait_for(lambda: self.processes().get("adm-second") == "1", "adm-second to queue")

        # INSERT, DDL and system tables pass while both slots of the queue are taken: they
        # finish while the long SELECT still holds the slot and the others still wait (had they
        # queued, they could only finish after it; no time limit, which a busy machine may miss).
        self.client.query("INSERT INTO adm VALUES (5000)")
        self.client.query("CREATE TABLE adm_other (k UInt64) ENGINE = MergeTree ORDER BY k")
        self.client.query("DROP TABLE adm_other")
        self.assertEqual({k: v for k, v in self.processes().items() if k.startswith("adm-")},
                         {"adm-long": "0", "adm-first": "1", "adm-second": "1"})

        # A full queue refuses at once.
        with self.assertRaises(GraniteError) as refused:
            self.client.query("SELECT count() FROM adm", query_id="adm-refused")
        self.assertEqual(refused.exception.code, 202)
        self.assertEqual(refused.exception.name, "TOO_MANY_SIMULTANEOUS_QUERIES")
        self.assertIn("2 SELECTs already wait", str(refused.exception))

        # KILL QUERY takes a waiting query out of the queue.
        killed = self.rows("KILL QUERY WHERE query_id = 'adm-first' SYNC")
        self.assertEqual(killed[0][:2], ["finished", "adm-first"])
        self.assertEqual(first.join(), 394)  # QUERY_WAS_CANCELLED
        self.assertNotIn("adm-first", self.processes())
        self.assertEqual(self.processes().get("adm-second"), "1")

        # A SELECT whose wait limit passes gives up with 202.
        with self.assertRaises(GraniteError) as impatient:
            self.client.query("SELECT count() FROM adm SETTINGS queue_max_wait_ms = 200")
        self.assertEqual(impatient.exception.code, 202)
        self.assertIn("queue_max_wait_ms = 200", str(impatient.exception))

        # Ending the long query admits the next in line.
        self.rows("KILL QUERY WHERE query_id = 'adm-long' SYNC")
        self.assertEqual(long.join(), 394)
        self.assertEqual(second.join(), "10")
        waited = self.rows("SELECT queue_wait_us FROM system.query_log "
                           "WHERE query_id = 'adm-second'")
        self.assertGreater(int(waited[0][0]), 100000, waited)
        self.assertEqual(self.rows("SELECT count() FROM adm"), [["1001"]])

    def test_streamed_calls(self):
        """The same over ExecuteQueryWithStreamIO, the callback method (query_scheduler.h): queued
        SELECTs hold no thread, a streamed INSERT passes them, a killed or abandoned queued query
        ends and frees its place, and the rest run once the slot frees."""
        before = int(self.rows("SELECT count() FROM adm")[0][0])
        streams = []

        def start(sql, query_id):
            stream = self.cluster.client(timeout=60).stream(sql, query_id=query_id)
            stream.finish()
            streams.append(stream)
            return stream

        long = start(LONG_SELECT, "st-long")
        self.wait_for(lambda: self.processes().get("st-long") == "0", "the long SELECT to run")
        first = start("SELECT count() FROM adm", "st-first")
        self.wait_for(lambda: self.processes().get("st-first") == "1", "st-first to queue")
        gone = self.cluster.client(timeout=60).stream("SELECT count() FROM adm",
                                                      query_id="st-gone")
        gone.finish()
        self.wait_for(lambda: self.processes().get("st-gone") == "1", "st-gone to queue")

        # A streamed INSERT (input sent in pieces while it runs) passes the full queue: it ends
        # while the long SELECT still runs and the others still wait.
        insert = self.cluster.client(timeout=30).stream("INSERT INTO adm FORMAT TabSeparated")
        insert.send("7000\n")
        insert.send("7001\n")
        insert.finish()
        insert.result()
        self.assertEqual({k: v for k, v in self.processes().items() if k.startswith("st-")},
                         {"st-long": "0", "st-first": "1", "st-gone": "1"})

        # A full queue refuses at once, over the stream too.
        with self.assertRaises(GraniteError) as refused:
            start("SELECT count() FROM adm", "st-refused").result()
        self.assertEqual(refused.exception.code, 202)

        # A client that goes away takes its query out of the queue.
        gone.close()
        self.wait_for(lambda: "st-gone" not in self.processes(), "st-gone to leave the queue")

        # KILL QUERY ends a queued streamed query with QUERY_WAS_CANCELLED.
        # Its kind comes from the parse tree: a SELECT behind a comment queues like any SELECT.
        second = start("-- the second\nSELECT count() FROM adm WHERE k < 10", "st-second")
        self.wait_for(lambda: self.processes().get("st-second") == "1", "st-second to queue")
        killed = self.rows("KILL QUERY WHERE query_id = 'st-first' SYNC")
        self.assertEqual(killed[0][:2], ["finished", "st-first"])
        with self.assertRaises(GraniteError) as cancelled:
            first.result()
        self.assertEqual(cancelled.exception.code, 394)

        self.rows("KILL QUERY WHERE query_id = 'st-long' SYNC")
        with self.assertRaises(GraniteError):
            long.result()
        self.assertEqual(second.result().output.decode().strip(), "10")
        self.assertEqual(self.rows("SELECT count() FROM adm"), [[str(before + 2)]])
        log = self.rows("SELECT exception_code FROM system.query_log WHERE query_id = 'st-first'")
        self.assertEqual(log, [["394"]])



class AdmissionIdleSelectsTest(AdmissionTest):
    """The same with --query_thread_nice 20: every SELECT's whole path (parse to reply, and its
    reader threads) runs under SCHED_IDLE; INSERT and DDL, at normal priority on their own worker
    connection, still pass while the running and queued SELECTs hold their threads."""
    EXTRA_ARGS = ["--query_thread_nice", "20"]


if __name__ == "__main__":
    testmain.main([AdmissionTest, AdmissionIdleSelectsTest])
