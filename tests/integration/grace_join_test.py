#!/usr/bin/env python3
"""Issue 21: joins that spill (grace hash join, core/join/grace_hash_join.h).

On a 2-worker `granite local` cluster, with a build table whose rows and hash table are several
times max_memory_usage (16 MB) on each worker:

- the join succeeds under the limit with the default join_algorithm (it spills: the workers'
  JoinSpilledBuckets / JoinSpilledBytes grow) and answers what the join without a limit answers,
  co-located; with join_algorithm = 'hash' it fails with MEMORY_LIMIT_EXCEEDED (241);
- a shuffled join forced to spill (max_bytes_in_join) answers what it answers in memory;
- afterwards no spill file is left in any worker's <data>/tmp;
- a spilling join whose client stops reading has files in <data>/tmp; cancelling it removes them.

Every wait is bounded; nothing depends on the machine's speed.
"""

import glob
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import grpc_case  # noqa: E402
import testmain  # noqa: E402
from granite_client._stubs import pb2  # noqa: E402

TIMEOUT = 120
WAIT = 60
BUILD_ROWS = 3000000  # ~24 bytes a row, plus ~50 for its hash table: ~110 MB a worker in memory
PROBE_ROWS = 4000000  # more rows than the build: the planner keeps this table on the workers
LIMIT = 16000000
CHECK = "SELECT count(), sum(gp.v), sum(cityHash64(gb.s) % 1000) FROM gp JOIN gb ON gp.k = gb.k"
CHECK_SHUFFLED = ("SELECT count(), sum(sp.v), sum(cityHash64(gs.s) % 1000) "
                  "FROM sp JOIN gs ON sp.k = gs.k SETTINGS distributed_join_mode = 'shuffle'")


class GraceJoinTest(grpc_case.GrpcClusterCase):
    WORKERS = 2
    TIMEOUT = TIMEOUT

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.ok("CREATE TABLE gb (k UInt64, s String) ENGINE = MergeTree ORDER BY k "
               "SETTINGS sharding_key = 'k'")
        cls.ok("CREATE TABLE gp (k UInt64, v Int64) ENGINE = MergeTree ORDER BY k "
               "SETTINGS sharding_key = 'k'")
        cls.ok("CREATE TABLE sp (k UInt64, v Int64) ENGINE = MergeTree ORDER BY v")
        cls.ok("CREATE TABLE gs (k UInt64, s String) ENGINE = MergeTree ORDER BY s")
        cls.ok("INSERT INTO gb SELECT number, concat('s', toString(number)) FROM numbers(%d)"
               % BUILD_ROWS)
        cls.ok("INSERT INTO gp SELECT number %% %d, number FROM numbers(%d)"
               % (PROBE_ROWS, PROBE_ROWS))
        cls.ok("INSERT INTO sp SELECT number % 700000, number FROM numbers(1000000)")
        cls.ok("INSERT INTO gs SELECT number * 2, toString(number) FROM numbers(400000)")
        cls.expected = cls.ok(CHECK)
        cls.expected_shuffled = cls.ok(CHECK_SHUFFLED)

    def rows(self, sql):
        return [line.split("\t") for line in self.ok(sql).decode().splitlines()]

    def spill_files(self):
        return glob.glob(os.path.join(self.cluster.data_dir, "worker-*", "tmp", "*"))

    def spilled_buckets(self):
        rows = self.rows("SELECT sum(value) FROM system.events WHERE event = 'JoinSpilledBuckets'")
        return int(rows[0][0]) if rows and rows[0][0] else 0

    def wait_clean(self):
        cluster.wait_until("every fragment ended",
                           lambda: cluster.fragments_in_flight(self.rows) == 0, WAIT)
        self.assertEqual(self.spill_files(), [])

    def test_join_over_the_memory_limit_spills_and_answers_right(self):
        # Joined in memory the build alone is several times the limit: 'hash' fails.
        result = self.run_query(CHECK + " SETTINGS join_algorithm = 'hash', max_memory_usage = %d"
                                % LIMIT)
        self.assertTrue(result.HasField("exception"), "a ~110 MB build fit in 16 MB")
        self.assertEqual(result.exception.code, 241, result.exception.display_text)
        self.wait_clean()
        before = self.spilled_buckets()
        self.assertEqual(self.ok(CHECK + " SETTINGS max_memory_usage = %d" % LIMIT), self.expected)
        self.assertGreater(self.spilled_buckets(), before)
        self.wait_clean()

    def test_shuffled_join_spills_and_answers_right(self):
        before = self.spilled_buckets()
        self.assertEqual(self.ok(CHECK_SHUFFLED + ", join_algorithm = 'grace_hash', "
                                 "max_bytes_in_join = 1000000, max_memory_usage = %d" % LIMIT),
                         self.expected_shuffled)
        self.assertGreater(self.spilled_buckets(), before)
        self.wait_clean()

    def test_cancelled_spilling_join_leaves_no_file(self):
        call = self.stub.ExecuteQueryWithStreamOutput(
            pb2.QueryInfo(query="SELECT gp.k, gb.s FROM gp JOIN gb ON gp.k = gb.k SETTINGS "
                                "max_memory_usage = %d" % LIMIT,
                          query_id="grace-cancelled"), timeout=TIMEOUT)
        first = next(call)
        self.assertFalse(first.HasField("exception"), first.exception.display_text)
        # Rows stream while the probe side is scanned, after the build spilled; the client reads
        # nothing more, so the query waits with its bucket files in place.
        cluster.wait_until("spill files exist", lambda: len(self.spill_files()) > 0, WAIT)
        call.cancel()
        cluster.wait_until("the query left system.processes", lambda: self.rows(
            "SELECT count() FROM system.processes WHERE query_id = 'grace-cancelled'") == [["0"]],
            WAIT)
        cluster.wait_until("the spill files are gone", lambda: self.spill_files() == [], WAIT)
        self.wait_clean()
        self.assertEqual(self.ok(CHECK + " SETTINGS max_memory_usage = %d" % LIMIT), self.expected)


if __name__ == "__main__":
    testmain.main([GraceJoinTest])
