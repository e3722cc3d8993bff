#!/usr/bin/env python3
"""The sharding key survives restarts: a table created with SETTINGS sharding_key (or given one
by ALTER TABLE ... MODIFY SETTING sharding_key while empty) keeps its key
and shard count after every worker and the coordinator restart (workers persist the schema,
storage/table_schema.h), inserts after the restart still route by the key, and an aggregation
grouped by the key still finalizes on the workers with complete groups."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402


class ShardingKeyRestartTest(unittest.TestCase):
    def setUp(self):
        self.cluster = cluster.SplitCluster(testmain.granite(), workers=2).start()
        self.addCleanup(self.cluster.stop)
        self.client = self.cluster.client(timeout=60)
        self.addCleanup(lambda: self.client.close())

    def reconnect(self):
        self.client.close()
        self.client = self.cluster.client(timeout=60)

    def skipped(self, marker):
        return self.client.query_text(
            "SELECT final_merge_skipped FROM system.query_log WHERE query LIKE '%%%s%%' "
            "AND query_kind = 'select' AND type = 'QueryFinish'" % marker).strip()

    def test_key_survives_restart_of_every_process(self):
        self.client.query("CREATE TABLE t (k UInt32, v UInt64) ENGINE = MergeTree ORDER BY k "
                          "SETTINGS sharding_key = 'k'")
        self.client.query("INSERT INTO t SELECT number % 100, number FROM numbers(10000)")
        for i in range(2):
            self.cluster.restart_worker(i)
        self.cluster.restart_coordinator()
        self.reconnect()
        self.assertEqual(self.client.query_text(
            "SELECT sharding_key FROM system.tables WHERE name = 't'"), "k\n")
        self.client.query("INSERT INTO t SELECT number % 100, 1 FROM numbers(1000)")
        # Groups are complete: 110 rows each, no k twice.
        self.assertEqual(self.client.query_text(
            "SELECT k AS after_restart FROM t GROUP BY k HAVING count() != 110"), "")
        self.assertEqual(self.skipped("after_restart"), "1")
        self.assertEqual(self.client.query_text(
            "SELECT k AS groups_once, count() FROM t GROUP BY k ORDER BY k LIMIT 2"),
            "0\t110\n1\t110\n")

    def test_altered_key_survives_restart_of_every_process(self):
        # CREATE without a key, then ALTER ... MODIFY SETTING while empty (how run.py shards hits).
        self.client.query("CREATE TABLE a (k UInt32, v UInt64) ENGINE = MergeTree ORDER BY v")
        self.client.query("ALTER TABLE a MODIFY SETTING sharding_key = 'k'")
        self.client.query("INSERT INTO a SELECT number % 100, number FROM numbers(10000)")
        for i in range(2):
            self.cluster.restart_worker(i)
        self.cluster.restart_coordinator()
        self.reconnect()
        self.assertEqual(self.client.query_text(
            "SELECT sharding_key FROM system.tables WHERE name = 'a'"), "k\n")
        # Still refused on the non-empty table after the restart.
        with self.assertRaises(Exception) as refused:
            self.client.query("ALTER TABLE a RESET SETTING sharding_key")
        self.assertIn("holds 10000 rows", str(refused.exception))
        self.client.query("INSERT INTO a SELECT number % 100, 1 FROM numbers(1000)")
        self.assertEqual(self.client.query_text(
            "SELECT k AS altered_restart FROM a GROUP BY k HAVING count() != 110"), "")
        self.assertEqual(self.skipped("altered_restart"), "1")
        self.assertEqual(self.client.query_text(
            "SELECT k, count() AS altered_top FROM a GROUP BY k ORDER BY altered_top DESC, k "
            "LIMIT 2 OFFSET 1"), "1\t110\n2\t110\n")


if __name__ == "__main__":
    testmain.main([ShardingKeyRestartTest])
