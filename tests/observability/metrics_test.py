#!/usr/bin/env python3
"""Observability of a granite cluster (granite local, 2 workers, --metrics-port 0): the Prometheus
endpoint of the coordinator and of every worker (families, names, values that move with the load),
system.metrics / system.events / system.locks with their worker column, system.query_log,
system.processes and KILL QUERY, the fixed port layout of `granite local --metrics-port P`, and
that every metric the Grafana dashboard plots is exported."""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402
import scrape  # noqa: E402

from granite_client.errors import GraniteError  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
DASHBOARD = os.path.join(REPO, "deploy", "grafana", "granite.json")

# Families every process exports.
COMMON_FAMILIES = [
    "granite_lock_acquisitions_total", "granite_lock_contended_total",
    "granite_lock_wait_seconds_total", "granite_queries_total", "granite_query_duration_seconds",
    "granite_rows_read_total", "granite_bytes_read_total", "granite_merge_seconds_total",
    "granite_hash_table_two_level_conversions_total", "granite_jemalloc_allocated_bytes",
    "granite_jemalloc_resident_bytes", "granite_jemalloc_mapped_bytes",
    "granite_grpc_received_bytes_total", "granite_grpc_sent_bytes_total",
    "process_cpu_seconds_total",
]
COORDINATOR_FAMILIES = ["granite_running_queries", "granite_queued_queries", "granite_worker_up"]
WORKER_FAMILIES = ["granite_active_parts", "granite_running_fragments"]


def family_of(sample_name, types):
    """Maps a sample name (x_bucket, x_count, ...) to its family."""
    for suffix in ("_bucket", "_sum", "_count"):
        if sample_name.endswith(suffix) and types.get(sample_name[:-len(suffix)]) == "histogram":
            return sample_name[:-len(suffix)]
    return sample_name


class MetricsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=2, threads=2,
                                           extra_args=["--metrics-port", "0"]).start()
        cls.endpoints = scrape.endpoints_from_log(cls.cluster.log_tail(400).splitlines())
        cls.client = cls.cluster.client()
        cls.client.query("CREATE TABLE obs (k UInt64, g UInt8) ENGINE = MergeTree ORDER BY k")
        cls.client.query("INSERT INTO obs SELECT number, number % 7 FROM numbers(20000)")

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.stop()

    def rows(self, sql):
        text = self.client.query_text(sql)
        return [line.split("\t") for line in text.splitlines()]

    # The endpoints.

    def test_local_prints_every_endpoint(self):
        self.assertEqual(sorted(self.endpoints), ["coordinator", "worker 0", "worker 1"],
                         self.cluster.log_tail(40))
        ports = {re.search(r":(\d+)/metrics$", url).group(1) for url in self.endpoints.values()}
        self.assertEqual(len(ports), 3)

    def test_every_process_exports_the_required_families(self):
        for process, url in self.endpoints.items():
            samples = scrape.scrape(url)
            families = {family_of(n, samples.types) for n in samples.names()}
            required = COMMON_FAMILIES + (COORDINATOR_FAMILIES if process == "coordinator"
                                          else WORKER_FAMILIES)
            for family in required:
                self.assertIn(family, families, "%s lacks %s" % (process, family))
            self.assertEqual(samples.types["granite_query_duration_seconds"], "histogram")
            self.assertGreater(samples.total("granite_jemalloc_allocated_bytes"), 0, process)
            locks = {labels["lock"] for labels, _ in
                     samples.series("granite_lock_acquisitions_total")}
            self.assertIn("thread_pool_queue", locks, process)

    def test_promtool_check_metrics_is_clean(self):
        # Issue 24: promtool rejected granite_counter_thread_blocks (a type in the name).
        promtool = shutil.which("promtool")
        if promtool is None:
            self.fail("promtool not found: run scripts/install-deps.sh (Debian package prometheus)")
        for process, url in self.endpoints.items():
            with urllib.request.urlopen(url, timeout=30) as response:
                text = response.read()
            check = subprocess.run([promtool, "check", "metrics"], input=text,
                                   capture_output=True, timeout=60)
            self.assertEqual(check.returncode, 0,
                             "%s: %s%s" % (process, check.stdout.decode(), check.stderr.decode()))
            self.assertNotIn(b"Events counted by", text, process)

    def test_names_follow_prometheus_conventions(self):
        samples = scrape.scrape(self.endpoints["worker 0"])
        for family, kind in samples.types.items():
            if not family.startswith("granite_"):
                continue
            self.assertRegex(family, r"^[a-z][a-z0-9_]*$")
            if kind == "counter":
                self.assertTrue(family.endswith("_total"), family)
            self.assertNotRegex(family, r"_(ms|us|microseconds|milliseconds|kb|mb)(_|$)", family)

    def test_counters_move_with_queries(self):
        coordinator = self.endpoints["coordinator"]
        worker = self.endpoints["worker 0"]
        before_c, before_w = scrape.scrape(coordinator), scrape.scrape(worker)
        for _ in range(5):
            self.assertEqual(self.client.query_text("SELECT count(), sum(k) FROM obs"),
                             "20000\t199990000\n")
        with self.assertRaises(GraniteError):
            self.client.query("SELECT no_such_column FROM obs")
        after_c, after_w = scrape.scrape(coordinator), scrape.scrape(worker)

        def delta(before, after, name, **labels):
            return after.total(name, **labels) - before.total(name, **labels)

        self.assertGreaterEqual(delta(before_c, after_c, "granite_queries_total",
                                      kind="select", status="ok"), 5)
        self.assertGreaterEqual(delta(before_c, after_c, "granite_queries_total",
                                      kind="select", status="error"), 1)
        self.assertGreaterEqual(delta(before_c, after_c, "granite_query_duration_seconds_count"), 6)
        self.assertGreaterEqual(delta(before_c, after_c, "granite_rows_read_total"), 5 * 20000)
        self.assertGreater(delta(before_c, after_c, "granite_grpc_received_bytes_total"), 0)
        self.assertGreater(delta(before_c, after_c, "granite_lock_acquisitions_total"), 0)
        # Worker 0 scanned its shard five times.
        self.assertGreater(delta(before_w, after_w, "granite_rows_read_total"), 0)
        self.assertGreater(delta(before_w, after_w, "granite_bytes_read_total"), 0)
        self.assertGreater(delta(before_w, after_w, "granite_grpc_sent_bytes_total"), 0)
        self.assertGreaterEqual(after_w.total("granite_active_parts"), 1)
        up = {labels["worker"]: v for labels, v in after_c.series("granite_worker_up")}
        self.assertEqual(up, {"0": 1.0, "1": 1.0})

    # SQL introspection.

    def test_system_events_metrics_and_locks_cover_every_process(self):
        self.client.query("SELECT sum(k) FROM obs")
        events = self.rows("SELECT worker, value FROM system.events WHERE event = 'ReadRows'")
        self.assertEqual(sorted(w for w, _ in events), ["0", "1", "coordinator"])
        for worker, value in events:
            self.assertGreater(int(value), 0, worker)
        metrics = self.rows("SELECT worker, value FROM system.metrics "
                            "WHERE metric = 'JemallocAllocatedBytes'")
        self.assertEqual(sorted(w for w, _ in metrics), ["0", "1", "coordinator"])
        parts = self.rows("SELECT worker, value FROM system.metrics WHERE metric = 'ActiveParts'")
        self.assertEqual(sorted(w for w, _ in parts), ["0", "1"])
        locks = self.rows("SELECT worker, acquisitions FROM system.locks "
                          "WHERE name = 'thread_pool_queue'")
        self.assertEqual(sorted(w for w, _ in locks), ["0", "1", "coordinator"])
        described = self.rows("SELECT description FROM system.events "
                              "WHERE event = 'ReadRows' AND worker = 'coordinator'")
        self.assertTrue(described[0][0])

    def test_query_log_records_finished_queries(self):
        self.client.execute("SELECT g, count() FROM obs GROUP BY g", query_id="log-ok-1")
        with self.assertRaises(GraniteError):
            self.client.execute("SELECT nope FROM obs", query_id="log-err-1")
        ok = self.rows("SELECT type, read_rows, result_rows, query_kind, worker_elapsed_us, "
                       "exception_code, query, memory_usage FROM system.query_log "
                       "WHERE query_id = 'log-ok-1'")
        self.assertEqual(len(ok), 1)
        kind, read_rows, result_rows, query_kind, per_worker, code, text, memory = ok[0]
        self.assertEqual(kind, "QueryFinish")
        self.assertEqual(int(read_rows), 20000)
        self.assertEqual(int(result_rows), 7)
        self.assertEqual(query_kind, "select")
        self.assertEqual(len(per_worker.split(",")), 2, per_worker)
        self.assertEqual(code, "0")
        self.assertEqual(text, "SELECT g, count() FROM obs GROUP BY g")
        self.assertGreater(int(memory), 0)
        err = self.rows("SELECT type, exception_code, exception FROM system.query_log "
                        "WHERE query_id = 'log-err-1'")
        self.assertEqual(err[0][0], "ExceptionWhileProcessing")
        self.assertEqual(err[0][1], "47")  # UNKNOWN_IDENTIFIER
        self.assertIn("nope", err[0][2])

    def test_kill_query_cancels_a_running_query(self):
        outcome = {}

        def long_query():
            try:
                self.client.execute("SELECT sum(number) FROM numbers(100000000000)",
                                    query_id="kill-me", timeout=60)
                outcome["result"] = "finished"
            except GraniteError as e:
                outcome["result"] = e.code

        runner = threading.Thread(target=long_query)
        runner.start()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.rows("SELECT query_id FROM system.processes WHERE query_id = 'kill-me'"):
                break
            time.sleep(0.02)
        else:
            self.fail("kill-me never showed in system.processes")
        killed = self.rows("KILL QUERY WHERE query_id = 'kill-me' SYNC")
        runner.join(60)
        self.assertFalse(runner.is_alive())
        # Cancelled, not finished and not timed out: that the kill worked needs no stopwatch
        # (which a busy machine may miss).
        self.assertEqual(outcome["result"], 394)  # QUERY_WAS_CANCELLED
        self.assertEqual(killed[0][:2], ["finished", "kill-me"])
        self.assertEqual(self.rows("KILL QUERY WHERE query_id = 'no-such-query'"), [])
        log = self.rows("SELECT exception_code FROM system.query_log WHERE query_id = 'kill-me'")
        self.assertEqual(log, [["394"]])

    def test_dashboard_plots_only_exported_metrics(self):
        with open(DASHBOARD) as f:
            dashboard = json.load(f)
        exported = set()
        for url in self.endpoints.values():
            samples = scrape.scrape(url)
            exported |= {family_of(n, samples.types) for n in samples.names()}
        referenced = set()
        for panel in dashboard["panels"]:
            for target in panel.get("targets", []):
                for name in re.findall(r"\b((?:granite|process)_[a-z0-9_]+)", target["expr"]):
                    referenced.add(re.sub(r"_(bucket|sum|count)$", "", name))
        self.assertTrue(referenced)
        self.assertEqual(referenced - exported, set())


def free_port_block(count):
    """Returns a base port P such that P..P+count-1 are free on loopback (best effort)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + count > 65535:
            continue
        sockets = []
        try:
            for p in range(base, base + count):
                s = socket.socket()
                sockets.append(s)
                s.bind(("127.0.0.1", p))
            return base
        except OSError:
            continue
        finally:
            for s in sockets:
                s.close()
    raise RuntimeError("no block of %d free ports" % count)


class FixedPortsTest(unittest.TestCase):
    def test_metrics_port_layout(self):
        base = free_port_block(3)
        with cluster.LocalCluster(testmain.granite(), workers=2, threads=1,
                                  extra_args=["--metrics-port", str(base)]) as c:
            endpoints = scrape.endpoints_from_log(c.log_tail(400).splitlines())
            self.assertEqual(endpoints, {
                "coordinator": "http://127.0.0.1:%d/metrics" % base,
                "worker 0": "http://127.0.0.1:%d/metrics" % (base + 1),
                "worker 1": "http://127.0.0.1:%d/metrics" % (base + 2),
            })
            for url in endpoints.values():
                self.assertIn("granite_lock_acquisitions_total", scrape.fetch(url))


if __name__ == "__main__":
    testmain.main([MetricsTest, FixedPortsTest])
