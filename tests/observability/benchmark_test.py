#!/usr/bin/env python3
"""`granite benchmark` against a granite local cluster (2 workers): counts, QPS and latency
percentiles in its JSON report, the servers' CPU time and lock waits read from system.metrics and
system.locks, errors counted (and the exit status 1), queries from a file, and bad options."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402


class BenchmarkTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.granite = testmain.granite()
        cls.cluster = cluster.LocalCluster(cls.granite, workers=2, threads=2).start()

    @classmethod
    def tearDownClass(cls):
        cls.cluster.stop()

    def bench(self, *args, stdin=None):
        argv = self.granite + ["benchmark", "--host", self.cluster.host,
                               "--port", str(self.cluster.port)] + list(args)
        return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=60)

    def test_iterations_with_json_report(self):
        done = self.bench("--concurrency", "4", "--iterations", "200", "--json",
                          "--query", "SELECT sum(number) FROM numbers(1000)")
        self.assertEqual(done.returncode, 0, done.stderr)
        report = json.loads(done.stdout)
        self.assertEqual(report["concurrency"], 4)
        self.assertEqual(report["queries"], 200)
        self.assertEqual(report["errors"], 0)
        self.assertGreater(report["qps"], 0)
        self.assertLessEqual(report["p50_ms"], report["p90_ms"])
        self.assertLessEqual(report["p90_ms"], report["p99_ms"])
        self.assertLessEqual(report["p99_ms"], report["max_ms"])
        self.assertEqual(report["rows_read"], 200 * 1000)
        self.assertEqual(sorted(report["cpu_seconds"]), ["0", "1", "coordinator"])
        self.assertGreater(sum(report["cpu_seconds"].values()), 0)
        locks = {lock["name"]: lock for lock in report["locks"]}
        self.assertIn("thread_pool_queue", locks)  # listed even when idle
        # Every query registers itself: the registry's lock is taken at least twice per query.
        self.assertGreaterEqual(locks["query_registry"]["acquisitions"], 2 * 200)
        self.assertGreaterEqual(report["lock_wait_share"], 0)

    def test_text_report_and_short_flags(self):
        done = self.bench("-c", "2", "-i", "20", "-q", "SELECT 1")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("20 queries in", done.stdout)
        self.assertRegex(done.stdout, r"QPS: [0-9.]+")
        self.assertRegex(done.stdout, r"latency ms: p50 [0-9.]+  p90 [0-9.]+  p99 [0-9.]+")
        self.assertIn("lock wait:", done.stdout)
        self.assertIn("server CPU:", done.stdout)

    def test_timelimit_and_queries_from_a_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
            f.write("-- short queries\nSELECT 1\n\nSELECT count() FROM numbers(100)\n")
            path = f.name
        try:
            done = self.bench("--concurrency", "2", "--timelimit", "0.5", "--json",
                              "--server_report=false", "--queries_file", path)
        finally:
            os.unlink(path)
        self.assertEqual(done.returncode, 0, done.stderr)
        report = json.loads(done.stdout)
        self.assertGreater(report["queries"], 0)
        # The time limit ended the run (it has no iteration limit, and bench() bounds it): at
        # least the limit passed; how much longer the last queries took depends on the machine.
        self.assertGreaterEqual(report["seconds"], 0.5)
        self.assertEqual(report["locks"], [])

    def test_errors_are_counted(self):
        done = self.bench("--iterations", "6", "--json", "--server_report=false",
                          stdin="SELECT 1\nSELECT no_such_column\n")
        self.assertEqual(done.returncode, 1)
        report = json.loads(done.stdout)
        self.assertEqual(report["queries"], 6)
        self.assertEqual(report["errors"], 3)

    def test_bad_options(self):
        done = self.bench("--concurrency", "0", "--query", "SELECT 1")
        self.assertEqual(done.returncode, 1)
        self.assertIn("--concurrency must be at least 1, not 0", done.stderr)
        done = self.bench("--iterations", "1", stdin="")
        self.assertEqual(done.returncode, 1)
        self.assertIn("No queries to run", done.stderr)
        unreachable = subprocess.run(
            self.granite + ["benchmark", "--port", "1", "--iterations", "1", "--query", "SELECT 1"],
            capture_output=True, text=True, timeout=60)
        self.assertEqual(unreachable.returncode, 1)
        self.assertIn("Cannot reach 127.0.0.1:1", unreachable.stderr)


if __name__ == "__main__":
    testmain.main([BenchmarkTest])
