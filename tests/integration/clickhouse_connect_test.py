#!/usr/bin/env python3
"""Issue 24 ("Done when"): clickhouse-connect (PyPI, from the venv) runs a scripted session against
the HTTP interface of granite local (1 worker) through its public API only, nothing
granite-specific: DDL, an insert (Native), queries with column names and types, a server-side
parameter, two more output formats (CSVWithNames and JSONEachRow through raw_query), an error with
its ClickHouse code, a long query cancelled with KILL QUERY from a second client, and a
10,000,000-row result streamed in blocks and read to the end (its row count and sum asserted,
never its speed). Skipped when clickhouse-connect is not installed.
"""

import datetime
import json
import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

TIMEOUT = 120  # seconds, per wait
ROWS = 10_000_000


class ClickHouseConnectTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        try:
            import clickhouse_connect
        except ImportError:
            raise unittest.SkipTest("clickhouse-connect is not in the venv (scripts/make-venv.sh)")
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=1).start()
        cls.connect = staticmethod(lambda: clickhouse_connect.get_client(
            host=cls.cluster.host, port=cls.cluster.http_port, send_receive_timeout=TIMEOUT))
        cls.client = cls.connect()

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.stop()

    def test_1_ddl_insert_and_queries(self):
        client = self.client
        client.command("CREATE TABLE events (id UInt64, name String, v Float64, d Date, "
                       "n Nullable(Int32)) ENGINE = MergeTree ORDER BY id")
        data = [[i, "n%d" % i, i / 4, datetime.date(2024, 1, 1 + i % 28),
                 None if i % 3 == 0 else -i] for i in range(1000)]
        summary = client.insert("events", data, column_names=["id", "name", "v", "d", "n"])
        self.assertEqual(summary.written_rows, 1000)
        result = client.query("SELECT id, name, v, d, n FROM events ORDER BY id")
        self.assertEqual(result.column_names, ("id", "name", "v", "d", "n"))
        self.assertEqual([t.name for t in result.column_types],
                         ["UInt64", "String", "Float64", "Date", "Nullable(Int32)"])
        self.assertEqual([list(r) for r in result.result_rows], data)
        self.assertEqual(client.command("SELECT count() FROM events"), 1000)
        # A server-side parameter ({name:Type} travels as param_name, not spliced into the text).
        rows = client.query("SELECT name FROM events WHERE id = {wanted:UInt64}",
                            parameters={"wanted": 7}).result_rows
        self.assertEqual(rows, [("n7",)])
        tricky = "it's\ta \\ back\nslash"
        self.assertEqual(client.query("SELECT {s:String}", parameters={"s": tricky}).result_rows,
                         [(tricky,)])

    def test_2_other_formats(self):
        self.client.command("CREATE TABLE kv (k UInt32, v String) ENGINE = MergeTree ORDER BY k")
        self.client.insert("kv", [[1, "one"], [2, "two, too"]], column_names=["k", "v"])
        csv = self.client.raw_query("SELECT k, v FROM kv ORDER BY k", fmt="CSVWithNames")
        self.assertEqual(csv, b'"k","v"\n1,"one"\n2,"two, too"\n')
        each = self.client.raw_query("SELECT k, v FROM kv ORDER BY k", fmt="JSONEachRow")
        self.assertEqual([json.loads(line) for line in each.splitlines()],
                         [{"k": 1, "v": "one"}, {"k": 2, "v": "two, too"}])

    def test_2b_array_columns_round_trip_in_native(self):
        # clickhouse-connect inserts and reads Array columns in Native (offsets, then elements).
        self.client.command("CREATE TABLE arrays (k UInt32, a Array(UInt32), "
                            "s Array(Nullable(String)), n Array(Array(Int64))) "
                            "ENGINE = MergeTree ORDER BY k")
        data = [[1, [1, 2, 3], ["x", None], [[1], []]], [2, [], [], []],
                [3, [7], ["it's"], [[-5, 6]]]]
        self.client.insert("arrays", data, column_names=["k", "a", "s", "n"])
        result = self.client.query("SELECT k, a, s, n FROM arrays ORDER BY k")
        self.assertEqual([t.name for t in result.column_types],
                         ["UInt32", "Array(UInt32)", "Array(Nullable(String))",
                          "Array(Array(Int64))"])
        self.assertEqual([list(r) for r in result.result_rows], data)
        self.assertEqual(self.client.query("SELECT [1, 2], ['a']").result_rows, [([1, 2], ["a"])])
        values = self.client.raw_query("SELECT a, s FROM arrays WHERE k = 3", fmt="Values")
        self.assertEqual(values, b"([7],['it\\'s'])")

    def test_2c_tuple_and_map_columns_round_trip_in_native(self):
        # Tuple and Map columns travel in Native as ClickHouse's: a named tuple's element columns
        # in turn, a map as its offsets, keys and values; the table stores their subcolumns.
        self.client.command("CREATE TABLE compound (k UInt32, t Tuple(a UInt8, b String), "
                            "m Map(String, Array(Int64)), u Tuple(Int32, Nullable(String))) "
                            "ENGINE = MergeTree ORDER BY k")
        data = [[1, (1, "x"), {"p": [1, 2], "q": []}, (5, None)],
                [2, (2, "it's"), {}, (-6, "z")]]
        self.client.insert("compound", data, column_names=["k", "t", "m", "u"])
        result = self.client.query("SELECT k, t, m, u FROM compound ORDER BY k")
        self.assertEqual([t.name for t in result.column_types],
                         ["UInt32", "Tuple(`a` UInt8, `b` String)", "Map(String, Array(Int64))",
                          "Tuple(Int32, Nullable(String))"])
        self.assertEqual([r[2] for r in result.result_rows], [d[2] for d in data])
        self.assertEqual([tuple(r[3]) for r in result.result_rows], [d[3] for d in data])
        # clickhouse-connect reads a named tuple as a dict of its elements.
        self.assertEqual([r[1] for r in result.result_rows],
                         [{"a": 1, "b": "x"}, {"a": 2, "b": "it's"}])
        self.assertEqual(self.client.query("SELECT t.b, m['p'] FROM compound ORDER BY k")
                         .result_rows, [("x", [1, 2]), ("it's", [])])

    def test_2d_arrays_of_tuples_round_trip_in_native(self):
        # An Array(Tuple(...)) travels in Native as its offsets, then each element's column.
        self.client.command("CREATE TABLE tuple_arrays (k UInt32, "
                            "c Array(Tuple(a UInt8, b String)), u Array(Tuple(Int32, Float64))) "
                            "ENGINE = MergeTree ORDER BY k")
        data = [[1, [(1, "x"), (2, "it's")], [(5, 0.5)]], [2, [], [(-1, 1.0), (2, 2.5)]]]
        self.client.insert("tuple_arrays", data, column_names=["k", "c", "u"])
        result = self.client.query("SELECT k, c, u FROM tuple_arrays ORDER BY k")
        self.assertEqual([t.name for t in result.column_types][2],
                         "Array(Tuple(Int32, Float64))")
        self.assertEqual([[tuple(x) for x in r[2]] for r in result.result_rows],
                         [d[2] for d in data])
        self.assertEqual([r[1] for r in result.result_rows],
                         [[{"a": 1, "b": "x"}, {"a": 2, "b": "it's"}], []])
        self.assertEqual(self.client.query("SELECT c.b, u.1 FROM tuple_arrays ORDER BY k")
                         .result_rows, [(["x", "it's"], [5]), ([], [-1, 2])])

    def test_3_errors_carry_the_clickhouse_code(self):
        from clickhouse_connect.driver.exceptions import DatabaseError
        with self.assertRaises(DatabaseError) as failure:
            self.client.query("SELECT * FROM no_such_table")
        self.assertEqual(failure.exception.code, 60, failure.exception)
        self.assertIn("UNKNOWN_TABLE", str(failure.exception))
        with self.assertRaises(DatabaseError) as failure:
            self.client.command("SELEC 1")
        self.assertEqual(failure.exception.code, 62, failure.exception)
        self.assertEqual(self.client.command("SELECT 5"), 5)  # the client is still usable

    def test_4_kill_query_cancels_a_running_query(self):
        from clickhouse_connect.driver.exceptions import DatabaseError
        outcome = {}

        def long_query():
            other = self.connect()
            try:
                other.query("SELECT sum(number) FROM numbers(18446744073709551615)",
                            settings={"query_id": "cc-cancel"})
                outcome["result"] = "finished"
            except DatabaseError as e:
                outcome["result"] = e
            finally:
                other.close()

        thread = threading.Thread(target=long_query)
        thread.start()
        try:
            self.wait_until("SELECT count() FROM system.processes WHERE query_id = 'cc-cancel'", 1)
            self.client.command("KILL QUERY WHERE query_id = 'cc-cancel'")
        finally:
            thread.join(TIMEOUT)
        self.assertFalse(thread.is_alive(), "the killed query did not end")
        self.assertIsInstance(outcome.get("result"), DatabaseError, outcome)
        self.assertEqual(outcome["result"].code, 394, outcome["result"])  # QUERY_WAS_CANCELLED
        self.wait_until("SELECT count() FROM system.processes WHERE query_id = 'cc-cancel'", 0)

    def test_5_ten_million_rows_streamed_to_the_end(self):
        rows = total = blocks = 0
        with self.client.query_column_block_stream(
                "SELECT number, number %% 7 AS r FROM numbers(%d)" % ROWS) as stream:
            for block in stream:
                blocks += 1
                rows += len(block[0])
                total += sum(block[0]) + sum(block[1])
        self.assertEqual(rows, ROWS)
        self.assertEqual(total, ROWS * (ROWS - 1) // 2 + ROWS // 7 * 21 + sum(range(ROWS % 7)))
        self.assertGreater(blocks, 1)  # it arrived in blocks, not as one piece

    def wait_until(self, query, expected):
        deadline = time.monotonic() + TIMEOUT
        while self.client.command(query) != expected:
            self.assertLess(time.monotonic(), deadline, "never %r: %s" % (expected, query))
            time.sleep(0.05)


if __name__ == "__main__":
    testmain.main([ClickHouseConnectTest])
