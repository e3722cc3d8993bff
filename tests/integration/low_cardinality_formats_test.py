"""LowCardinality(String) columns through every input format and back, on 1 and 3 workers:

- TSV, CSV, JSONEachRow, VALUES and INSERT ... SELECT fill a LowCardinality(String) and a
  LowCardinality(Nullable(String)) column; the rows read back as strings, NULLs included.
- Native input as ClickHouse writes LowCardinality columns (bytes from chdb: a key version, index
  flags, the dictionary, then the indexes; key 0 is NULL for Nullable) reads the same, and a
  malformed index is INCORRECT_DATA (117), not a crash.
- DESCRIBE and SHOW CREATE TABLE name the declared types.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import grpc_case  # noqa: E402
import testmain  # noqa: E402

from granite_client import GraniteError  # noqa: E402

TABLE = "SELECT k, s, n FROM lct ORDER BY k FORMAT TSV"
EXPECTED = b"1\tBerlin\tDE\n2\tParis\t\\N\n3\tBerlin\t\n4\t\tIT\n"

# chdb: SELECT toUInt32(number + 1) AS k,
#   toLowCardinality(['Berlin','Paris','Berlin',''][number + 1]) AS s,
#   CAST([ 'DE', NULL, '', 'IT'][number + 1] AS LowCardinality(Nullable(String))) AS n
#   FROM numbers(4) FORMAT Native
NATIVE_QUERY = ("SELECT toUInt32(number + 1) AS k, "
                "toLowCardinality(['Berlin', 'Paris', 'Berlin', ''][number + 1]) AS s, "
                "CAST(['DE', NULL, '', 'IT'][number + 1] AS LowCardinality(Nullable(String))) AS n "
                "FROM numbers(4)")


class LowCardinalityFormatsTest(grpc_case.FormatsCase):
    TABLES = ("CREATE TABLE lct (k UInt32, s LowCardinality(String), "
              "n LowCardinality(Nullable(String))) ENGINE = MergeTree ORDER BY k",)

    def setUp(self):
        self.client.query("TRUNCATE TABLE lct")

    def test_text_formats_fill_low_cardinality_columns(self):
        inputs = {
            "TSV": b"1\tBerlin\tDE\n2\tParis\t\\N\n3\tBerlin\t\n4\t\tIT\n",
            "CSV": b'1,"Berlin","DE"\n2,"Paris",\\N\n3,"Berlin",""\n4,"","IT"\n',
            "JSONEachRow": b'{"k":1,"s":"Berlin","n":"DE"}\n{"k":2,"s":"Paris","n":null}\n'
                           b'{"k":3,"s":"Berlin","n":""}\n{"k":4,"s":"","n":"IT"}\n',
        }
        for fmt, data in inputs.items():
            self.client.query("TRUNCATE TABLE lct")
            self.client.query("INSERT INTO lct FORMAT " + fmt, input_data=data)
            self.assertEqual(self.client.query(TABLE), EXPECTED, fmt)
        self.client.query("TRUNCATE TABLE lct")
        self.client.query("INSERT INTO lct VALUES (1, 'Berlin', 'DE'), (2, 'Paris', NULL), "
                          "(3, 'Berlin', ''), (4, '', 'IT')")
        self.assertEqual(self.client.query(TABLE), EXPECTED)
        # INSERT ... SELECT from the table itself doubles its rows.
        self.client.query("INSERT INTO lct SELECT k + 10, s, n FROM lct")
        self.assertEqual(self.client.query(
            "SELECT s, count(), countIf(n IS NULL) FROM lct GROUP BY s ORDER BY s FORMAT TSV"),
            b"\t2\t0\nBerlin\t4\t0\nParis\t2\t2\n")

    def test_native_input_from_clickhouse(self):
        native = grpc_case.chdb_bytes(NATIVE_QUERY, "Native")
        if native is None:
            self.skipTest("chdb is not installed")
        self.assertIn(b"LowCardinality(Nullable(String))", native)
        self.client.query("INSERT INTO lct FORMAT Native", input_data=native)
        self.assertEqual(self.client.query(TABLE), EXPECTED)
        # An index past the dictionary: the last byte indexes the 4 keys of n.
        broken = native[:-1] + b"\x09"
        with self.assertRaises(GraniteError) as caught:
            self.client.query("INSERT INTO lct FORMAT Native", input_data=broken)
        self.assertEqual(caught.exception.code, 117)
        self.assertEqual(self.client.query("SELECT count() FROM lct FORMAT TSV"), b"4\n")

    def test_describe_and_show_create_name_declared_types(self):
        described = self.client.query("DESCRIBE TABLE lct FORMAT TSV").decode()
        types = [line.split("\t")[1] for line in described.splitlines()]
        self.assertEqual(types, ["UInt32", "LowCardinality(String)",
                                 "LowCardinality(Nullable(String))"])
        created = self.client.query("SHOW CREATE TABLE lct FORMAT TSV").decode()
        self.assertIn("`s` LowCardinality(String)", created.replace("\\n", "\n"))
        self.assertIn("`n` LowCardinality(Nullable(String))", created.replace("\\n", "\n"))


class LowCardinalityFormatsThreeWorkersTest(LowCardinalityFormatsTest):
    workers = 3


if __name__ == "__main__":
    testmain.main([LowCardinalityFormatsTest, LowCardinalityFormatsThreeWorkersTest])
