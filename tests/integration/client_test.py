#!/usr/bin/env python3
"""The `granite client` command line: --query, --format, stdin streamed into INSERT ... FORMAT,
and a non-zero exit with the server's message on errors."""

import os
import socket
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

import granite_client  # noqa: E402


class ClientCliTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=1).start()
        cls.api = cls.cluster.client(timeout=60)

    @classmethod
    def tearDownClass(cls):
        cls.api.close()
        cls.cluster.stop()

    def cli(self, *args, stdin=None, port=None):
        argv = testmain.granite() + ["client", "--host", "127.0.0.1", "--port",
                                     str(port or self.cluster.port)] + list(args)
        return subprocess.run(argv, input=stdin if stdin is not None else b"",
                              capture_output=True, timeout=60)

    def ok(self, *args, stdin=None):
        proc = self.cli(*args, stdin=stdin)
        self.assertEqual(proc.returncode, 0, "%s failed: %s %s" % (args, proc.stdout,
                                                                   proc.stderr))
        return proc.stdout.decode()

    def server_message(self, sql):
        with self.assertRaises(granite_client.GraniteError) as ctx:
            self.api.query(sql)
        return ctx.exception

    def test_query(self):
        self.assertEqual(self.ok("--query", "SELECT 1"), "1\n")
        self.assertEqual(self.ok("--query", "SELECT number, number * 2 FROM numbers(3)"),
                         "0\t0\n1\t2\n2\t4\n")

    def test_format_flag(self):
        sql = "SELECT 1 AS a, 'x' AS b"
        self.assertEqual(self.ok("--query", sql, "--format", "CSV"), '1,"x"\n')
        self.assertEqual(self.ok("--query", sql, "--format", "JSONEachRow"), '{"a":1,"b":"x"}\n')
        self.assertEqual(self.ok("--query", sql, "--format", "TabSeparatedWithNames"),
                         "a\tb\n1\tx\n")

    def test_format_clause(self):
        self.assertEqual(self.ok("--query", "SELECT 1 AS a FORMAT JSONEachRow"), '{"a":1}\n')

    def test_stdin_streams_into_insert(self):
        self.ok("--query", "CREATE TABLE cli_in (n UInt64, s String) ENGINE = MergeTree ORDER BY n")
        data = b"".join(b"%d\tname %d\n" % (i, i) for i in range(100000))
        self.ok("--query", "INSERT INTO cli_in FORMAT TabSeparated", stdin=data)
        self.assertEqual(self.ok("--query", "SELECT count(), sum(n) FROM cli_in"),
                         "100000\t4999950000\n")
        self.assertEqual(self.ok("--query", "SELECT s FROM cli_in WHERE n = 77"), "name 77\n")

    def test_bad_stdin_row_fails_and_inserts_nothing(self):
        self.ok("--query", "CREATE TABLE cli_bad (n UInt64) ENGINE = MergeTree ORDER BY n")
        data = b"1\n2\nthree\n4\n"
        proc = self.cli("--query", "INSERT INTO cli_bad FORMAT TabSeparated", stdin=data)
        self.assertNotEqual(proc.returncode, 0)
        self.assertRegex((proc.stdout + proc.stderr).decode(), r"(line|row) 3\b")
        self.assertEqual(self.ok("--query", "SELECT count() FROM cli_bad"), "0\n")

    def test_errors_exit_non_zero_with_the_server_message(self):
        for sql in ["SELECT 1 FORM numbers(3)", "SELECT * FROM no_such_table",
                    "SELECT no_such_function(1)"]:
            with self.subTest(sql=sql):
                expected = self.server_message(sql)
                proc = self.cli("--query", sql)
                self.assertNotEqual(proc.returncode, 0)
                printed = (proc.stdout + proc.stderr).decode()
                self.assertIn(expected.message, printed)

    def test_query_of_only_comments_runs_nothing(self):
        # Issue 19: `-q "-- comment"` ran stdin as a script. A query of only comments is an empty
        # query: nothing runs, exit 0, stdin is not read (here it would create a table).
        self.ok("--query", "CREATE TABLE cli_comment (n UInt64) ENGINE = MergeTree ORDER BY n")
        script = b"INSERT INTO cli_comment VALUES (1);\nSELECT 42;\n"
        for query in ["-- comment", "/* only a block comment */", "-- a; -- b", ""]:
            with self.subTest(query=query):
                self.assertEqual(self.ok("--query", query, stdin=script), "")
                self.assertEqual(self.ok("-q", query, stdin=script), "")
        self.assertEqual(self.ok("--query", "SELECT count() FROM cli_comment"), "0\n")
        # A query value that starts with "--" is passed as it is (dashes in flag names become
        # underscores; this once turned "5-2" into "5_2").
        self.assertEqual(self.ok("-q", "-- leading comment\nSELECT 5-2"), "3\n")
        self.assertEqual(self.ok("--query=--x-y\nSELECT 7-2"), "5\n")

    def test_clickhouse_client_flags(self):
        # Issue 24: the flags clickhouse-client users reach for.
        proc = self.cli("--version")
        self.assertEqual(proc.returncode, 0)
        self.assertRegex(proc.stdout.decode(), r"^granite client version \d+\.\d+\.\d+\n$")
        usage = self.ok("--help")
        for flag in ("--database", "--time", "--multiquery", "--param_", "\\G"):
            self.assertIn(flag, usage)
        self.assertNotIn("--metrics_port", usage)  # only the client's own flags
        self.assertEqual(self.ok("-q", "SELECT {x:UInt64} + 1, {s:String}", "--param_x=41",
                                 "--param_s", "a'b"), "42\ta\\'b\n")
        proc = self.cli("-q", "SELECT {missing:UInt8}")
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn(b"missing", proc.stderr)
        self.assertEqual(self.ok("-d", "default", "-n", "-q", "SELECT 1; SELECT 2"), "1\n2\n")
        proc = self.cli("--database", "elsewhere", "-q", "SELECT 1")
        self.assertEqual(proc.returncode, 81)
        self.assertIn(b"UNKNOWN_DATABASE", proc.stderr)
        proc = self.cli("-t", "-q", "SELECT 1")
        self.assertEqual(proc.stdout, b"1\n")
        self.assertRegex(proc.stderr.decode(), r"^\d+\.\d{3}\n$")

    def test_vertical_output_with_backslash_g(self):
        out = self.ok("--interactive", stdin=b"SELECT 1 AS a, 'x' AS b\\G\n")
        self.assertIn("Row 1:\n", out)
        self.assertIn("a: 1\n", out)
        self.assertIn("b: x\n", out)
        self.assertIn("Row 1:\n", self.ok("-q", "SELECT 2 AS c\\G"))

    def test_failed_insert_of_invalid_utf8_exits_non_zero(self):
        # Issue 24: the error quoting the bytes broke the reply and the client exited 0.
        self.ok("--query", "CREATE TABLE cli_utf (n UInt32) ENGINE = MergeTree ORDER BY n")
        proc = self.cli("--query", "INSERT INTO cli_utf FORMAT CSV", stdin=b"1\n\xff\xfe\n")
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn(b"\\xFF", proc.stderr)
        self.assertIn(b"Code: ", proc.stderr)

    def test_unreachable_server_fails(self):
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.close()
        proc = self.cli("--query", "SELECT 1", port=port)
        self.assertNotEqual(proc.returncode, 0)
        self.assertTrue(proc.stdout + proc.stderr)


if __name__ == "__main__":
    testmain.main([ClientCliTest])
