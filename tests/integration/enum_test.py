#!/usr/bin/env python3
"""Enum8 / Enum16 columns beyond what the SQL logic test (tests/sql/types/enum.test) can reach:

- Native input as ClickHouse writes enum columns (bytes from chdb: the type name with its
  definition, then Int8 / Int16 values) fills enum columns by name; a value whose name the table's
  enum lacks is UNKNOWN_ELEMENT_OF_ENUM (691) and the insert changes nothing.
- The definition survives a restart of every worker and of the coordinator (separate worker
  processes: the workers' schema files and the catalog they send back): SHOW CREATE TABLE, the
  names and comparisons with names are the same afterwards.
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import grpc_case  # noqa: E402
import testmain  # noqa: E402

from granite_client import GraniteError  # noqa: E402

UNKNOWN_ELEMENT_OF_ENUM = 691

TABLE = "SELECT k, e, n FROM en ORDER BY k FORMAT TSV"
EXPECTED = b"1\ta\tx\n2\tb\t\\N\n3\tit\\'s\ty\n"  # TSV escapes the quote

# chdb writes the enum columns as their type names plus values.
NATIVE_QUERY = ("SELECT toUInt32(number + 1) AS k, "
                "CAST(['a', 'b', 'it''s'][number + 1] AS Enum8('it''s' = -3, 'a' = 1, 'b' = 2)) AS e, "
                "CAST(['x', NULL, 'y'][number + 1] AS Nullable(Enum16('x' = 1000, 'y' = 2000))) AS n "
                "FROM numbers(3)")
# The same names under other values: the table's values are taken by name.
RENUMBERED_QUERY = ("SELECT toUInt32(number + 1) AS k, "
                    "CAST(['a', 'b', 'it''s'][number + 1] AS Enum8('a' = 10, 'b' = 20, 'it''s' = 30)) AS e, "
                    "CAST(['x', NULL, 'y'][number + 1] AS Nullable(Enum16('y' = 7, 'x' = 8))) AS n "
                    "FROM numbers(3)")
UNKNOWN_QUERY = ("SELECT toUInt32(9) AS k, CAST('q' AS Enum8('q' = 1)) AS e, "
                 "CAST(NULL AS Nullable(Enum16('x' = 1000))) AS n")

CREATE = ("CREATE TABLE en (k UInt32, e Enum8('it''s' = -3, 'a' = 1, 'b' = 2), "
          "n Nullable(Enum16('x' = 1000, 'y' = 2000))) ENGINE = MergeTree ORDER BY k")


class EnumNativeInputTest(grpc_case.FormatsCase):
    TABLES = (CREATE,)

    def setUp(self):
        self.client.query("TRUNCATE TABLE en")

    def native(self, query):
        data = grpc_case.chdb_bytes(query, "Native")
        if data is None:
            self.skipTest("chdb is not installed")
        return data

    def test_native_enum_columns_fill_by_name(self):
        native = self.native(NATIVE_QUERY)
        self.assertIn(b"Enum8(", native)
        self.client.query("INSERT INTO en FORMAT Native", input_data=native)
        self.assertEqual(self.client.query(TABLE), EXPECTED)
        self.client.query("TRUNCATE TABLE en")
        self.client.query("INSERT INTO en FORMAT Native", input_data=self.native(RENUMBERED_QUERY))
        self.assertEqual(self.client.query(TABLE), EXPECTED)
        self.assertEqual(self.client.query(
            "SELECT toInt8(e), toInt16(n) FROM en ORDER BY k FORMAT TSV"),
            b"1\t1000\n2\t\\N\n-3\t2000\n")

    def test_native_unknown_name_changes_nothing(self):
        self.client.query("INSERT INTO en FORMAT Native", input_data=self.native(NATIVE_QUERY))
        with self.assertRaises(GraniteError) as caught:
            self.client.query("INSERT INTO en FORMAT Native", input_data=self.native(UNKNOWN_QUERY))
        self.assertEqual(caught.exception.code, UNKNOWN_ELEMENT_OF_ENUM)
        self.assertIn("'q'", str(caught.exception))
        self.assertEqual(self.client.query("SELECT count() FROM en FORMAT TSV"), b"3\n")


class EnumNativeInputThreeWorkersTest(EnumNativeInputTest):
    workers = 3


class EnumRestartTest(unittest.TestCase):
    def setUp(self):
        self.cluster = cluster.SplitCluster(testmain.granite(), workers=2).start()
        self.addCleanup(self.cluster.stop)
        self.client = self.cluster.client(timeout=60)
        self.addCleanup(lambda: self.client.close())

    def test_definition_survives_a_restart(self):
        q = self.client.query
        q(CREATE)
        q("INSERT INTO en VALUES (1, 'a', 'x'), (2, 'b', NULL), (3, 'it''s', 2000)")
        q("ALTER TABLE en MODIFY COLUMN e Enum8('it''s' = -3, 'a' = 1, 'b' = 2, 'c' = 3)")
        q("INSERT INTO en VALUES (4, 'c', 'y')")
        create = self.client.query_text("SHOW CREATE TABLE en")
        rows = self.client.query_text("SELECT k, e, n FROM en ORDER BY k")
        self.assertIn("Enum8(\\'it\\\\\\'s\\' = -3, \\'a\\' = 1, \\'b\\' = 2, \\'c\\' = 3)", create)
        for i in range(len(self.cluster.workers)):
            self.cluster.restart_worker(i)
        self.cluster.restart_coordinator()
        self.client.close()
        self.client = self.cluster.client(timeout=60)
        cluster.wait_for_all_workers(self.client)
        self.assertEqual(self.client.query_text("SHOW CREATE TABLE en"), create)
        self.assertEqual(self.client.query_text("SELECT k, e, n FROM en ORDER BY k"), rows)
        self.assertEqual(self.client.query_text(
            "SELECT k FROM en WHERE e >= 'b' ORDER BY k"), "2\n4\n")


if __name__ == "__main__":
    testmain.main([EnumNativeInputTest, EnumNativeInputThreeWorkersTest, EnumRestartTest])
