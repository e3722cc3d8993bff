#!/usr/bin/env python3
"""Issue 22: the session-level statements and query parameters, over gRPC and HTTP.

- USE d changes the current database of its gRPC session (QueryInfo.session_id) and of its HTTP
  session (session_id=), and of nothing else; currentDatabase() and unqualified table names follow
  it; QueryInfo.database / HTTP database= pick the database of one query (an existing one: others
  are UNKNOWN_DATABASE).
- Query parameters {name:Type} take their values from the settings param_<name> (QueryInfo.settings,
  HTTP URL arguments, SET param_<name> in a session); a missing one is UNKNOWN_QUERY_PARAMETER
  (456), a value that does not parse as its type BAD_QUERY_PARAMETER (457).
- Databases, and tables in them, survive a restart of the cluster (the data dir is reopened).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import urllib.parse
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

import grpc  # noqa: E402

from granite_client._stubs import pb2, pb2_grpc  # noqa: E402

TIMEOUT = 60


class StatementsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=2).start()
        cls.channel = grpc.insecure_channel("%s:%d" % (cls.cluster.host, cls.cluster.port))
        cls.stub = pb2_grpc.ClickHouseStub(cls.channel)
        cls.url = "http://%s:%d/" % (cls.cluster.host, cls.cluster.http_port)
        for sql in ["CREATE DATABASE IF NOT EXISTS shop",
                    "CREATE TABLE IF NOT EXISTS shop.items (id UInt64, name String) "
                    "ENGINE = MergeTree ORDER BY id",
                    "INSERT INTO shop.items VALUES (1, 'apple'), (2, 'pear')",
                    "CREATE TABLE IF NOT EXISTS items (id UInt64) ENGINE = MergeTree ORDER BY id",
                    "INSERT INTO items VALUES (100)"]:
            result = cls.stub.ExecuteQuery(pb2.QueryInfo(query=sql), timeout=TIMEOUT)
            assert not result.HasField("exception"), result.exception

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        cls.cluster.stop()

    def run_query(self, query, **fields):
        return self.stub.ExecuteQuery(pb2.QueryInfo(query=query, **fields), timeout=TIMEOUT)

    def ok(self, query, **fields):
        result = self.run_query(query, **fields)
        self.assertFalse(result.HasField("exception"), result.exception)
        return result.output

    def error(self, query, code, **fields):
        result = self.run_query(query, **fields)
        self.assertTrue(result.HasField("exception"), result.output)
        self.assertEqual(result.exception.code, code, result.exception.display_text)
        return result.exception.display_text

    def http(self, params, data=None):
        """Runs an HTTP request with curl; returns (status, body)."""
        if shutil.which("curl") is None:
            self.skipTest("curl is not installed")
        url = self.url + "?" + urllib.parse.urlencode(params)
        argv = ["curl", "-s", "-S", "-w", "\n%{http_code}", "--max-time", str(TIMEOUT), url]
        if data is not None:
            argv += ["--data-binary", "@-"]
        proc = subprocess.run(argv, input=data, capture_output=True, timeout=TIMEOUT + 5)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        body, _, status = proc.stdout.rpartition(b"\n")
        return int(status), body

    # USE and the current database.

    def test_use_changes_only_its_grpc_session(self):
        session = str(uuid.uuid4())
        self.assertEqual(self.ok("SELECT currentDatabase()", session_id=session), b"default\n")
        self.ok("USE shop", session_id=session)
        self.assertEqual(self.ok("SELECT currentDatabase()", session_id=session), b"shop\n")
        self.assertEqual(self.ok("SELECT name FROM items ORDER BY id", session_id=session),
                         b"apple\npear\n")
        self.assertEqual(self.ok("SHOW TABLES", session_id=session), b"items\n")
        self.assertEqual(self.ok("SELECT id FROM default.items", session_id=session), b"100\n")
        self.assertEqual(self.ok("EXISTS TABLE items", session_id=session), b"1\n")
        # Another session and a query without a session still see default.
        self.assertEqual(self.ok("SELECT currentDatabase()", session_id=str(uuid.uuid4())),
                         b"default\n")
        self.assertEqual(self.ok("SELECT id FROM items"), b"100\n")
        # A failed USE changes nothing.
        self.error("USE nowhere", 81, session_id=session)
        self.assertEqual(self.ok("SELECT currentDatabase()", session_id=session), b"shop\n")
        self.ok("USE default", session_id=session)
        self.assertEqual(self.ok("SELECT id FROM items", session_id=session), b"100\n")

    def test_database_field_of_query_info(self):
        self.assertEqual(self.ok("SELECT count() FROM items", database="shop"), b"2\n")
        self.assertEqual(self.ok("SELECT currentDatabase()", database="shop"), b"shop\n")
        self.assertIn("Database nowhere does not exist",
                      self.error("SELECT 1", 81, database="nowhere"))

    def test_use_in_http_session(self):
        session = "http-" + str(uuid.uuid4())
        self.assertEqual(self.http({"query": "USE shop", "session_id": session})[0], 200)
        status, body = self.http({"query": "SELECT currentDatabase(), count() > 0 FROM items",
                                  "session_id": session})
        self.assertEqual((status, body), (200, b"shop\t1\n"))
        self.assertEqual(self.http({"query": "SELECT currentDatabase()"}), (200, b"default\n"))
        self.assertEqual(self.http({"query": "SELECT currentDatabase()", "database": "shop"}),
                         (200, b"shop\n"))

    # Query parameters.

    def test_query_parameters_over_grpc(self):
        out = self.ok("SELECT name FROM shop.items WHERE id = {id:UInt64}",
                      settings={"param_id": "2"})
        self.assertEqual(out, b"pear\n")
        out = self.ok("SELECT {s:String}, {n:Int32} + 1, {d:Date}",
                      settings={"param_s": "it's", "param_n": "-5", "param_d": "2024-02-29"})
        self.assertEqual(out, b"it\\'s\t-4\t2024-02-29\n")
        # The value is a TabSeparated field: its escapes are decoded (they were kept).
        out = self.ok("SELECT {s:String} = 'it\\'s\\ta\\\\b'",
                      settings={"param_s": "it\\'s\\ta\\\\b"})
        self.assertEqual(out, b"1\n")
        # \N is NULL for a Nullable parameter, as in TabSeparated (it failed to parse).
        out = self.ok("SELECT {n:Nullable(Int32)} AS n, isNull(n), {m:Nullable(Int32)}",
                      settings={"param_n": "\\N", "param_m": "3"})
        self.assertEqual(out, b"\\N\t1\t3\n")
        self.error("SELECT {n:Int32}", 457, settings={"param_n": "\\N"})
        # Inside a string literal braces are text.
        self.assertEqual(self.ok("SELECT '{x:UInt8}'"), b"{x:UInt8}\n")
        text = self.error("SELECT {missing:UInt8}", 456)
        self.assertIn("missing", text)
        self.assertIn("UNKNOWN_QUERY_PARAMETER", text)
        text = self.error("SELECT {n:UInt8}", 457, settings={"param_n": "abc"})
        self.assertIn("abc", text)
        self.assertIn("BAD_QUERY_PARAMETER", text)

    def test_query_parameters_as_table_function_arguments(self):
        # numbers({n:UInt64}), as ClickHouse allows (it was "must be a literal number").
        self.assertEqual(self.ok("SELECT count(), sum(number) FROM numbers({n:UInt64})",
                                 settings={"param_n": "1000"}), b"1000\t499500\n")
        self.assertEqual(self.ok("SELECT number FROM numbers({a:Int64}, {b:UInt8})",
                                 settings={"param_a": "5", "param_b": "2"}), b"5\n6\n")
        self.error("SELECT * FROM numbers({n:UInt64})", 457, settings={"param_n": "-1"})

    def test_query_parameters_in_a_session(self):
        session = str(uuid.uuid4())
        self.ok("SET param_limit = '1'", session_id=session)
        self.assertEqual(self.ok("SELECT name FROM shop.items WHERE id <= {limit:UInt64}",
                                 session_id=session), b"apple\n")
        self.error("SELECT {limit:UInt64}", 456)  # not outside the session

    def test_query_parameters_over_http(self):
        status, body = self.http({"query": "SELECT {a:UInt8} + {b:UInt8}", "param_a": "2",
                                  "param_b": "3"})
        self.assertEqual((status, body), (200, b"5\n"))
        status, body = self.http({"query": "SELECT {a:UInt8}"})
        self.assertNotEqual(status, 200)
        self.assertIn(b"Code: 456", body)
        status, body = self.http({"query": "SELECT {a:UInt8}", "param_a": "300x"})
        self.assertIn(b"Code: 457", body)


class RestartTest(unittest.TestCase):
    def test_databases_survive_a_restart(self):
        data = tempfile.mkdtemp(prefix="granite-statements-")
        try:
            first = cluster.LocalCluster(testmain.granite(), workers=2, data_dir=data).start()
            try:
                with first.client() as client:
                    client.execute("CREATE DATABASE kept")
                    client.execute("CREATE DATABASE empty_one")
                    client.execute("CREATE TABLE kept.t (x UInt64) ENGINE = MergeTree ORDER BY x")
                    client.execute("INSERT INTO kept.t VALUES (1), (2), (3)")
                    client.execute("RENAME TABLE kept.t TO kept.u")
            finally:
                first.stop()
            second = cluster.LocalCluster(testmain.granite(), workers=2, data_dir=data).start()
            try:
                with second.client() as client:
                    self.assertEqual(client.query_text("SHOW DATABASES"),
                                     "default\nempty_one\nkept\nsystem\n")
                    self.assertEqual(client.query_text("SELECT sum(x) FROM kept.u"), "6\n")
                    self.assertEqual(client.query_text("EXISTS kept.t"), "0\n")
            finally:
                second.stop()
        finally:
            shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    testmain.main([StatementsTest, RestartTest])
