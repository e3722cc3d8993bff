#!/usr/bin/env python3
"""Issue 24 ("Done when"): ClickHouse's stock gRPC client (utils/grpc-client in the ClickHouse
repository; not on any package registry) runs a scripted session against granite local
(1 worker). The test drives the service the way that client does, with nothing granite-specific:

- connecting: an insecure channel, wait until it is ready; in interactive mode a unary
  ExecuteQuery "SELECT version() FORMAT TabSeparated" (output_format TabSeparated, no session).
- every statement: one ExecuteQueryWithStreamIO call whose first QueryInfo carries query,
  user_name, password, database, output_format (empty in batch mode, PrettyCompact in interactive
  mode unless a format is given), session_id (a UUID per interactive shell, none in batch mode) and
  a fresh UUID query_id; stdin that is not a terminal goes as input_data chunks of 1 MiB with
  next_query_info = true, then an empty QueryInfo.
- interactive mode keeps the request stream open until the answer ends, so that Ctrl+C can still
  send QueryInfo{cancel: true}; a Result with cancelled = true ends it ("Query was cancelled.").
- each Result's output is printed as it arrives; a Result with an exception raises its
  display_text, the only text the user sees (so it must carry "Code: N").

The session: version, CREATE DATABASE / USE / CREATE TABLE in one interactive shell, an INSERT
from stdin in 1 MiB chunks, queries in TabSeparated, PrettyCompact and JSONEachRow, errors with
their codes, Ctrl+C during an aggregation and during a streamed result, and a 10,000,000-row
result read to the end (its row count and sum asserted, never its speed).
"""

import json
import os
import re
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

TIMEOUT = 120  # seconds, per wait
ROWS = 10_000_000
STDIN_CHUNK = 1 << 20


class StockClientError(Exception):
    """What the stock client raises for a Result with an exception: its display_text."""

    def __init__(self, exception):
        super().__init__(exception.display_text)
        self.code = exception.code


class StockClient:
    """One shell of the stock client: interactive (a session, PrettyCompact, Ctrl+C cancels) or
    batch (-q: no session, the server's default format)."""

    def __init__(self, address, interactive, output_format=""):
        self.interactive = interactive
        self.output_format = output_format or ("PrettyCompact" if interactive else "")
        self.channel = grpc.insecure_channel(address)
        grpc.channel_ready_future(self.channel).result(timeout=TIMEOUT)
        self.stub = pb2_grpc.ClickHouseStub(self.channel)
        self.session_id = None
        self.version = None
        if interactive:
            result = self.stub.ExecuteQuery(pb2.QueryInfo(
                query="SELECT version() FORMAT TabSeparated", user_name="default", password="",
                database="", output_format="TabSeparated", query_id=str(uuid.uuid4())),
                timeout=TIMEOUT)
            if result.HasField("exception"):
                raise StockClientError(result.exception)
            self.version = result.output.decode().rstrip("\n")
            self.session_id = str(uuid.uuid4())  # the shell's session, from its first prompt on

    def close(self):
        self.channel.close()

    def run(self, query, stdin=None, on_output=None, interrupt=None):
        """Runs one statement; returns (output bytes unless on_output takes them, cancelled).

        stdin: bytes piped into the client (None: a terminal). on_output(bytes) receives every
        Result's output as it arrives. interrupt: a threading.Event standing for Ctrl+C.
        """
        done = threading.Event()
        interrupt = interrupt or threading.Event()

        def requests():
            first = dict(query=query, user_name="default", password="", database="",
                         output_format=self.output_format, query_id=str(uuid.uuid4()))
            if self.session_id:
                first["session_id"] = self.session_id
            info = pb2.QueryInfo(**first)
            if stdin is not None:
                for i in range(0, len(stdin), STDIN_CHUNK):
                    info.input_data = stdin[i:i + STDIN_CHUNK]
                    info.next_query_info = True
                    yield info
                    info = pb2.QueryInfo()
            yield info
            if self.interactive:  # the stream stays open for a Ctrl+C until the answer ends
                while not done.is_set() and not interrupt.is_set():
                    done.wait(0.05)
                if interrupt.is_set() and not done.is_set():
                    yield pb2.QueryInfo(cancel=True)

        output = []
        cancelled = False
        try:
            for result in self.stub.ExecuteQueryWithStreamIO(requests(), timeout=TIMEOUT):
                if result.HasField("exception"):
                    raise StockClientError(result.exception)
                if result.output:
                    (on_output or output.append)(result.output)
                cancelled = cancelled or result.cancelled
        finally:
            done.set()
        return b"".join(output), cancelled


class StockGrpcClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=1).start()
        cls.address = "%s:%d" % (cls.cluster.host, cls.cluster.port)

    @classmethod
    def tearDownClass(cls):
        cls.cluster.stop()

    def batch(self, query, stdin=None, output_format=""):
        client = StockClient(self.address, interactive=False, output_format=output_format)
        try:
            return client.run(query, stdin=stdin)[0]
        finally:
            client.close()

    def test_1_interactive_session_ddl_insert_and_formats(self):
        shell = StockClient(self.address, interactive=True)
        try:
            self.assertRegex(shell.version, r"^\d+(\.\d+)+")
            shell.run("CREATE DATABASE stock_db")
            shell.run("USE stock_db")  # kept by the shell's session
            self.assertEqual(shell.run("SELECT currentDatabase() FORMAT TabSeparated")[0],
                             b"stock_db\n")
            shell.run("CREATE TABLE t (n UInt64, s String) ENGINE = MergeTree ORDER BY n")
            # `cat data.tsv | client -q "INSERT ..."`: a batch shell, stdin in 1 MiB chunks.
            data = b"".join(b"%d\tname%d\n" % (i, i) for i in range(300000))
            self.assertGreater(len(data), 3 * STDIN_CHUNK)
            self.batch("INSERT INTO stock_db.t FORMAT TabSeparated", stdin=data)
            pretty = shell.run("SELECT n, s FROM t ORDER BY n LIMIT 2")[0].decode()
            self.assertIn("┌─n─┬─s─────┐", pretty)
            self.assertIn("│ 1 │ name1 │", pretty)
            self.assertEqual(shell.run("SELECT count(), sum(n) FROM t FORMAT TabSeparated")[0],
                             b"300000\t%d\n" % sum(range(300000)))
        finally:
            shell.close()
        self.assertEqual(self.batch("SELECT n, s FROM stock_db.t WHERE n < 2 ORDER BY n"),
                         b"0\tname0\n1\tname1\n")
        each = self.batch("SELECT n, s FROM stock_db.t WHERE n = 7", output_format="JSONEachRow")
        self.assertEqual(json.loads(each), {"n": 7, "s": "name7"})

    def test_2_errors_show_their_code_in_the_display_text(self):
        for query, code, name in (("SELECT * FROM no_such_table", 60, "UNKNOWN_TABLE"),
                                  ("SELEC 1", 62, "SYNTAX_ERROR")):
            with self.assertRaises(StockClientError) as failure:
                self.batch(query)
            self.assertEqual(failure.exception.code, code)
            self.assertRegex(str(failure.exception),
                             r"^Code: %d\. DB::Exception: .*\(%s\)" % (code, name))
        # A bad row in piped input fails the insert with a parse error code; nothing is kept.
        self.batch("CREATE TABLE bad (n UInt32) ENGINE = MergeTree ORDER BY n")
        with self.assertRaises(StockClientError) as failure:
            self.batch("INSERT INTO bad FORMAT TabSeparated", stdin=b"1\nnot a number\n")
        self.assertIn(failure.exception.code, (6, 27))
        self.assertEqual(self.batch("SELECT count() FROM bad"), b"0\n")

    def test_3_ctrl_c_cancels_an_aggregation(self):
        shell = StockClient(self.address, interactive=True)
        interrupt = threading.Event()
        outcome = {}

        def long_query():
            try:
                outcome["cancelled"] = shell.run(
                    "SELECT sum(number) FROM numbers(18446744073709551615)",
                    interrupt=interrupt)[1]
            except Exception as e:  # noqa: BLE001 - reported by the assertion below
                outcome["error"] = e

        thread = threading.Thread(target=long_query)
        thread.start()
        try:
            self.wait_for_running("numbers(18446744073709551615)", 1)
        finally:
            interrupt.set()  # Ctrl+C
            thread.join(TIMEOUT)
        shell.close()
        self.assertFalse(thread.is_alive(), "the cancelled query did not end")
        self.assertEqual(outcome, {"cancelled": True})
        self.wait_for_running("numbers(18446744073709551615)", 0)

    def test_4_ctrl_c_cancels_a_streamed_result(self):
        shell = StockClient(self.address, interactive=True, output_format="TabSeparated")
        interrupt = threading.Event()
        received = []

        def on_output(chunk):
            received.append(chunk)
            interrupt.set()  # Ctrl+C once the first rows are on the screen

        _, cancelled = shell.run("SELECT number FROM numbers(1000000000000)",
                                 on_output=on_output, interrupt=interrupt)
        shell.close()
        self.assertTrue(cancelled)
        self.assertTrue(b"".join(received).startswith(b"0\n1\n2\n"))
        self.wait_for_running("numbers(1000000000000)", 0)

    def test_5_ten_million_rows_streamed_to_the_end(self):
        """`client -q "SELECT ..." > file`: TabSeparated read Result by Result."""
        state = {"rows": 0, "sum": 0, "tail": b"", "results": 0}

        def on_output(chunk):
            state["results"] += 1
            lines = (state["tail"] + chunk).split(b"\n")
            state["tail"] = lines.pop()
            state["rows"] += len(lines)
            state["sum"] += sum(map(int, lines))

        client = StockClient(self.address, interactive=False)
        try:
            client.run("SELECT number FROM numbers(%d)" % ROWS, on_output=on_output)
        finally:
            client.close()
        self.assertEqual(state["tail"], b"")
        self.assertEqual((state["rows"], state["sum"]), (ROWS, ROWS * (ROWS - 1) // 2))
        self.assertGreater(state["results"], 1)  # streamed in several Results

    def wait_for_running(self, text, expected):
        """Waits (bounded) until `expected` queries containing `text` run, seen by a batch shell."""
        sql = ("SELECT count() FROM system.processes WHERE query LIKE '%%%s%%' "
               "AND query NOT LIKE '%%system.processes%%'" % text)
        deadline = time.monotonic() + TIMEOUT
        while (got := int(self.batch(sql))) != expected:
            self.assertLess(time.monotonic(), deadline, "%d running, not %d: %s"
                            % (got, expected, text))
            time.sleep(0.05)


if __name__ == "__main__":
    testmain.main([StockGrpcClientTest])
