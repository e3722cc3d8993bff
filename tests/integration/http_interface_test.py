#!/usr/bin/env python3
"""Issue 24: ClickHouse's HTTP interface on the coordinator (granite local, 1 worker), driven by
real clients: curl and clickhouse-connect (PyPI, from the venv), with nothing granite-specific.

- /ping; GET and POST /?query=...; the body as the query, or as an INSERT's data after the query
  parameter; settings, default_format, database, query_id and session_id as URL parameters; the
  X-ClickHouse-User / -Key / -Database / -Format / -Query-Id headers; X-ClickHouse-Query-Id and
  X-ClickHouse-Summary in the answer.
- Errors as ClickHouse sends them: HTTP 4xx/5xx, X-ClickHouse-Exception-Code, and the body
  "Code: N. DB::Exception: ... (NAME)".
- enable_http_compression=1 with Accept-Encoding gzip; a gzip request body (Content-Encoding).
- clickhouse-connect: connect, insert (Native), query with column names and types, command,
  errors, a 1M-row result streamed in chunks.
- A client that closes its connection cancels its query (it ran on until KILL QUERY).
"""

import gzip
import json
import os
import shutil
import subprocess
import sys
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

TIMEOUT = 60


class HttpInterfaceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=1).start()
        assert cls.cluster.http_port, "granite local printed no HTTP port"
        cls.url = "http://%s:%d/" % (cls.cluster.host, cls.cluster.http_port)

    @classmethod
    def tearDownClass(cls):
        cls.cluster.stop()

    def curl(self, params=None, data=None, headers=(), path=""):
        """Runs curl; returns (status, headers dict with lower-cased names, body bytes)."""
        if shutil.which("curl") is None:
            self.skipTest("curl is not installed")
        url = self.url + path + ("?" + urllib.parse.urlencode(params) if params else "")
        argv = ["curl", "-s", "-S", "-i", "--max-time", str(TIMEOUT), url]
        for header in headers:
            argv += ["-H", header]
        if data is not None:
            argv += ["--data-binary", "@-"]
        proc = subprocess.run(argv, input=data, capture_output=True, timeout=TIMEOUT + 5)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        head, _, body = proc.stdout.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        status = int(lines[0].split()[1])
        fields = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            fields[name.strip().lower()] = value.strip()
        return status, fields, body

    def test_ping_and_simple_queries(self):
        self.assertEqual(self.curl(path="ping")[2], b"Ok.\n")
        self.assertEqual(self.curl()[2], b"Ok.\n")  # GET / without a query, as ClickHouse
        status, headers, body = self.curl({"query": "SELECT 1 AS a, 'x' AS b"})
        self.assertEqual((status, body), (200, b"1\tx\n"))
        self.assertTrue(headers["x-clickhouse-query-id"])
        summary = json.loads(headers["x-clickhouse-summary"])
        self.assertEqual(summary["result_rows"], "1")
        # The body as the query; the query parameter followed by the body.
        self.assertEqual(self.curl(data=b"SELECT 2")[2], b"2\n")
        self.assertEqual(self.curl({"query": "SELECT"}, data=b"3 AS c")[2], b"3\n")
        # Formats: default_format, the X-ClickHouse-Format header, a FORMAT clause wins.
        self.assertEqual(self.curl({"query": "SELECT 1 AS a", "default_format": "JSONEachRow"})[2],
                         b'{"a":1}\n')
        status, headers, body = self.curl({"query": "SELECT 1 AS a"},
                                          headers=["X-ClickHouse-Format: CSVWithNames"])
        self.assertEqual(body, b'"a"\n1\n')
        self.assertEqual(headers["x-clickhouse-format"], "CSVWithNames")
        status, headers, _ = self.curl({"query": "SELECT 1", "query_id": "http-id-1"})
        self.assertEqual(headers["x-clickhouse-query-id"], "http-id-1")
        status, headers, _ = self.curl({"query": "SELECT 1"},
                                       headers=["X-ClickHouse-User: default",
                                                "X-ClickHouse-Key: ", "X-ClickHouse-Database: default"])
        self.assertEqual(status, 200)

    def test_errors_as_clickhouse_sends_them(self):
        status, headers, body = self.curl({"query": "SELECT * FROM no_such_table"})
        self.assertEqual(status, 404)
        self.assertEqual(headers["x-clickhouse-exception-code"], "60")
        self.assertRegex(body.decode(), r"^Code: 60\. DB::Exception: .*\(UNKNOWN_TABLE\)\n$")
        status, headers, body = self.curl({"query": "SELEC 1"})
        self.assertEqual((status, headers["x-clickhouse-exception-code"]), (400, "62"))
        status, headers, body = self.curl({"query": "SELECT 1"},
                                          headers=["X-ClickHouse-Database: elsewhere"])
        self.assertEqual(headers["x-clickhouse-exception-code"], "81")
        status, _, body = self.curl({"query": "SELECT 1", "no_such_setting": "1"})
        self.assertIn(b"UNKNOWN_SETTING", body)
        self.assertEqual(self.curl({"query": "SELECT 5"})[2], b"5\n")  # still serving

    def test_binary_formats_streamed_from_a_table(self):
        # A SELECT over a table streams its result from the fan-out on the request's thread; with
        # LZ4-framed ArrowStream it once overflowed civetweb's small thread stack and killed the
        # coordinator. Every binary format answers, and the server keeps serving.
        self.assertEqual(self.curl(data=b"CREATE TABLE streamed (k UInt32, s String) "
                                        b"ENGINE = MergeTree ORDER BY k")[0], 200)
        self.assertEqual(self.curl({"query": "INSERT INTO streamed SELECT number, toString(number) "
                                             "FROM numbers(100000)"})[0], 200)
        for fmt, magic in (("ArrowStream", b"\xff\xff\xff\xff"), ("Arrow", b"ARROW1"),
                           ("Parquet", b"PAR1"), ("Native", b"")):
            status, _, body = self.curl(data=("SELECT k, s FROM streamed FORMAT %s" % fmt).encode())
            self.assertEqual(status, 200, (fmt, body[:200]))
            self.assertTrue(body.startswith(magic), fmt)
            self.assertGreater(len(body), 100000, fmt)
        self.assertEqual(self.curl({"query": "SELECT count() FROM streamed"})[2], b"100000\n")

    def test_insert_settings_sessions_and_compression(self):
        self.curl(data=b"CREATE TABLE hi (x UInt32, s String) ENGINE = MergeTree ORDER BY x")
        rows = b"".join(b"%d,v%d\n" % (i, i) for i in range(10000))
        status, headers, _ = self.curl({"query": "INSERT INTO hi FORMAT CSV"}, data=rows)
        self.assertEqual(status, 200)
        self.assertEqual(json.loads(headers["x-clickhouse-summary"])["written_rows"], "10000")
        status, _, _ = self.curl({"query": "INSERT INTO hi FORMAT CSV"},
                                 data=gzip.compress(b"10000,z\n"),
                                 headers=["Content-Encoding: gzip"])
        self.assertEqual(status, 200)
        self.assertEqual(self.curl(data=b"SELECT count(), sum(x) FROM hi")[2],
                         b"10001\t%d\n" % sum(range(10001)))
        # A bad row fails the whole insert with a parse error code.
        status, headers, body = self.curl({"query": "INSERT INTO hi FORMAT CSV"},
                                          data=b"1,a\nnot a number,b\n")
        self.assertIn(status, (400, 500))
        self.assertIn(headers["x-clickhouse-exception-code"], ("6", "27"))
        # Settings as URL parameters, and SET within a session.
        self.assertEqual(self.curl({"query": "SELECT value FROM system.settings WHERE name = "
                                    "'use_pruning'", "use_pruning": "0"})[2], b"0\n")
        session = {"session_id": "http-session-1"}
        self.curl(dict(session, query="SET use_pruning = 0"))
        self.assertEqual(self.curl(dict(session, query="SELECT value FROM system.settings WHERE "
                                        "name = 'use_pruning'"))[2], b"0\n")
        # Compressed answers.
        status, headers, body = self.curl(
            {"query": "SELECT number FROM numbers(300000)", "enable_http_compression": "1"},
            headers=["Accept-Encoding: gzip"])
        self.assertEqual(headers.get("content-encoding"), "gzip")
        self.assertEqual(gzip.decompress(body),
                         b"".join(b"%d\n" % i for i in range(300000)))

    def test_a_client_that_goes_away_cancels_its_query(self):
        if shutil.which("curl") is None:
            self.skipTest("curl is not installed")
        query = urllib.parse.urlencode({
            "query": "SELECT sum(number) FROM numbers(18446744073709551615)",
            "query_id": "http-gone"})
        curl = subprocess.Popen(["curl", "-s", self.url + "?" + query],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            self.wait_for_processes("http-gone", b"1\n")
        finally:
            curl.kill()  # the client goes away mid-query
            curl.wait(TIMEOUT)
        self.wait_for_processes("http-gone", b"0\n")
        status, _, body = self.curl({"query": "SELECT exception_code FROM system.query_log "
                                     "WHERE query_id = 'http-gone'"})
        self.assertEqual(body, b"394\n")  # QUERY_WAS_CANCELLED

    def wait_for_processes(self, query_id, expected):
        deadline = time.monotonic() + TIMEOUT
        while self.curl({"query": "SELECT count() FROM system.processes WHERE query_id = '%s'"
                         % query_id})[2] != expected:
            self.assertLess(time.monotonic(), deadline, "%s: never %r" % (query_id, expected))
            time.sleep(0.05)

    def test_clickhouse_connect(self):
        try:
            import clickhouse_connect
        except ImportError:
            self.skipTest("clickhouse-connect is not in the venv (scripts/make-venv.sh)")
        client = clickhouse_connect.get_client(host=self.cluster.host,
                                               port=self.cluster.http_port)
        client.command("CREATE TABLE cc (id UInt64, name String, v Float64, d Date) "
                       "ENGINE = MergeTree ORDER BY id")
        import datetime
        data = [[i, "n%d" % i, i / 4, datetime.date(2024, 1, 1 + i % 28)] for i in range(1000)]
        client.insert("cc", data, column_names=["id", "name", "v", "d"])
        result = client.query("SELECT id, name, v, d FROM cc ORDER BY id")
        self.assertEqual(result.column_names, ("id", "name", "v", "d"))
        self.assertEqual([t.name for t in result.column_types],
                         ["UInt64", "String", "Float64", "Date"])
        self.assertEqual([list(r) for r in result.result_rows], data)
        self.assertEqual(client.command("SELECT count() FROM cc"), 1000)
        with self.assertRaises(Exception) as failure:
            client.query("SELECT * FROM missing_table")
        self.assertIn("UNKNOWN_TABLE", str(failure.exception))
        # A large result arrives in chunks (streamed, not held whole on either side).
        total = rows = 0
        with client.query_row_block_stream("SELECT number FROM numbers(1000000)") as stream:
            for block in stream:
                rows += len(block)
                total += sum(r[0] for r in block)
        self.assertEqual((rows, total), (1000000, 999999 * 1000000 // 2))
        client.close()


if __name__ == "__main__":
    testmain.main([HttpInterfaceTest])
