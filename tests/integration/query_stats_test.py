#!/usr/bin/env python3
"""Pruning statistics over the ClickHouse gRPC wire: Stats and Progress have no field for parts or
marks, so, like ClickHouse, granite reports them as a server log entry to clients that ask with
SETTINGS send_logs_level = 'debug' ("Selected a/b parts ..., c/d marks ..."), summed over the
workers: fewer selected than total for a pruned query, all of them for a full scan, and nothing
without the setting. (system.query_log's columns: tests/sql/storage/pruning_stats.test.)"""

import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

SELECTED = re.compile(r"Selected (\d+)/(\d+) parts .*, (\d+)/(\d+) marks")


class QueryStatsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=2, threads=2).start()
        cls.client = cls.cluster.client(timeout=30)
        cls.client.query("CREATE TABLE qs (p UInt32, x UInt64) ENGINE = MergeTree PARTITION BY p "
                         "ORDER BY x SETTINGS index_granularity = 16")
        cls.client.query("INSERT INTO qs SELECT number % 5, number FROM numbers(5000)")

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.stop()

    def selected(self, sql):
        result = self.client.execute(sql, settings={"send_logs_level": "debug"})
        texts = [log.text for r in result.results for log in r.logs]
        matches = [SELECTED.search(t) for t in texts]
        matches = [m for m in matches if m]
        self.assertEqual(len(matches), 1, texts)
        self.assertEqual(result.results[-1].logs[0].level, 7)  # LOG_DEBUG
        return [int(v) for v in matches[0].groups()]

    def test_pruned_query_reports_fewer_selected_than_total(self):
        parts, parts_total, marks, marks_total = self.selected("SELECT count() FROM qs WHERE p = 3")
        self.assertGreater(parts, 0)
        self.assertLess(parts, parts_total)
        self.assertGreater(marks, 0)
        self.assertLess(marks, marks_total)

    def test_full_scan_reports_everything(self):
        parts, parts_total, marks, marks_total = self.selected("SELECT count() FROM qs")
        self.assertGreaterEqual(parts_total, 5)
        self.assertEqual(parts, parts_total)
        self.assertEqual(marks, marks_total)
        self.assertGreaterEqual(marks_total, 5000 // 16)

    def test_no_logs_unless_asked(self):
        result = self.client.execute("SELECT count() FROM qs WHERE p = 3")
        self.assertEqual([log.text for r in result.results for log in r.logs], [])


if __name__ == "__main__":
    testmain.main([QueryStatsTest])
