#!/usr/bin/env python3
"""Issue 19: requests the coordinator refuses before running them (granite local, 1 worker).

- A query text that is not UTF-8 failed inside gRPC (QueryInfo.query is a proto3 string): the
  CLI printed a NETWORK_ERROR "no query" and raw callers got INTERNAL with no details. It is now
  a ClickHouse exception in the Result, BAD_ARGUMENTS (36), naming the byte offset, on each of
  the four methods and in the CLI.
- A second query with a running query's query_id was accepted; ClickHouse refuses it with
  QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING (216).
"""

import os
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

import grpc  # noqa: E402

from granite_client._stubs import pb2  # noqa: E402
from granite_client.errors import GraniteError  # noqa: E402

TIMEOUT = 30
SERVICE = "/clickhouse.grpc.ClickHouse/"


def raw_query_info(text, query_id=""):
    """Serializes a QueryInfo whose query (field 1) is the bytes `text`, valid UTF-8 or not:
    Python's protobuf refuses to build such a message."""
    rest = pb2.QueryInfo(query_id=query_id).SerializeToString()
    return b"\x0a" + encode_varint(len(text)) + text + rest


def encode_varint(n):
    out = b""
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out += bytes([byte | 0x80])
        else:
            return out + bytes([byte])


class RequestChecksTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=1).start()
        cls.client = cls.cluster.client(timeout=TIMEOUT)
        cls.channel = grpc.insecure_channel("%s:%d" % (cls.cluster.host, cls.cluster.port))

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        cls.client.close()
        cls.cluster.stop()

    def assert_bad_utf8(self, result, offset):
        self.assertTrue(result.HasField("exception"), result)
        self.assertEqual(result.exception.code, 36, result.exception)  # BAD_ARGUMENTS
        self.assertEqual(result.exception.name, "BAD_ARGUMENTS")
        self.assertIn("not valid UTF-8", result.exception.display_text)
        self.assertIn("offset %d" % offset, result.exception.display_text)

    def test_invalid_utf8_is_a_clickhouse_exception_on_every_method(self):
        request = raw_query_info(b"SELECT '\xff\xfe'")
        identity = dict(request_serializer=lambda b: b,
                        response_deserializer=pb2.Result.FromString)
        unary = self.channel.unary_unary(SERVICE + "ExecuteQuery", **identity)
        self.assert_bad_utf8(unary(request, timeout=TIMEOUT), 8)
        output = self.channel.unary_stream(SERVICE + "ExecuteQueryWithStreamOutput", **identity)
        self.assert_bad_utf8(list(output(request, timeout=TIMEOUT))[-1], 8)
        stream_input = self.channel.stream_unary(SERVICE + "ExecuteQueryWithStreamInput",
                                                 **identity)
        self.assert_bad_utf8(stream_input(iter([request]), timeout=TIMEOUT), 8)
        stream_io = self.channel.stream_stream(SERVICE + "ExecuteQueryWithStreamIO", **identity)
        self.assert_bad_utf8(list(stream_io(iter([request]), timeout=TIMEOUT))[-1], 8)
        # A truncated sequence at the end, and an INSERT (streamed input path).
        self.assert_bad_utf8(unary(raw_query_info(b"SELECT 1 -- \xc3"), timeout=TIMEOUT), 12)
        self.assert_bad_utf8(list(stream_io(iter([raw_query_info(
            b"INSERT INTO nowhere VALUES ('\xe2\x82')")]), timeout=TIMEOUT))[-1], 29)
        # An id that is not UTF-8 is refused too, and not echoed.
        bad_id = b"\x0a\x08SELECT 1\x12\x03id\xff"
        result = unary(bad_id, timeout=TIMEOUT)
        self.assertEqual(result.exception.code, 36, result)
        self.assertIn("query_id is not valid UTF-8", result.exception.display_text)
        self.assertIn("offset 2", result.exception.display_text)
        self.assertNotIn(b"\xff", result.query_id.encode())
        # The server goes on serving, and valid multi-byte text is fine.
        self.assertEqual(self.client.query_text("SELECT 'h\u00e9'"), "h\u00e9\n")

    def test_invalid_utf8_in_the_cli(self):
        proc = subprocess.run(
            self.cluster.granite + ["client", "--host", self.cluster.host, "--port",
                                    str(self.cluster.port), "--query", b"SELECT '\xff'"],
            capture_output=True, timeout=TIMEOUT)
        text = (proc.stdout + proc.stderr).decode("utf-8", "replace")
        self.assertNotEqual(proc.returncode, 0, text)
        self.assertIn("Code: 36", text)
        self.assertIn("BAD_ARGUMENTS", text)
        self.assertIn("offset 8", text)
        self.assertNotIn("no query", text)

    def test_a_running_query_id_cannot_be_reused(self):
        outcome = {}

        def long_query():
            try:
                self.client.execute("SELECT sum(number) FROM numbers(18446744073709551615)",
                                    query_id="dup-id", timeout=TIMEOUT)
                outcome["result"] = "finished"
            except GraniteError as e:
                outcome["result"] = e.code

        runner = threading.Thread(target=long_query, daemon=True)
        runner.start()
        deadline = time.monotonic() + TIMEOUT
        while not self.client.query_text(
                "SELECT query_id FROM system.processes WHERE query_id = 'dup-id'"):
            self.assertLess(time.monotonic(), deadline, "dup-id never showed")
            time.sleep(0.05)
        with self.assertRaises(GraniteError) as second:
            self.client.execute("SELECT 1", query_id="dup-id")
        self.assertEqual(second.exception.code, 216)
        self.assertEqual(second.exception.name, "QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING")
        self.assertIn("dup-id", second.exception.message)
        # The same over the streaming method, and the first query still runs.
        stream = self.client.stream("SELECT 2", query_id="dup-id")
        stream.finish()
        with self.assertRaises(GraniteError) as streamed:
            stream.result()
        self.assertEqual(streamed.exception.code, 216)
        self.assertEqual(self.client.query_text(
            "SELECT count() FROM system.processes WHERE query_id = 'dup-id'"), "1\n")
        self.client.query("KILL QUERY WHERE query_id = 'dup-id' SYNC")
        runner.join(TIMEOUT)
        self.assertEqual(outcome.get("result"), 394)
        # Once it has ended the id is free again.
        self.assertEqual(self.client.query_text("SELECT 3", query_id="dup-id"), "3\n")


if __name__ == "__main__":
    testmain.main([RequestChecksTest])
