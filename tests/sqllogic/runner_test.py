#!/usr/bin/env python3
"""Tests of the sqllogic runner and the cluster harness, using the Python fake server (no granite
build needed): file parsing, result comparison, the per-file cluster life cycle, the summary line
and exit code, and the SIGTERM-then-SIGKILL stop."""

import os
import shlex
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.join(os.path.dirname(HERE), "harness")
sys.path.insert(0, HERE)
sys.path.insert(0, HARNESS)
import cluster  # noqa: E402
import runner  # noqa: E402
import testmain  # noqa: E402

FAKE = "%s %s" % (shlex.quote(sys.executable), shlex.quote(os.path.join(HARNESS, "fake_server.py")))


def parse(text):
    return runner.parse(textwrap.dedent(text), "t.test")


class ParseTest(unittest.TestCase):
    def test_records(self):
        records = parse("""\
            # a comment
            statement ok
            CREATE TABLE t (x UInt8)
              ENGINE = MergeTree ORDER BY x

            statement error 62
            SELEC 1

            statement error 27|6 line 3
            INSERT INTO t VALUES

            query IT rowsort
            SELECT x, s
            FROM t
            ----
            1\ta
            2\t(empty)
            (empty)\t(empty)

            query I
            SELECT 1 WHERE 0
            ----
            """)
        self.assertEqual([r.kind for r in records], ["statement"] * 3 + ["query"] * 2)
        self.assertEqual(records[0].sql,
                         "CREATE TABLE t (x UInt8)\n  ENGINE = MergeTree ORDER BY x")
        self.assertIsNone(records[0].expect_error)
        self.assertEqual(records[1].expect_error, ((62,), None))
        self.assertEqual(records[2].expect_error, ((27, 6), "line 3"))
        self.assertEqual(records[3].line, 12)
        self.assertEqual((records[3].types, records[3].sort), ("IT", "rowsort"))
        self.assertEqual(records[3].sql, "SELECT x, s\nFROM t")
        self.assertEqual(records[3].expected, ["1\ta", "2\t", "\t"])
        self.assertEqual(records[4].expected, [])

    def test_statement_error_without_code_accepts_any(self):
        self.assertEqual(parse("statement error\nSELECT\n")[0].expect_error, (None, None))

    def test_halt_stops_reading(self):
        records = parse("statement ok\nSELECT 1\n\nhalt\n\nstatement ok\nSELECT 2\n")
        self.assertEqual(len(records), 1)

    def test_rejects_bad_files(self):
        bad = {
            "statement maybe\nSELECT 1\n": "statement ok",
            "statement error sixty\nSELECT 1\n": "numeric",
            "query I\nSELECT 1\n\n": "----",
            "query I\nSELECT 1\n----\n1\t2\n": "2 fields",
            "query i\nSELECT 1\n----\n": "column types",
            "query I sorted\nSELECT 1\n----\n": "sorted",
            "statement ok\n\n": "without SQL",
            "select 1\n": "expected 'statement' or 'query'",
            "statement ok\nSELECT 1\n----\n": "no '----'",
        }
        for text, message in bad.items():
            with self.assertRaises(runner.ParseError, msg=text) as ctx:
                runner.parse(text, "bad.test")
            self.assertIn(message, str(ctx.exception))
            self.assertIn("bad.test:", str(ctx.exception))

    def test_field_count_error_names_the_row_line(self):
        with self.assertRaises(runner.ParseError) as ctx:
            runner.parse("\nquery II\nSELECT 1,\n 2\n----\n1\t2\n3\n", "f.test")
        self.assertIn("f.test:7:", str(ctx.exception))


class CompareTest(unittest.TestCase):
    def record(self, types, expected, sort="nosort"):
        r = runner.Record("query", 1)
        r.types, r.expected, r.sort = types, expected, sort
        return r

    def test_exact_match(self):
        self.assertIsNone(runner.compare(self.record("IT", ["1\ta", "2\tb"]), "1\ta\n2\tb\n"))
        self.assertIsNotNone(runner.compare(self.record("IT", ["1\ta", "2\tb"]), "2\tb\n1\ta\n"))
        self.assertIsNone(runner.compare(self.record("I", []), ""))
        self.assertIsNotNone(runner.compare(self.record("I", []), "1\n"))
        self.assertIsNotNone(runner.compare(self.record("I", ["1"]), ""))

    def test_rowsort(self):
        r = self.record("IT", ["1\ta", "2\tb"], "rowsort")
        self.assertIsNone(runner.compare(r, "2\tb\n1\ta\n"))
        self.assertIsNotNone(runner.compare(r, "2\tb\n1\tc\n"))

    def test_empty_strings_and_rows(self):
        self.assertIsNone(runner.compare(self.record("T", [""]), "\n"))
        self.assertIsNone(runner.compare(self.record("TT", ["\t"]), "\t\n"))

    def test_missing_final_newline(self):
        self.assertIn("newline", runner.compare(self.record("I", ["1"]), "1"))

    def test_field_count(self):
        self.assertIn("fields", runner.compare(self.record("II", ["1"]), "1\n"))


class RunnerEndToEndTest(unittest.TestCase):
    def run_runner(self, text, *extra):
        with tempfile.NamedTemporaryFile("w", suffix=".test", delete=False) as f:
            f.write(textwrap.dedent(text))
        self.addCleanup(os.unlink, f.name)
        proc = subprocess.run(
            [sys.executable, os.path.join(HERE, "runner.py"), "--granite", FAKE] + list(extra) +
            [f.name], capture_output=True, text=True, timeout=120)
        return proc, f.name

    def test_passing_file_on_two_cluster_sizes(self):
        proc, _ = self.run_runner("""\
            statement ok
            CREATE TABLE t (x UInt8) ENGINE = MergeTree ORDER BY x

            query I
            SELECT 42
            ----
            42

            statement error 62
            SELEC 1

            statement error 60 does not exist
            SELECT * FROM no_such_table
            """, "--workers", "1", "--workers", "3")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        lines = proc.stdout.strip().splitlines()
        self.assertEqual(lines[-1], "2 passed, 0 failed")
        self.assertTrue(any("workers=3" in l for l in lines), proc.stdout)

    def test_failures_name_file_line_sql_and_rows(self):
        proc, path = self.run_runner("""\
            query I
            SELECT 7
            ----
            8

            statement error 62
            SELECT 1

            statement ok
            SELEC 2

            statement error 47
            SELEC 3
            """)
        self.assertEqual(proc.returncode, 1)
        out = proc.stdout
        self.assertEqual(out.strip().splitlines()[-1], "0 passed, 1 failed")
        self.assertIn("%s:1: result differs" % path, out)
        self.assertIn("SQL: SELECT 7", out)
        self.assertIn("expected:\n    8\n  actual:\n    7", out)
        self.assertIn("%s:6: expected error 62, but the statement succeeded" % path, out)
        self.assertIn("%s:9: unexpected error: Code: 62 (SYNTAX_ERROR)" % path, out)
        self.assertIn("%s:12: expected error code 47, got Code: 62" % path, out)

    def test_cluster_that_cannot_start_fails_the_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".test", delete=False) as f:
            f.write("statement ok\nSELECT 1\n")
        self.addCleanup(os.unlink, f.name)
        proc = subprocess.run([sys.executable, os.path.join(HERE, "runner.py"), "--granite",
                               "false", "--workers", "1", "--workers", "3", f.name],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("cluster did not start", proc.stdout)
        self.assertEqual(proc.stdout.strip().splitlines()[-1], "0 passed, 2 failed")

    def test_parse_only(self):
        proc, _ = self.run_runner("query I\nSELECT 1\n----\n1\n", "--parse-only")
        self.assertEqual(proc.returncode, 0)
        self.assertEqual(proc.stdout.strip().splitlines()[-1], "1 passed, 0 failed")


class ClusterTest(unittest.TestCase):
    def test_local_cluster_serves_and_cleans_up(self):
        c = cluster.LocalCluster(shlex.split(FAKE), workers=2)
        data = c.data_dir
        with c:
            self.assertGreater(c.port, 0)
            with c.client() as client:
                self.assertEqual(client.query_text("SELECT 5"), "5\n")
            self.assertTrue(c.process.alive())
        self.assertFalse(c.process.alive())
        self.assertFalse(os.path.exists(data))

    def test_stop_kills_a_process_that_ignores_sigterm(self):
        script = ("import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                  "print('granite worker listening on 127.0.0.1:1234', flush=True); "
                  "time.sleep(600)")
        p = cluster.GraniteProcess([sys.executable, "-c", script], "stubborn", "worker").start()
        self.assertEqual(p.port, 1234)
        started = time.monotonic()
        code = p.stop(grace=1.0)
        self.assertEqual(code, -9)
        self.assertLess(time.monotonic() - started, 8)

    def test_waits_for_its_own_role_line(self):
        script = ("import time; print('granite worker listening on 127.0.0.1:1111', flush=True);"
                  "time.sleep(0.3); print('granite local listening on 127.0.0.1:2222 (1 workers)',"
                  " flush=True); time.sleep(600)")
        p = cluster.GraniteProcess([sys.executable, "-c", script], "local", "local").start()
        try:
            self.assertEqual(p.port, 2222)
        finally:
            p.stop(grace=1.0)

    def test_exit_before_listening_reports_the_log(self):
        p = cluster.GraniteProcess([sys.executable, "-c", "print('boom'); raise SystemExit(3)"],
                                   "broken", "local")
        with self.assertRaises(cluster.ClusterError) as ctx:
            p.start()
        self.assertIn("exited with code 3", str(ctx.exception))
        self.assertIn("boom", str(ctx.exception))


if __name__ == "__main__":
    testmain.main([ParseTest, CompareTest, RunnerEndToEndTest, ClusterTest])
