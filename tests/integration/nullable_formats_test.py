#!/usr/bin/env python3
r"""Issue 22: Nullable columns in every output format and in the binary input, byte for byte as
ClickHouse writes them (chdb), on 1 and 3 workers:

- text formats print NULL as ClickHouse does (TSV/CSV/TSKV/Markdown \N, JSON null, Values NULL,
  Pretty/Vertical ᴺᵁᴸᴸ); RowBinary prefixes each Nullable value with a null byte; Native sends the
  null map before the values.
- Native input written by ClickHouse round-trips through a Nullable table; the NULLs of a
  WithNamesAndTypes header come back.
- NULL into a column that is not Nullable: its default with input_format_null_as_default = 1;
  with 0, ClickHouse's errors (\N does not parse: 27; VALUES: 53; JSON's null stays a default).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import grpc_case  # noqa: E402
import testmain  # noqa: E402

from granite_client import GraniteError  # noqa: E402

SAMPLE = ("SELECT if(number = 1, NULL, toUInt32(number)) AS a, "
          "if(number = 0, NULL, toString(number)) AS s FROM numbers(3)")
TABLE_SAMPLE = "SELECT a, s FROM nt ORDER BY k"

NULL = "ᴺᵁᴸᴸ".encode()
EXPECTED = {
    "RowBinary": b"\x00\x00\x00\x00\x00\x01\x01\x00\x011\x00\x02\x00\x00\x00\x00\x012",
    "RowBinaryWithNamesAndTypes":
        b"\x02\x01a\x01s\x10Nullable(UInt32)\x10Nullable(String)"
        b"\x00\x00\x00\x00\x00\x01\x01\x00\x011\x00\x02\x00\x00\x00\x00\x012",
    "Native": b"\x02\x03\x01a\x10Nullable(UInt32)\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00"
              b"\x02\x00\x00\x00\x01s\x10Nullable(String)\x01\x00\x00\x00\x011\x012",
    "TSV": b"0\t\\N\n\\N\t1\n2\t2\n",
    "TSVWithNamesAndTypes": b"a\ts\nNullable(UInt32)\tNullable(String)\n0\t\\N\n\\N\t1\n2\t2\n",
    "CSV": b'0,\\N\n\\N,"1"\n2,"2"\n',
    "JSONEachRow": b'{"a":0,"s":null}\n{"a":null,"s":"1"}\n{"a":2,"s":"2"}\n',
    "JSONCompactEachRow": b'[0, null]\n[null, "1"]\n[2, "2"]\n',
    "Values": b"(0,NULL),(NULL,'1'),(2,'2')",
    "Markdown": b"| a | s |\n|-:|:-|\n| 0 | \\N |\n| \\N | 1 |\n| 2 | 2 |\n",
    "TSKV": b"a=0\ts=\\N\na=\\N\ts=1\na=2\ts=2\n",
    # Without row numbers (granite does not print them; recent ClickHouse does).
    "PrettyCompact": "┌────a─┬─s────┐\n│    0 │ ᴺᵁᴸᴸ │\n│ ᴺᵁᴸᴸ │ 1    │\n"
                     "│    2 │ 2    │\n└──────┴──────┘\n".encode(),
    "Vertical": "Row 1:\n──────\na: 0\ns: ᴺᵁᴸᴸ\n\nRow 2:\n──────\na: ᴺᵁᴸᴸ\ns: 1\n\n"
                "Row 3:\n──────\na: 2\ns: 2\n".encode(),
}


class NullableFormatsTest(grpc_case.FormatsCase):
    TABLES = ("CREATE TABLE nt (k UInt32, a Nullable(UInt32), s Nullable(String)) "
              "ENGINE = MergeTree ORDER BY k",
              "CREATE TABLE plain (k UInt32, v Int32, s String) ENGINE = MergeTree ORDER BY k")

    def test_output_formats_match_clickhouse(self):
        self.assert_formats_match(
            SAMPLE, EXPECTED, SAMPLE + " SETTINGS output_format_pretty_row_numbers = 0")

    def test_native_input_from_clickhouse_round_trips(self):
        self.client.query("TRUNCATE TABLE nt")
        native = (b"\x03\x03\x01k\x06UInt32\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00"
                  + EXPECTED["Native"][2:])
        self.client.query("INSERT INTO nt FORMAT Native", input_data=native)
        self.assertEqual(self.client.query(TABLE_SAMPLE, format="Native"), EXPECTED["Native"])
        self.assertEqual(self.client.query(TABLE_SAMPLE, format="RowBinary"),
                         EXPECTED["RowBinary"])
        # A text round trip: what TSV printed reads back the same.
        self.client.query("TRUNCATE TABLE nt")
        self.client.query("INSERT INTO nt FORMAT TSV",
                          input_data=b"0\t0\t\\N\n1\t\\N\t1\n2\t2\t2\n")
        self.assertEqual(self.client.query(TABLE_SAMPLE, format="TSV"), EXPECTED["TSV"])

    def test_null_into_a_column_that_is_not_nullable(self):
        self.client.query("INSERT INTO plain FORMAT TSV", input_data=b"1\t\\N\t\\N\n")
        self.client.query('INSERT INTO plain FORMAT JSONEachRow',
                          input_data=b'{"k": 2, "v": null, "s": null}\n')
        self.assertEqual(self.client.query("SELECT k, v, s FROM plain ORDER BY k"),
                         b"1\t0\t\n2\t0\t\n")
        # With input_format_null_as_default = 0, ClickHouse cannot parse \N as an Int32 (27),
        # refuses NULL in VALUES (53) and still takes JSON's null as the default.
        for fmt, data in (("TSV", b"3\t\\N\tx\n"), ("CSV", b"3,\\N,x\n")):
            with self.assertRaises(GraniteError) as caught:
                self.client.query("INSERT INTO plain FORMAT " + fmt, input_data=data,
                                  settings={"input_format_null_as_default": "0"})
            self.assertEqual(caught.exception.code, 27, fmt)
        with self.assertRaises(GraniteError) as caught:
            self.client.query("INSERT INTO plain VALUES (3, NULL, 'x')",
                              settings={"input_format_null_as_default": "0"})
        self.assertEqual(caught.exception.code, 53)
        self.client.query("INSERT INTO plain FORMAT JSONEachRow",
                          input_data=b'{"k": 3, "v": null}\n',
                          settings={"input_format_null_as_default": "0"})
        self.assertEqual(self.client.query("SELECT k, v, s FROM plain ORDER BY k"),
                         b"1\t0\t\n2\t0\t\n3\t0\t\n")


class NullableFormatsThreeWorkersTest(NullableFormatsTest):
    workers = 3


if __name__ == "__main__":
    testmain.main([NullableFormatsTest, NullableFormatsThreeWorkersTest])
