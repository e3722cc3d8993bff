#!/usr/bin/env python3
"""Tests of the granite_client package against the scriptable fake server in tests/harness (no
granite build needed): which RPC each call uses, the QueryInfo fields it sends, streamed input,
cancel, error mapping, and stub generation from a bare checkout."""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import unittest

PKG_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(os.path.dirname(PKG_ROOT))
sys.path.insert(0, PKG_ROOT)
sys.path.insert(0, os.path.join(REPO, "tests", "harness"))
import fake_server  # noqa: E402
import granite_client  # noqa: E402
import testmain  # noqa: E402


class ClientTest(fake_server.FakeServerCase):
    def setUp(self):
        super().setUp()
        self.client = granite_client.connect("127.0.0.1", self.port, timeout=10)
        self.addCleanup(self.client.close)

    def test_query_uses_execute_query_and_sends_query_info(self):
        self.fake.answers["SELECT 1, 'a'"] = b"1\ta\n"
        self.assertEqual(self.client.query("SELECT 1, 'a'"), b"1\ta\n")
        self.assertEqual(self.client.query_text("SELECT 1, 'a'", format="CSV",
                                                settings={"max_threads": 2}), "1\ta\n")
        (m1, [i1]), (m2, [i2]) = self.fake.calls
        self.assertEqual((m1, m2), ("ExecuteQuery",) * 2)
        self.assertEqual(i1.query, "SELECT 1, 'a'")
        self.assertEqual(i1.user_name, "default")
        self.assertEqual(i1.output_format, "")
        self.assertEqual(i2.output_format, "CSV")
        self.assertEqual(dict(i2.settings), {"max_threads": "2"})
        self.assertTrue(i1.query_id and i2.query_id and i1.query_id != i2.query_id)

    def test_stream_output_uses_streamed_call(self):
        self.fake.answers["SELECT 2"] = b"2\n"
        self.assertEqual(self.client.execute("SELECT 2", stream_output=True).output, b"2\n")
        self.assertEqual([m for m, _ in self.fake.calls], ["ExecuteQueryWithStreamOutput"])

    def test_execute_collects_stats_and_progress(self):
        self.fake.answers["q"] = b"1\n2\n3\n"
        result = self.client.execute("q", query_id="my-id")
        self.assertEqual(result.output, b"1\n2\n3\n")
        self.assertEqual(result.stats.rows, 3)
        self.assertEqual(result.progress["read_rows"], 3)
        self.assertEqual(result.query_id, "my-id")
        self.assertFalse(result.cancelled)

    def test_exception_raises_granite_error(self):
        self.fake.answers["SELEC 1"] = (62, "SYNTAX_ERROR", "Syntax error: failed at position 1")
        with self.assertRaises(granite_client.GraniteError) as ctx:
            self.client.query("SELEC 1")
        e = ctx.exception
        self.assertEqual((e.code, e.name, e.message),
                         (62, "SYNTAX_ERROR", "Syntax error: failed at position 1"))
        self.assertEqual(str(e), "Code: 62 (SYNTAX_ERROR): Syntax error: failed at position 1")
        self.assertNotIsInstance(e, granite_client.TransportError)

    def test_single_input_uses_execute_query(self):
        self.fake.answers["INSERT INTO t FORMAT CSV"] = lambda info, data: b"got " + data
        out = self.client.query("INSERT INTO t FORMAT CSV", input_data="1,2\n")
        self.assertEqual(out, b"got 1,2\n")
        method, [info] = self.fake.calls[0]
        self.assertEqual(method, "ExecuteQuery")
        self.assertEqual(info.input_data, b"1,2\n")

    def test_bytes_like_input_is_one_chunk_and_ints_are_refused(self):
        import array
        self.fake.answers["INSERT INTO t FORMAT RowBinary"] = lambda info, data: b"got " + data
        out = self.client.query("INSERT INTO t FORMAT RowBinary",
                                input_data=array.array("B", [1, 2, 3]))
        self.assertEqual(out, b"got \x01\x02\x03")
        self.assertEqual(self.fake.calls[0][0], "ExecuteQuery")
        # A chunk that is an int fails the call (inside gRPC's request stream) instead of
        # sending zero bytes.
        with self.assertRaises((TypeError, granite_client.TransportError)):
            self.client.insert_stream("INSERT INTO t FORMAT RowBinary", [1, 2, 3])

    def test_insert_stream_sends_chunks_with_next_query_info(self):
        seen = []
        self.fake.answers["INSERT INTO t FORMAT CSV"] = lambda info, data: seen.append(data) or b""
        self.client.insert_stream("INSERT INTO t FORMAT CSV", [b"1,a\n2,", "b\n", b"3,c\n"])
        method, infos = self.fake.calls[0]
        self.assertEqual(method, "ExecuteQueryWithStreamInput")
        self.assertEqual([(i.query, i.input_data, i.next_query_info) for i in infos], [
            ("INSERT INTO t FORMAT CSV", b"1,a\n2,", True), ("", b"b\n", True),
            ("", b"3,c\n", True), ("", b"", False)])
        self.assertEqual(seen, [b"1,a\n2,b\n3,c\n"])

    def test_insert_stream_of_nothing(self):
        self.client.insert_stream("INSERT INTO t FORMAT CSV", iter(()))
        _, infos = self.fake.calls[0]
        self.assertEqual([(i.query, i.next_query_info) for i in infos],
                         [("INSERT INTO t FORMAT CSV", True), ("", False)])

    def test_execute_with_iterable_input_streams_it(self):
        self.client.execute("INSERT INTO t FORMAT TSV", input_data=(c for c in [b"1\n", b"2\n"]))
        method, infos = self.fake.calls[0]
        self.assertEqual(method, "ExecuteQueryWithStreamInput")
        self.assertEqual(len(infos), 3)

    def test_stream_send_finish(self):
        self.fake.answers["INSERT INTO t FORMAT CSV"] = lambda info, data: data
        s = self.client.stream("INSERT INTO t FORMAT CSV", input_data=b"1\n")
        s.send(b"2\n")
        s.finish()
        self.assertEqual(s.result().output, b"1\n2\n")
        method, infos = self.fake.calls[0]
        self.assertEqual(method, "ExecuteQueryWithStreamIO")
        self.assertEqual([i.next_query_info for i in infos], [True, True, False])
        with self.assertRaises(ValueError):
            s.send(b"3\n")

    def test_cancel_sends_cancel_and_reports_cancelled(self):
        s = self.client.stream("INSERT INTO t FORMAT CSV", input_data=b"1\n")
        s.cancel()
        result = s.result()
        self.assertTrue(result.cancelled)
        _, infos = self.fake.calls[0]
        self.assertTrue(infos[-1].cancel)

    def test_unreachable_server_raises_transport_error(self):
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.close()
        with granite_client.connect("127.0.0.1", port, timeout=3) as c:
            with self.assertRaises(granite_client.TransportError) as ctx:
                c.query("SELECT 1")
            self.assertIn(ctx.exception.name, ("UNAVAILABLE", "DEADLINE_EXCEEDED"))
            with self.assertRaises(granite_client.TransportError):
                c.wait_ready(timeout=0.5)


class CodegenTest(unittest.TestCase):
    def test_bare_checkout_generates_stubs_on_import(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        pkg = os.path.join(tmp, "client", "python", "granite_client")
        shutil.copytree(os.path.join(PKG_ROOT, "granite_client"), pkg,
                        ignore=shutil.ignore_patterns("_generated", "__pycache__", ".gen-*"))
        shutil.copytree(os.path.join(REPO, "proto"), os.path.join(tmp, "proto"))
        code = ("import granite_client, granite_client._stubs as s; "
                "print(s.pb2.QueryInfo(query='x').query, s.pb2_grpc.ClickHouseStub.__name__)")
        proc = subprocess.run([sys.executable, "-c", code], cwd=os.path.dirname(pkg),
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.strip(), "x ClickHouseStub")
        self.assertTrue(os.path.isfile(os.path.join(pkg, "_generated", "clickhouse_grpc_pb2.py")))
        leftovers = [n for n in os.listdir(pkg) if n.startswith(".gen-")]
        self.assertEqual(leftovers, [])

    def test_service_paths_match_clickhouse(self):
        from granite_client._stubs import pb2
        service = pb2.DESCRIPTOR.services_by_name["ClickHouse"]
        self.assertEqual(service.full_name, "clickhouse.grpc.ClickHouse")
        self.assertEqual(sorted(m.name for m in service.methods), [
            "ExecuteQuery", "ExecuteQueryWithStreamIO", "ExecuteQueryWithStreamInput",
            "ExecuteQueryWithStreamOutput"])


if __name__ == "__main__":
    testmain.main([ClientTest, CodegenTest])
