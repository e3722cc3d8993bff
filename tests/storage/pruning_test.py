#!/usr/bin/env python3
"""Primary-key, min/max and partition pruning seen from SQL (Date and DateTime64 partitions).

Loads a synthetic `hits` (granite gen hits; ClickBench's create.sql, sorted by its PRIMARY KEY
(CounterID, EventDate, ...)) in several inserts, then runs ClickBench Q37-Q43 (CounterID = 62 AND
EventDate ...) and checks, with the rows-read progress the server reports, that each reads only the
granules that can match — at most the matching rows plus two partial granules per part — and
answers exactly as with pruning switched off (SETTINGS use_pruning = 0). A partitioned table checks
partition pruning the same way. Skipped when the ClickBench folder (../shared/clickbench) is
missing: its schema and queries are not in this repository.
"""

import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

CLICKBENCH = os.environ.get("GRANITE_CLICKBENCH", os.path.join(
    os.path.dirname(cluster.REPO_ROOT), "shared", "clickbench"))
ROWS = 200000
INSERTS = 4
GRANULE = 8192


def clickbench_file(name):
    with open(os.path.join(CLICKBENCH, name)) as f:
        return f.read()


@unittest.skipUnless(os.path.isfile(os.path.join(CLICKBENCH, "queries.sql")),
                     "ClickBench folder not found: " + CLICKBENCH)
class ClickBenchPruningTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=2).start()
        cls.client = cls.cluster.client(timeout=120)
        create = clickbench_file("create.sql").strip()
        cls.client.query(create[:create.rfind(";")] if ";" in create else create)
        data = subprocess.run(testmain.granite() + ["gen", "hits", "--rows", str(ROWS),
                                                    "--seed", "1"],
                              check=True, stdout=subprocess.PIPE).stdout
        lines = data.splitlines(keepends=True)
        step = len(lines) // INSERTS + 1
        for i in range(0, len(lines), step):
            cls.client.query("INSERT INTO hits FORMAT TabSeparated",
                             input_data=b"".join(lines[i:i + step]))
        cls.queries = [q.strip().rstrip(";")
                       for q in clickbench_file("queries.sql").strip().splitlines()]

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.stop()

    def rows_read(self, sql):
        result = self.client.execute(sql)
        return result.output, result.progress["read_rows"]

    def test_q37_to_q43_read_only_matching_granules(self):
        parts = int(self.client.query_text(
            "SELECT count() FROM system.parts WHERE table = 'hits' AND active"))
        for number in range(37, 44):
            sql = self.queries[number - 1]
            with self.subTest(query=number):
                self.assertIn("CounterID = 62", sql)
                where = sql[sql.index("CounterID = 62"):]
                first, last = [w.split("'")[1] for w in where.split("EventDate")[1:3]]
                matching = int(self.client.query_text(
                    "SELECT count() FROM hits WHERE CounterID = 62 AND EventDate >= '%s' "
                    "AND EventDate <= '%s'" % (first, last)))
                pruned, read = self.rows_read(sql)
                full, read_all = self.rows_read(sql + " SETTINGS use_pruning = 0")
                self.assertEqual(pruned, full, "pruning changed the answer of Q%d" % number)
                self.assertEqual(read_all, ROWS)
                # Rows sorted by (CounterID, EventDate): the matching rows of a part are one run,
                # so the chosen granules hold them plus at most two partial granules per part.
                self.assertLessEqual(read, matching + 2 * GRANULE * parts,
                                     "Q%d read %d rows; %d match" % (number, read, matching))
                self.assertLess(read, ROWS // 4)
                print("  Q%d: read %d of %d rows (%d match, %d parts)"
                      % (number, read, ROWS, matching, parts), flush=True)


class PartitionPruningTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=2).start()
        cls.client = cls.cluster.client(timeout=60)
        cls.client.query("CREATE TABLE p (d Date, k UInt32, v UInt64) ENGINE = MergeTree "
                         "PARTITION BY toYYYYMM(d) ORDER BY k SETTINGS index_granularity = 256")
        # 24 months, 2,000 rows each, keys unrelated to the date so only the partition prunes.
        rows = "".join("2022-%02d-15,%d,%d\n" % (1 + m % 12, (m * 7919 + i) % 10007, i) if m < 12
                       else "2023-%02d-15,%d,%d\n" % (1 + m % 12, (m * 7919 + i) % 10007, i)
                       for m in range(24) for i in range(2000))
        cls.client.query("INSERT INTO p FORMAT CSV", input_data=rows.encode())
        # The same months as DateTime64(3) values with a fraction.
        cls.client.query("CREATE TABLE p64 (t DateTime64(3), k UInt32, v UInt64) ENGINE = MergeTree "
                         "PARTITION BY toYYYYMM(t) ORDER BY k SETTINGS index_granularity = 256")
        cls.client.query("INSERT INTO p64 SELECT toDateTime64(concat(toString(d), ' 12:00:00.250'), 3), "
                         "k, v FROM p")

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.stop()

    def test_datetime64_range_reads_only_its_partitions(self):
        # A constant the column's precision holds exactly prunes; a finer one (compared at its
        # own precision) reads everything and still answers the same.
        for where, months in (("t >= '2023-03-01 00:00:00' AND t < '2023-05-01 00:00:00'", 2),
                              ("t = '2022-07-15 12:00:00.250'", 1),
                              ("t IN ('2022-01-15 12:00:00.25', '2023-12-15 12:00:00.250')", 2),
                              ("t > toDateTime64('2023-12-15 12:00:00.250', 3)", 0),
                              ("t > toDateTime('2023-11-30 00:00:00')", 1),
                              ("t > toDateTime64('2023-12-15 12:00:00.2501', 4)", 24)):
            with self.subTest(where=where):
                sql = "SELECT count(), sum(v) FROM p64 WHERE " + where
                result = self.client.execute(sql)
                full = self.client.execute(sql + " SETTINGS use_pruning = 0")
                self.assertEqual(result.output, full.output)
                self.assertEqual(result.progress["read_rows"], months * 2000)

    def test_date_range_reads_only_its_partitions(self):
        for where, months in (("d >= '2023-03-01' AND d < '2023-05-01'", 2),
                              ("d = '2022-07-15'", 1),
                              ("d IN ('2022-01-15', '2023-12-15')", 2),
                              ("d > '2023-12-15'", 0)):
            with self.subTest(where=where):
                sql = "SELECT count(), sum(v) FROM p WHERE " + where
                result = self.client.execute(sql)
                full = self.client.execute(sql + " SETTINGS use_pruning = 0")
                self.assertEqual(result.output, full.output)
                self.assertEqual(result.progress["read_rows"], months * 2000)


if __name__ == "__main__":
    testmain.main([ClickBenchPruningTest, PartitionPruningTest])
