#!/usr/bin/env python3
r"""Issue 22: Array(T) columns in every output format and in the input formats, byte for byte as
ClickHouse writes them (chdb), on 1 and 3 workers:

- text formats print an array as [e1,e2] with its elements quoted as in SQL ('x\'y', NULL,
  '2024-01-02'); CSV wraps that text in one quoted field; JSON formats print JSON arrays.
- RowBinary writes an element count (varint) then the elements; Native the rows' UInt64 end
  offsets, then the elements as a column (a Nullable element's null map first).
- Native input written by ClickHouse, and TSV, CSV and JSONEachRow as printed, read back the same.
- The Python client decodes arrays: DB-API rows (RowBinary) and query_df (Native).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import grpc_case  # noqa: E402
import testmain  # noqa: E402
from granite_client import dbapi  # noqa: E402

SAMPLE = ("SELECT number AS k, range(number + 1) AS a, "
          "if(number = 1, ['x\\'y', NULL], CAST([] AS Array(Nullable(String)))) AS s, "
          "[[toInt64(number)], []] AS n, [toDate('2024-01-02') + number] AS d "
          "FROM numbers(2)")
# The same rows through a table (inserted from ClickHouse's Native bytes).
TABLE_SAMPLE = "SELECT k, a, s, n, d FROM at ORDER BY k"

EXPECTED = {
    "RowBinary":
        b"\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x01\x00"
        b"\x00\x00\x00\x00\x00\x00\x00\x00\x01\x0cM\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00"
        b"\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x03x'y\x01\x02\x01"
        b"\x01\x00\x00\x00\x00\x00\x00\x00\x00\x01\rM",
    "Native":
        b"\x05\x02\x01k\x06UInt64\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00"
        b"\x00\x01a\rArray(UInt64)\x01\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00"
        b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00"
        b"\x00\x00\x00\x00\x01s\x17Array(Nullable(String))\x00\x00\x00\x00\x00\x00\x00\x00\x02"
        b"\x00\x00\x00\x00\x00\x00\x00\x00\x01\x03x'y\x00\x01n\x13Array(Array(Int64))\x02\x00"
        b"\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00"
        b"\x00\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00"
        b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01d"
        b"\x0bArray(Date)\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x0cM\rM",
    "TSV": b"0\t[0]\t[]\t[[0],[]]\t['2024-01-02']\n"
           b"1\t[0,1]\t['x\\'y',NULL]\t[[1],[]]\t['2024-01-03']\n",
    "CSV": b'0,"[0]","[]","[[0],[]]","[\'2024-01-02\']"\n'
           b'1,"[0,1]","[\'x\\\'y\',NULL]","[[1],[]]","[\'2024-01-03\']"\n',
    "JSONEachRow": b'{"k":0,"a":[0],"s":[],"n":[[0],[]],"d":["2024-01-02"]}\n'
                   b'{"k":1,"a":[0,1],"s":["x\'y",null],"n":[[1],[]],"d":["2024-01-03"]}\n',
    "JSONCompactEachRow": b'[0, [0], [], [[0],[]], ["2024-01-02"]]\n'
                          b'[1, [0,1], ["x\'y",null], [[1],[]], ["2024-01-03"]]\n',
    "Values": b"(0,[0],[],[[0],[]],['2024-01-02']),(1,[0,1],['x\\'y',NULL],[[1],[]],['2024-01-03'])",
    "TSKV": b"k=0\ta=[0]\ts=[]\tn=[[0],[]]\td=['2024-01-02']\n"
            b"k=1\ta=[0,1]\ts=['x\\'y',NULL]\tn=[[1],[]]\td=['2024-01-03']\n",
    "Markdown": b"| k | a | s | n | d |\n|-:|:-|:-|:-|:-|\n"
                b"| 0 | [0] | [] | [[0],[]] | ['2024-01-02'] |\n"
                b"| 1 | [0,1] | ['x\\'y',NULL] | [[1],[]] | ['2024-01-03'] |\n",
    "Vertical": b"Row 1:\n\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\n"
                b"k: 0\na: [0]\ns: []\nn: [[0],[]]\nd: ['2024-01-02']\n\n"
                b"Row 2:\n\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\n"
                b"k: 1\na: [0,1]\ns: ['x\\'y',NULL]\nn: [[1],[]]\nd: ['2024-01-03']\n",
}


class ArrayFormatsTest(grpc_case.FormatsCase):
    TABLES = ("CREATE TABLE at (k UInt64, a Array(UInt64), s Array(Nullable(String)), "
              "n Array(Array(Int64)), d Array(Date)) ENGINE = MergeTree ORDER BY k",)

    def setUp(self):
        self.client.query("TRUNCATE TABLE at")

    def test_native_input_from_clickhouse_and_every_output_format(self):
        self.client.query("INSERT INTO at FORMAT Native", input_data=EXPECTED["Native"])
        self.assert_formats_match(TABLE_SAMPLE, EXPECTED, chdb_sample=SAMPLE)

    def test_text_inputs_read_back_what_they_print(self):
        for fmt in ("TSV", "CSV", "JSONEachRow"):
            self.client.query("TRUNCATE TABLE at")
            self.client.query("INSERT INTO at FORMAT " + fmt, input_data=EXPECTED[fmt])
            self.assertEqual(self.client.query(TABLE_SAMPLE, format="TSV"), EXPECTED["TSV"], fmt)

    def test_python_client_decodes_arrays(self):
        self.client.query("INSERT INTO at FORMAT Native", input_data=EXPECTED["Native"])
        with dbapi.connect(port=self.cluster.port, timeout=60) as conn:
            cursor = conn.cursor()
            cursor.execute(TABLE_SAMPLE)
            rows = cursor.fetchall()
        self.assertEqual([list(r)[:4] for r in rows],
                         [[0, [0], [], [[0], []]], [1, [0, 1], ["x'y", None], [[1], []]]])
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("pandas is not installed (scripts/make-venv.sh)")
        frame = self.client.query_df(TABLE_SAMPLE)
        self.assertEqual(list(frame["a"]), [[0], [0, 1]])
        self.assertEqual(list(frame["s"]), [[], ["x'y", None]])


    def test_json_writes_compound_values_one_element_per_line(self):
        # The JSON format puts each element of a tuple, a map, an array of tuples or of arrays
        # on its own line one tab deeper (scalar arrays and empty ones stay on one line);
        # JSONCompact and JSONEachRow keep everything on one line.
        query = ("SELECT number AS k, (number, 'x') AS u, map('k', number, 'l', 2) AS m, "
                 "CAST(arrayMap(x -> (x, toString(x)), range(number)) "
                 "AS Array(Tuple(a UInt8, b String))) AS c, "
                 "((number, 'a'), [number]) AS nt, map('k', [number]) AS ma, [[number], []] AS aa, "
                 "tuple() AS z "
                 "FROM numbers(2) ORDER BY k SETTINGS output_format_write_statistics = 0")
        for fmt in ("JSON", "JSONCompact", "JSONEachRow"):
            want = grpc_case.chdb_bytes(query, fmt)
            if want is None:
                self.skipTest("chdb is not installed (scripts/make-venv.sh --bench)")
            self.assertEqual(self.client.query(query, format=fmt), want, fmt)


class ArrayFormatsThreeWorkersTest(ArrayFormatsTest):
    workers = 3


if __name__ == "__main__":
    testmain.main([ArrayFormatsTest, ArrayFormatsThreeWorkersTest])
