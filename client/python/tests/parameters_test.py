#!/usr/bin/env python3
"""Tests of server-side parameter binding in the granite_client package (parameters.py), against
the scriptable fake server in tests/harness (no granite build needed): the text of each value as
a param_<name> setting, the types inferred for DB-API parameters, pyformat placeholders rewritten
to {name:Type}, and that Client.query(parameters=...) and cursor.execute(sql, params) send values
only as settings, never in the query text."""

import datetime
import decimal
import os
import sys
import unittest

PKG_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(os.path.dirname(PKG_ROOT))
sys.path.insert(0, PKG_ROOT)
sys.path.insert(0, os.path.join(REPO, "tests", "harness"))
import fake_server  # noqa: E402
import granite_client  # noqa: E402
import testmain  # noqa: E402
from granite_client import dbapi  # noqa: E402
from granite_client.parameters import (infer_type, param_settings,  # noqa: E402
                                       pyformat_to_server, value_text)


class ValueTextTest(unittest.TestCase):
    def test_values_as_tab_separated_fields(self):
        self.assertEqual(value_text(5), "5")
        self.assertEqual(value_text(-5), "-5")
        self.assertEqual(value_text(True), "1")
        self.assertEqual(value_text(0.1), "0.1")
        self.assertEqual(value_text(None), "\\N")
        self.assertEqual(value_text("it's\ta\\b\nc"), "it's\\ta\\\\b\\nc")
        self.assertEqual(value_text(b"raw"), "raw")
        self.assertEqual(value_text(decimal.Decimal("-1.50")), "-1.50")
        self.assertEqual(value_text(decimal.Decimal("1E+3")), "1000")
        self.assertEqual(value_text(datetime.date(2024, 2, 29)), "2024-02-29")
        self.assertEqual(value_text(datetime.datetime(2024, 2, 29, 1, 2, 3)),
                         "2024-02-29 01:02:03")
        self.assertEqual(value_text(datetime.datetime(2024, 2, 29, 1, 2, 3, 450000)),
                         "2024-02-29 01:02:03.450000")
        aware = datetime.datetime(2024, 1, 1, 2, 0, tzinfo=datetime.timezone(
            datetime.timedelta(hours=2)))
        self.assertEqual(value_text(aware), "2024-01-01 00:00:00")  # as UTC
        self.assertEqual(value_text([1, "a'b", None]), "[1,'a\\'b',NULL]")
        self.assertEqual(param_settings({"x": 5, "s": "a"}), {"param_x": "5", "param_s": "a"})

    def test_inferred_types(self):
        self.assertEqual(infer_type(1), "Int64")
        self.assertEqual(infer_type(-(1 << 63)), "Int64")
        self.assertEqual(infer_type(1 << 63), "UInt64")
        with self.assertRaises(ValueError):
            infer_type(1 << 64)
        self.assertEqual(infer_type(True), "UInt8")
        self.assertEqual(infer_type(1.5), "Float64")
        self.assertEqual(infer_type("s"), "String")
        self.assertEqual(infer_type(b"s"), "String")
        self.assertEqual(infer_type(decimal.Decimal("-12.340")), "Decimal(5, 3)")
        self.assertEqual(infer_type(decimal.Decimal("1E+3")), "Decimal(4, 0)")
        self.assertEqual(infer_type(decimal.Decimal("0.001")), "Decimal(4, 3)")
        self.assertEqual(infer_type(datetime.date(2024, 1, 1)), "Date")
        self.assertEqual(infer_type(datetime.datetime(2024, 1, 1)), "DateTime")
        self.assertEqual(infer_type(datetime.datetime(2024, 1, 1, 0, 0, 0, 1)), "DateTime64(6)")
        self.assertEqual(infer_type([1, 2]), "Array(Int64)")

    def test_pyformat_placeholders_become_server_parameters(self):
        sql, settings = pyformat_to_server(
            "SELECT %(a)s, %(b)s, '100%%', %(a)s", {"a": 1, "b": "x'); DROP TABLE t; --"})
        self.assertEqual(sql, "SELECT {a:Int64}, {b:String}, '100%', {a:Int64}")
        self.assertEqual(settings, {"param_a": "1", "param_b": "x'); DROP TABLE t; --"})
        sql, settings = pyformat_to_server("SELECT %s + %s, %s", (1, 2.5, None))
        self.assertEqual(sql, "SELECT {p0:Int64} + {p1:Float64}, NULL")
        self.assertEqual(settings, {"param_p0": "1", "param_p1": "2.5"})
        self.assertEqual(pyformat_to_server("SELECT '50%'", None), ("SELECT '50%'", {}))
        for operation, params in (("SELECT %s, %s", (1,)), ("SELECT %s", (1, 2)),
                                  ("SELECT %(a)s", {"b": 1}), ("SELECT %d", (1,)),
                                  ("SELECT %(a)s", (1,)), ("SELECT %s", {"a": 1})):
            with self.assertRaises((KeyError, TypeError, ValueError), msg=operation):
                pyformat_to_server(operation, params)


class ParametersOnTheWireTest(fake_server.FakeServerCase):

    def test_client_sends_parameters_as_settings(self):
        self.fake.answers["SELECT {x:UInt64}"] = b"5\n"
        with granite_client.connect("127.0.0.1", self.port, timeout=10,
                                    settings={"max_threads": 2}) as client:
            self.assertEqual(client.query("SELECT {x:UInt64}", parameters={"x": 5}), b"5\n")
            client.stream("SELECT {x:UInt64}", parameters={"x": "a\tb"}).result()
        (_, [unary]), (_, [streamed, *_]) = self.fake.calls
        self.assertEqual(unary.query, "SELECT {x:UInt64}")
        self.assertEqual(dict(unary.settings), {"max_threads": "2", "param_x": "5"})
        self.assertEqual(dict(streamed.settings)["param_x"], "a\\tb")

    def test_cursor_binds_on_the_server(self):
        secret = "Robert'); DROP TABLE students; --"
        sent = "SELECT {name:String} AS n, {k:Int64} AS k"
        self.fake.answers[sent] = b""
        with dbapi.connect(port=self.port, timeout=10) as conn:
            cursor = conn.cursor()
            cursor.execute("SELECT %(name)s AS n, %(k)s AS k", {"name": secret, "k": 7})
            self.assertEqual(cursor.fetchall(), [])
            with self.assertRaises(dbapi.ProgrammingError):
                cursor.execute("SELECT %(missing)s", {"other": 1})
        method, infos = self.fake.calls[0]
        self.assertEqual(method, "ExecuteQueryWithStreamIO")
        self.assertEqual(infos[0].query, sent)
        self.assertNotIn("DROP", infos[0].query)
        self.assertEqual(infos[0].settings["param_name"], secret)
        self.assertEqual(infos[0].settings["param_k"], "7")
        self.assertEqual(infos[0].output_format, "RowBinaryWithNamesAndTypes")


if __name__ == "__main__":
    testmain.main([ValueTextTest, ParametersOnTheWireTest])
