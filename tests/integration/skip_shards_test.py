#!/usr/bin/env python3
"""optimize_skip_unused_shards (coordinator/planner/rules/skip_unused_shards.h): a query whose
WHERE fixes the sharding key runs only on the shards the key's values were routed to.
  - results are the same with the rule on and off, for point, IN-list and composite keys;
  - EXPLAIN names the shards, also for a long IN subquery set;
  - with one worker killed, queries for keys routed to the live workers still succeed, while a
    query that needs every shard fails with ALL_CONNECTION_TRIES_FAILED (279): the proof that the
    dead worker was not asked.
Sizes are small; nothing asserts timing."""

import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

import granite_client  # noqa: E402

WORKERS = 3
OFF = {"optimize_skip_unused_shards": "0"}


class SkipUnusedShardsTest(unittest.TestCase):
    def setUp(self):
        self.cluster = cluster.SplitCluster(testmain.granite(), workers=WORKERS, threads=1).start()
        self.addCleanup(self.cluster.stop)
        self.client = self.cluster.client(timeout=60)
        self.addCleanup(self.client.close)
        self.client.query("CREATE TABLE t (k UInt32, s String, v UInt64) ENGINE = MergeTree "
                          "ORDER BY v SETTINGS sharding_key = 'k'")
        self.client.query("CREATE TABLE two (k UInt32, s String, v UInt64) ENGINE = MergeTree "
                          "ORDER BY v SETTINGS sharding_key = 'k, s'")
        for table in ("t", "two"):
            self.client.query("INSERT INTO %s SELECT number %% 300, concat('s', toString(number "
                              "%% 7)), number FROM numbers(6000)" % table)

    def shards_of(self, where, table="t"):
        """The shards EXPLAIN says a query with `where` runs on (None: every shard)."""
        text = self.client.query_text("EXPLAIN SELECT count() FROM %s WHERE %s" % (table, where))
        match = re.search(r"Workers: shards ([0-9, ]+) of (\d+)", text)
        if match is None:
            self.assertIn("Workers: each runs this fragment over its shard", text)
            return None
        self.assertEqual(int(match.group(2)), WORKERS)
        return [int(s) for s in match.group(1).split(",")]

    def test_results_match_with_the_rule_off(self):
        queries = [
            "SELECT count(), sum(v) FROM t WHERE k = 17",
            "SELECT k, count(), sum(v) FROM t WHERE k IN (1, 2, 250) GROUP BY k ORDER BY k",
            "SELECT v FROM t WHERE k = 299 AND v > 3000 ORDER BY v",
            "SELECT count() FROM t WHERE k = 100000",
            "SELECT s, sum(v) FROM two WHERE k = 5 AND s = 's5' GROUP BY s",
            "SELECT count() FROM two WHERE k IN (3, 4) AND s IN ('s3', 's4', 's0')",
            "SELECT uniqExact(v) FROM t WHERE k = 3 OR k = 4",
        ]
        for sql in queries:
            self.assertEqual(self.client.query_text(sql),
                             self.client.query_text(sql, settings=OFF), sql)
        self.assertEqual(self.client.query_text("SELECT count() FROM t WHERE k = 17").strip(), "20")

    def test_explain_names_the_shards_of_the_key(self):
        one = self.shards_of("k = 17")
        self.assertIsNotNone(one)
        self.assertEqual(len(one), 1)
        self.assertIsNone(self.shards_of("k > 17"))
        self.assertIsNone(self.shards_of("k = 17 OR v = 1"))
        self.assertEqual(len(self.shards_of("k = 5 AND s = 's5'", "two")), 1)
        self.assertIsNone(self.shards_of("k = 5", "two"))
        text = self.client.query_text("EXPLAIN SELECT count() FROM t WHERE k = 17 "
                                      "SETTINGS optimize_skip_unused_shards = 0")
        self.assertIn("Workers: each runs this fragment over its shard", text)

    def test_a_long_in_subquery_set_names_its_shards(self):
        # Past 100 values an IN subquery's set travels as one column (exec/subqueries.h); the
        # shards of its keys are still the only ones asked.
        shard_of = {k: self.shards_of("k = %d" % k)[0] for k in range(450)}
        first = [k for k in shard_of if shard_of[k] == 0]
        self.assertGreater(len(first), 100)
        keys = ", ".join(str(k) for k in first)
        where = "k IN (SELECT number FROM numbers(450) WHERE number IN (%s))" % keys
        self.assertEqual(self.shards_of(where), [0])
        sql = "SELECT count(), sum(v) FROM t WHERE " + where
        self.assertEqual(self.client.query_text(sql), self.client.query_text(sql, settings=OFF))
        expected = sum(1 for k in first if k < 300) * 20
        self.assertEqual(self.client.query_text(sql).split()[0], str(expected))

    def test_a_dead_worker_does_not_fail_queries_for_keys_elsewhere(self):
        # Each key's shard, then a worker that holds some keys but not all.
        shard_of = {k: self.shards_of("k = %d" % k)[0] for k in range(30)}
        dead = shard_of[0]
        live_keys = [k for k in shard_of if shard_of[k] != dead]
        self.assertTrue(live_keys)
        expected = {k: self.client.query_text("SELECT count(), sum(v) FROM t WHERE k = %d" % k)
                    for k in live_keys}
        self.cluster.kill9_worker(dead)
        for k in live_keys:
            self.assertEqual(
                self.client.query_text("SELECT count(), sum(v) FROM t WHERE k = %d" % k),
                expected[k], k)
        with self.assertRaises(granite_client.GraniteError) as caught:
            self.client.query("SELECT count() FROM t")
        self.assertEqual(caught.exception.code, 279, caught.exception.message)
        with self.assertRaises(granite_client.GraniteError) as caught:
            self.client.query("SELECT count() FROM t WHERE k = 0")
        self.assertEqual(caught.exception.code, 279, caught.exception.message)


if __name__ == "__main__":
    testmain.main([SkipUnusedShardsTest])
