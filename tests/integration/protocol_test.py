#!/usr/bin/env python3
"""ClickHouse gRPC protocol conformance of a granite cluster (granite local, 2 workers), through
the raw generated stubs: the four RPC methods, stats at the end of every Result stream, output
formats by output_format and by FORMAT clause, version(), errors with code and position, input
streamed in chunks with next_query_info, cancel, and the stock ClickHouse client's flow
(shared/clickhouse-grpc-wire.md)."""

import json
import os
import sys
import threading
import time
import unittest
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

import grpc  # noqa: E402

from granite_client._stubs import pb2, pb2_grpc  # noqa: E402

TIMEOUT = 30


class ProtocolTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=2).start()
        cls.channel = grpc.insecure_channel("%s:%d" % (cls.cluster.host, cls.cluster.port))
        cls.stub = pb2_grpc.ClickHouseStub(cls.channel)
        cls.must(pb2.QueryInfo(query="CREATE TABLE kv (k UInt32, v String) ENGINE = MergeTree "
                                     "ORDER BY k"))
        cls.must(pb2.QueryInfo(query="INSERT INTO kv VALUES (1, 'one'), (2, 'two'), (3, 'three')"))

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        cls.cluster.stop()

    @classmethod
    def must(cls, info):
        result = cls.stub.ExecuteQuery(info, timeout=TIMEOUT)
        if result.HasField("exception"):
            raise AssertionError("%s failed: %s" % (info.query, result.exception))
        return result

    def assert_ends_with_stats(self, results):
        self.assertTrue(results, "empty Result stream")
        self.assertTrue(results[-1].HasField("stats"), "last Result has no stats: %s" % results[-1])
        for r in results:
            self.assertFalse(r.HasField("exception") and r.exception.code,
                             "unexpected exception %s" % r.exception)

    def output_of(self, results):
        return b"".join(r.output for r in results)

    # The four methods.

    def test_execute_query(self):
        result = self.stub.ExecuteQuery(pb2.QueryInfo(query="SELECT k, v FROM kv ORDER BY k"),
                                        timeout=TIMEOUT)
        self.assertEqual(result.output, b"1\tone\n2\ttwo\n3\tthree\n")
        self.assertTrue(result.HasField("stats"))
        self.assertFalse(result.HasField("exception"))

    def test_execute_query_with_stream_output(self):
        info = pb2.QueryInfo(query="SELECT number FROM numbers(200000) ORDER BY number")
        results = list(self.stub.ExecuteQueryWithStreamOutput(info, timeout=TIMEOUT))
        self.assert_ends_with_stats(results)
        lines = self.output_of(results).decode().split("\n")
        self.assertEqual(lines[-1], "")
        self.assertEqual(lines[:-1], [str(i) for i in range(200000)])

    def test_execute_query_with_stream_input(self):
        self.must(pb2.QueryInfo(query="CREATE TABLE si (a UInt32, b String) ENGINE = MergeTree "
                                      "ORDER BY a"))
        # Chunks split rows (and a quoted field) in the middle.
        chunks = [b'1,"x', b'"\n2,"y"\n3', b',"z"\n', b'4,"w"\n']
        requests = [pb2.QueryInfo(query="INSERT INTO si FORMAT CSV", input_data=chunks[0],
                                  next_query_info=True)]
        requests += [pb2.QueryInfo(input_data=c, next_query_info=True) for c in chunks[1:]]
        requests.append(pb2.QueryInfo())
        result = self.stub.ExecuteQueryWithStreamInput(iter(requests), timeout=TIMEOUT)
        self.assertFalse(result.HasField("exception"), result.exception)
        self.assertTrue(result.HasField("stats"))
        out = self.must(pb2.QueryInfo(query="SELECT a, b FROM si ORDER BY a")).output
        self.assertEqual(out, b"1\tx\n2\ty\n3\tz\n4\tw\n")

    def test_execute_query_with_stream_io(self):
        self.must(pb2.QueryInfo(query="CREATE TABLE sio (a UInt32) ENGINE = MergeTree ORDER BY a"))
        requests = [pb2.QueryInfo(query="INSERT INTO sio FORMAT TabSeparated",
                                  input_data=b"10\n2", next_query_info=True),
                    pb2.QueryInfo(input_data=b"0\n30\n", next_query_info=True),
                    pb2.QueryInfo(next_query_info=False)]
        results = list(self.stub.ExecuteQueryWithStreamIO(iter(requests), timeout=TIMEOUT))
        self.assert_ends_with_stats(results)
        results = list(self.stub.ExecuteQueryWithStreamIO(
            iter([pb2.QueryInfo(query="SELECT sum(a), count() FROM sio")]), timeout=TIMEOUT))
        self.assert_ends_with_stats(results)
        self.assertEqual(self.output_of(results), b"60\t3\n")

    def test_every_stream_ends_with_stats(self):
        queries = ["SELECT 1", "SELECT k FROM kv WHERE k > 100", "SELECT count() FROM kv",
                   "SELECT v, count() FROM kv GROUP BY v ORDER BY v", "SHOW TABLES",
                   "CREATE TABLE IF NOT EXISTS kv (k UInt32) ENGINE = MergeTree ORDER BY k"]
        for q in queries:
            with self.subTest(query=q):
                results = list(self.stub.ExecuteQueryWithStreamOutput(pb2.QueryInfo(query=q),
                                                                      timeout=TIMEOUT))
                self.assert_ends_with_stats(results)

    # Output formats.

    EXPECTED = {
        "TabSeparated": b"1\ta\n",
        "TabSeparatedWithNames": b"x\ty\n1\ta\n",
        "CSV": b'1,"a"\n',
        "CSVWithNames": b'"x","y"\n1,"a"\n',
        "JSONEachRow": b'{"x":1,"y":"a"}\n',
        "Null": b"",
    }

    def check_format(self, fmt, output):
        if fmt in self.EXPECTED:
            self.assertEqual(output, self.EXPECTED[fmt])
        elif fmt == "JSONCompact":
            doc = json.loads(output)
            self.assertEqual([m["name"] for m in doc["meta"]], ["x", "y"])
            self.assertEqual(doc["data"], [[1, "a"]])
            self.assertEqual(doc["rows"], 1)
        elif fmt == "PrettyCompact":
            text = output.decode()
            self.assertIn("┌─x─┬─y─┐", text)
            self.assertIn("│ 1 │ a │", text)
            self.assertIn("└───┴───┘", text)
        else:
            self.fail("no expectation for " + fmt)

    FORMATS = ["TabSeparated", "TabSeparatedWithNames", "CSV", "CSVWithNames", "JSONEachRow",
               "JSONCompact", "PrettyCompact", "Null"]

    def test_output_format_field(self):
        for fmt in self.FORMATS:
            with self.subTest(format=fmt):
                result = self.must(pb2.QueryInfo(query="SELECT 1 AS x, 'a' AS y",
                                                 output_format=fmt))
                self.check_format(fmt, result.output)

    def test_format_clause(self):
        for fmt in self.FORMATS:
            with self.subTest(format=fmt):
                result = self.must(pb2.QueryInfo(query="SELECT 1 AS x, 'a' AS y FORMAT " + fmt))
                self.check_format(fmt, result.output)

    def test_format_clause_wins_over_output_format(self):
        result = self.must(pb2.QueryInfo(query="SELECT 1 AS x, 'a' AS y FORMAT CSV",
                                         output_format="JSONEachRow"))
        self.check_format("CSV", result.output)

    def test_json_formats_do_not_quote_64_bit_integers(self):
        out = self.must(pb2.QueryInfo(query="SELECT toUInt64(18446744073709551615) AS u, "
                                            "toInt64(-5) AS i", output_format="JSONEachRow"))
        self.assertEqual(out.output, b'{"u":18446744073709551615,"i":-5}\n')

    def test_version(self):
        result = self.must(pb2.QueryInfo(query="SELECT version()"))
        self.assertRegex(result.output.decode(), r"^\d+(\.\d+)+\S*\n$")

    # Errors.

    def test_syntax_error_has_code_and_position(self):
        # "SELECT 1 FORM" alone is valid ClickHouse (FORM is an alias); the table name after it
        # is the error, at position 15 (1-based, as ClickHouse counts).
        result = self.stub.ExecuteQuery(pb2.QueryInfo(query="SELECT 1 FORM numbers(3)"),
                                        timeout=TIMEOUT)
        self.assertTrue(result.HasField("exception"))
        self.assertEqual(result.exception.code, 62)
        self.assertEqual(result.exception.name, "SYNTAX_ERROR")
        self.assertRegex(result.exception.display_text, r"(position|column) 15\b")

    def test_errors_on_every_method(self):
        cases = [("SELECT * FROM no_such_table", 60), ("SELECT nope FROM kv", 47),
                 ("SELECT nofunc(k) FROM kv", 46),
                 ("CREATE TABLE kv (k UInt32) ENGINE = MergeTree ORDER BY k", 57)]
        for sql, code in cases:
            with self.subTest(sql=sql):
                info = pb2.QueryInfo(query=sql)
                r = self.stub.ExecuteQuery(info, timeout=TIMEOUT)
                self.assertEqual(r.exception.code, code, r.exception)
                self.assertTrue(r.exception.display_text)
                results = list(self.stub.ExecuteQueryWithStreamOutput(info, timeout=TIMEOUT))
                self.assertEqual(results[-1].exception.code, code)
                results = list(self.stub.ExecuteQueryWithStreamIO(iter([info]), timeout=TIMEOUT))
                self.assertEqual(results[-1].exception.code, code)
                r = self.stub.ExecuteQueryWithStreamInput(iter([info]), timeout=TIMEOUT)
                self.assertEqual(r.exception.code, code)

    def test_unary_result_of_a_multi_chunk_output_is_whole(self):
        # ~2.2 MB of TabSeparated: more than one 1 MiB output chunk on the server.
        info = pb2.QueryInfo(query="SELECT number, number * 7 FROM numbers(200000)",
                             send_output_columns=True)
        streamed = list(self.stub.ExecuteQueryWithStreamOutput(info, timeout=TIMEOUT))
        self.assertGreater(len(streamed), 1)
        whole = self.stub.ExecuteQuery(info, timeout=TIMEOUT)
        self.assertEqual(whole.output, b"".join(r.output for r in streamed))
        self.assertEqual(whole.output.count(b"\n"), 200000)
        self.assertEqual(whole.output_format, "TabSeparated")
        self.assertEqual([c.name for c in whole.output_columns], ["number", "multiply(number, 7)"])
        self.assertEqual(whole.stats.rows, 200000)

    # Cancel.

    def test_cancel_of_a_streaming_insert_inserts_nothing(self):
        self.must(pb2.QueryInfo(query="CREATE TABLE cx (a UInt32) ENGINE = MergeTree ORDER BY a"))
        for method in ("ExecuteQueryWithStreamIO", "ExecuteQueryWithStreamInput"):
            with self.subTest(method=method):
                requests = [pb2.QueryInfo(query="INSERT INTO cx FORMAT CSV",
                                          input_data=b"1\n2\n3\n", next_query_info=True),
                            pb2.QueryInfo(input_data=b"4\n5\n", next_query_info=True),
                            pb2.QueryInfo(cancel=True)]
                call = getattr(self.stub, method)(iter(requests), timeout=TIMEOUT)
                results = list(call) if method.endswith("IO") else [call]
                self.assertTrue(any(r.cancelled for r in results), results)
                out = self.must(pb2.QueryInfo(query="SELECT count() FROM cx")).output
                self.assertEqual(out, b"0\n")

    def test_cancel_of_a_long_select(self):
        gate = threading.Event()

        def requests():
            yield pb2.QueryInfo(query="SELECT sum(number) FROM numbers_mt(1000000000000)",
                                next_query_info=True)
            gate.wait(TIMEOUT)
            yield pb2.QueryInfo(cancel=True)

        call = self.stub.ExecuteQueryWithStreamIO(requests(), timeout=60)
        timer = threading.Timer(0.5, gate.set)
        timer.start()
        try:
            results = list(call)
        finally:
            gate.set()
            timer.cancel()
        # Cancelled (the sum of 10^12 numbers would outlast the call's 60 s deadline), with no
        # stopwatch that a busy machine may miss.
        self.assertTrue(any(r.cancelled for r in results), results[-1:])
        # The cluster still answers.
        self.assertEqual(self.must(pb2.QueryInfo(query="SELECT 2")).output, b"2\n")

    # The stock client (utils/grpc-client/clickhouse-grpc-client.py).

    def stock_query(self, sql, output_format="", stdin_chunks=None, session_id=None):
        base = dict(user_name="default", password="", database="", output_format=output_format,
                    session_id=session_id or str(uuid.uuid4()), query_id=str(uuid.uuid4()))
        if stdin_chunks is None:
            requests = [pb2.QueryInfo(query=sql, **base)]
        else:
            requests = [pb2.QueryInfo(query=sql, input_data=stdin_chunks[0],
                                      next_query_info=True, **base)]
            requests += [pb2.QueryInfo(input_data=c, next_query_info=True)
                         for c in stdin_chunks[1:]]
            requests.append(pb2.QueryInfo())
        results = list(self.stub.ExecuteQueryWithStreamIO(iter(requests), timeout=TIMEOUT))
        for r in results:
            if r.HasField("exception") and r.exception.code:
                raise AssertionError("%s: %s" % (sql, r.exception))
            if r.query_id:
                self.assertEqual(r.query_id, base["query_id"])
        return b"".join(r.output for r in results)

    def test_stock_client_flow(self):
        session = str(uuid.uuid4())
        version = self.stock_query("SELECT version() FORMAT TabSeparated", session_id=session)
        self.assertRegex(version.decode(), r"^\d+(\.\d+)+\S*\n$")
        self.stock_query("CREATE TABLE stock (n UInt64, s String) ENGINE = MergeTree ORDER BY n",
                         session_id=session)
        data = b"".join(b"%d\tname%d\n" % (i, i) for i in range(100000))
        mib = 1 << 20
        chunks = [data[i:i + mib] for i in range(0, len(data), mib)]
        self.stock_query("INSERT INTO stock FORMAT TabSeparated", stdin_chunks=chunks,
                         session_id=session)
        self.assertEqual(self.stock_query("SELECT count(), sum(n) FROM stock", session_id=session),
                         b"100000\t4999950000\n")
        pretty = self.stock_query("SELECT n, s FROM stock ORDER BY n LIMIT 2", "PrettyCompact",
                                  session_id=session).decode()
        self.assertIn("name1", pretty)
        self.assertIn("┌─n─┬─s─────┐", pretty)


if __name__ == "__main__":
    testmain.main([ProtocolTest])
