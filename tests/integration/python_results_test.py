#!/usr/bin/env python3
"""Issue 24: the granite_client Python package's typed results and server-side parameters against
granite local (1 worker).

- Client.query(sql, parameters={...}) and DB-API cursor.execute(sql, params) (pyformat) bind on
  the server: the values travel as param_<name> settings and never appear in the query text
  (system.query_log keeps the text as sent); a value that would break quoting is just data.
- cursor.description: names and ClickHouse types, a Decimal's precision and scale, Nullable.
- query_df() (pandas) and query_arrow() (pyarrow), decoded from Native with numpy, for every
  type granite has: integers, floats, String, Date, DateTime, Decimal(9/18/38), Nullable; NULLs;
  an empty result keeps its columns; a 1,000,000-row result.
Skips the DataFrame parts without pandas / pyarrow (scripts/make-venv.sh installs them).
"""

import datetime
import decimal
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

from granite_client import dbapi  # noqa: E402

TIMEOUT = 120
D = decimal.Decimal
TABLE = """CREATE TABLE typed (i8 Int8, u64 UInt64, i64 Int64, f32 Float32, f64 Float64, s String,
    d Date, dt DateTime, d9 Decimal(9, 2), d18 Decimal(18, 4), d38 Decimal(38, 10),
    ni Nullable(Int32), ns Nullable(String), nd Nullable(Date), nf Nullable(Float64),
    ndec Nullable(Decimal(10, 3))) ENGINE = MergeTree ORDER BY u64"""
ROWS = [
    (-1, 18446744073709551615, -9223372036854775808, 1.5, 2.25, "x", datetime.date(2024, 1, 2),
     datetime.datetime(2024, 1, 2, 3, 4, 5), D("1.25"), D("-3.1416"),
     D("12345678901234567890.0123456789"), None, None, None, None, None),
    (2, 0, 9223372036854775807, -0.5, 1e100, "ü\ttab", datetime.date(1970, 1, 1),
     datetime.datetime(1970, 1, 1), D("-0.01"), D("0.0000"), D("-1.0000000000"), 7, "y",
     datetime.date(2000, 3, 4), 0.5, D("-1.500")),
]
NAMES = ["i8", "u64", "i64", "f32", "f64", "s", "d", "dt", "d9", "d18", "d38", "ni", "ns", "nd",
         "nf", "ndec"]


class PythonResultsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=1).start()
        cls.client = cls.cluster.client(timeout=TIMEOUT)
        cls.client.query(TABLE)
        # Inserted through the DB-API's server-side parameters: every value is a param_ setting.
        placeholders = ", ".join("%s" for _ in NAMES)
        with dbapi.connect(port=cls.cluster.port, timeout=TIMEOUT) as conn:
            cursor = conn.cursor()
            for row in ROWS:
                cursor.execute("INSERT INTO typed VALUES (%s)" % placeholders, row)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.stop()

    def test_client_parameters_are_settings_not_text(self):
        hostile = "x'); DROP TABLE typed; --\t\\"
        out = self.client.query("SELECT {v:String} AS v, {n:UInt64} + 1, {d:Date}, "
                                "{z:Nullable(Int8)}", query_id="py-params",
                                parameters={"v": hostile, "n": 5,
                                            "d": datetime.date(2024, 2, 29), "z": None})
        self.assertEqual(out, b"x\\'); DROP TABLE typed; --\\t\\\\\t6\t2024-02-29\t\\N\n")
        logged = self.client.query_text("SELECT query FROM system.query_log "
                                        "WHERE query_id = 'py-params'")
        self.assertIn("{v:String}", logged)
        self.assertNotIn("DROP", logged)
        self.assertEqual(self.client.query_text("SELECT count() FROM typed"), "2\n")

    def test_dbapi_rows_and_description(self):
        with dbapi.connect(port=self.cluster.port, timeout=TIMEOUT) as conn:
            cursor = conn.cursor()
            cursor.execute("SELECT * FROM typed WHERE u64 >= %(low)s ORDER BY u64 DESC",
                           {"low": 0})
            self.assertEqual([d[0] for d in cursor.description], NAMES)
            self.assertEqual(cursor.description[1][:2], ("u64", "UInt64"))
            self.assertEqual(cursor.description[10], ("d38", "Decimal(38, 10)", None, None, 38,
                                                      10, False))
            self.assertEqual(cursor.description[15][1:], ("Nullable(Decimal(10, 3))", None, None,
                                                          10, 3, True))
            self.assertEqual(cursor.fetchall(), ROWS)
            cursor.execute("SELECT s FROM typed WHERE s = %s OR d = %s ORDER BY s",
                           ("ü\ttab", datetime.date(2024, 1, 2)))
            self.assertEqual(cursor.fetchall(), [("x",), ("ü\ttab",)])

    def test_query_df(self):
        try:
            import pandas as pd
        except ImportError:
            self.skipTest("pandas is not installed (scripts/make-venv.sh)")
        frame = self.client.query_df("SELECT * FROM typed WHERE u64 >= {low:UInt64} "
                                     "ORDER BY u64 DESC", parameters={"low": 0})
        self.assertEqual(list(frame.columns), NAMES)
        dtypes = {n: str(t) for n, t in frame.dtypes.items()}
        self.assertEqual([dtypes[n] for n in ("i8", "u64", "i64", "f32", "f64", "ni", "nf")],
                         ["int8", "uint64", "int64", "float32", "float64", "Int32", "Float64"])
        self.assertTrue(dtypes["d"].startswith("datetime64") and
                        dtypes["dt"].startswith("datetime64"))
        for r, row in enumerate(ROWS):
            for name, value in zip(NAMES, row):
                cell = frame[name].iloc[r]
                if value is None:
                    self.assertTrue(pd.isna(cell), (name, cell))
                elif isinstance(value, datetime.date):
                    self.assertEqual(pd.Timestamp(cell), pd.Timestamp(value), name)
                else:
                    self.assertEqual(cell, value, name)
        empty = self.client.query_df("SELECT u64, ns FROM typed WHERE u64 = 42")
        self.assertEqual((list(empty.columns), len(empty)), (["u64", "ns"], 0))
        big = self.client.query_df("SELECT number, toString(number) AS s FROM numbers(1000000)")
        self.assertEqual(len(big), 1000000)
        self.assertEqual(int(big["number"].sum()), 999999 * 1000000 // 2)
        self.assertEqual(big["s"].iloc[123456], "123456")

    def test_query_arrow(self):
        try:
            import pyarrow as pa
        except ImportError:
            self.skipTest("pyarrow is not installed (scripts/make-venv.sh)")
        table = self.client.query_arrow("SELECT * FROM typed ORDER BY u64 DESC")
        self.assertEqual(table.column_names, NAMES)
        self.assertEqual(table.schema.field("u64").type, pa.uint64())
        self.assertEqual(table.schema.field("d").type, pa.date32())
        self.assertEqual(table.schema.field("d38").type, pa.decimal128(38, 10))
        self.assertEqual(table.schema.field("ni").type, pa.int32())
        self.assertEqual(table.to_pylist(), [dict(zip(NAMES, row)) for row in ROWS])
        empty = self.client.query_arrow("SELECT d9 FROM typed WHERE u64 = 42")
        self.assertEqual((empty.column_names, empty.num_rows), (["d9"], 0))
        self.assertEqual(empty.schema.field("d9").type, pa.decimal128(9, 2))


if __name__ == "__main__":
    testmain.main([PythonResultsTest])
