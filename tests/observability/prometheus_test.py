#!/usr/bin/env python3
"""A real Prometheus (Debian's `prometheus` package, scripts/install-deps.sh) scrapes a granite
cluster (granite local, 2 workers, --metrics-port 0) on loopback every second while clients run a
concurrent query load; the test then asks Prometheus' HTTP API whether the lock, query and memory
metrics of the coordinator and of both workers are present and increasing. Bounded to ~30 s."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402
import scrape  # noqa: E402

SCRAPE_INTERVAL = 1  # seconds
LOAD_QUERIES = 12  # per client: a count of work, not a time (a busy machine does less per second)
SCRAPED_TIMEOUT = 30  # bound on the wait for Prometheus to have scraped the load


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def find_prometheus():
    return os.environ.get("PROMETHEUS_BIN") or shutil.which("prometheus")


class Prometheus:
    """Runs a Prometheus server on loopback with a scrape config for the given targets."""

    def __init__(self, targets):
        self.dir = tempfile.mkdtemp(prefix="granite-prometheus-")
        self.port = free_port()
        lines = ["global:", "  scrape_interval: %ds" % SCRAPE_INTERVAL,
                 "  scrape_timeout: %ds" % SCRAPE_INTERVAL, "scrape_configs:"]
        for job, address in targets.items():
            lines += ["  - job_name: %s" % job, "    static_configs:",
                      "      - targets: ['%s']" % address]
        self.config = os.path.join(self.dir, "prometheus.yml")
        with open(self.config, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.log = open(os.path.join(self.dir, "prometheus.log"), "w+")
        self.proc = None

    def start(self, timeout=15):
        self.proc = subprocess.Popen(
            [find_prometheus(), "--config.file=" + self.config,
             "--storage.tsdb.path=" + os.path.join(self.dir, "data"),
             "--web.listen-address=127.0.0.1:%d" % self.port, "--log.level=warn"],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError("prometheus exited:\n" + self.log_text())
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/-/ready" % self.port,
                                            timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                pass
            time.sleep(0.1)
        raise AssertionError("prometheus not ready within %d s:\n%s" % (timeout, self.log_text()))

    def log_text(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()[-3000:]

    def query(self, expr):
        """Runs an instant query; returns [(labels, float value)]."""
        url = "http://127.0.0.1:%d/api/v1/query?%s" % (
            self.port, urllib.parse.urlencode({"query": expr}))
        with urllib.request.urlopen(url, timeout=5) as r:
            body = json.load(r)
        if body["status"] != "success":
            raise AssertionError("query %s failed: %s" % (expr, body))
        return [(item["metric"], float(item["value"][1])) for item in body["data"]["result"]]

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def by_job(results):
    return {labels.get("job"): value for labels, value in results}


class PrometheusTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not find_prometheus():
            raise AssertionError("no prometheus binary: run scripts/install-deps.sh "
                                 "(Debian package `prometheus`) or set PROMETHEUS_BIN")
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=2, threads=2,
                                           extra_args=["--metrics-port", "0"]).start()
        endpoints = scrape.endpoints_from_log(cls.cluster.log_tail(400).splitlines())
        targets = {name.replace(" ", ""): url[len("http://"):-len("/metrics")]
                   for name, url in endpoints.items()}
        cls.jobs = sorted(targets)  # coordinator, worker0, worker1
        cls.prometheus = Prometheus(targets)
        try:
            cls.prometheus.start()
        except BaseException:
            cls.prometheus.stop()
            cls.cluster.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.prometheus.stop()
        cls.cluster.stop()

    def wait_for(self, expr, predicate, timeout, what):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            last = self.prometheus.query(expr)
            if predicate(last):
                return last
            time.sleep(0.25)
        self.fail("%s: %s never held within %.0f s; last answer %s\nprometheus log:\n%s" % (
            what, expr, timeout, last, self.prometheus.log_text()))

    def run_load(self, queries, clients=4):
        errors = []

        def client_loop(i):
            with self.cluster.client() as client:
                for n in range(queries):
                    try:
                        if n % 3 == 0:
                            client.query("SELECT number % 13 AS k, count() FROM numbers(200000) "
                                         "GROUP BY k")
                        else:
                            client.query("SELECT sum(number) FROM numbers(%d)" % (1000 + i))
                    except Exception as e:  # noqa: BLE001 - collected and reported below
                        errors.append(e)

        threads = [threading.Thread(target=client_loop, args=(i,)) for i in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])

    def test_lock_query_and_memory_metrics_increase(self):
        all_up = lambda r: len(r) == 3 and all(v == 1 for _, v in r)  # noqa: E731
        self.wait_for("up", all_up, 15, "all three targets scraped")
        lock_expr = "sum by (job) (granite_lock_acquisitions_total)"
        query_expr = 'sum by (job) (granite_queries_total{status="ok"})'
        before_locks = by_job(self.wait_for(lock_expr, lambda r: len(r) == 3,
                                                SCRAPED_TIMEOUT, "lock series"))
        before_queries = by_job(self.prometheus.query(query_expr))
        before_rows = by_job(self.prometheus.query("granite_rows_read_total"))

        clients = 4
        self.run_load(LOAD_QUERIES, clients)
        # Waits (bounded) until scrapes after the load are stored, instead of sleeping a fixed
        # number of scrape intervals, which a busy machine's Prometheus can lag behind.
        loaded = before_queries.get("coordinator", 0) + clients * LOAD_QUERIES
        self.wait_for(query_expr, lambda r: by_job(r).get("coordinator", 0) >= loaded,
                      SCRAPED_TIMEOUT, "the load's queries scraped")
        self.wait_for(lock_expr, lambda r: all(by_job(r).get(job, 0) > before_locks[job]
                                               for job in self.jobs),
                      SCRAPED_TIMEOUT, "more lock acquisitions in every process")
        self.wait_for("granite_rows_read_total",
                      lambda r: all(by_job(r).get(job, 0) > before_rows.get(job, 0)
                                    for job in self.jobs),
                      SCRAPED_TIMEOUT, "more rows read in every process")

        # Per-lock series with the lock label, including the process-wide pool's queue lock.
        locks = self.prometheus.query('granite_lock_acquisitions_total{job="worker0"}')
        self.assertIn("thread_pool_queue", {labels["lock"] for labels, _ in locks})
        waits = self.prometheus.query("granite_lock_wait_seconds_total")
        self.assertTrue(waits)
        self.assertTrue(all(v >= 0 for _, v in waits))
        # Windows wide enough to hold the load however long the waits above took.
        rate = self.prometheus.query(
            'sum(rate(granite_queries_total{job="coordinator"}[1m]))')
        self.assertGreater(rate[0][1], 0)
        p90 = self.prometheus.query(
            "histogram_quantile(0.9, sum by (le) (rate(granite_query_duration_seconds_bucket[1m])))")
        self.assertTrue(p90 and p90[0][1] > 0, p90)
        memory = by_job(self.prometheus.query("granite_jemalloc_allocated_bytes"))
        self.assertEqual(sorted(memory), self.jobs)
        self.assertTrue(all(v > 0 for v in memory.values()), memory)
        up = self.prometheus.query('granite_worker_up{job="coordinator"}')
        self.assertEqual(sorted((l["worker"], v) for l, v in up), [("0", 1.0), ("1", 1.0)])


if __name__ == "__main__":
    testmain.main([PrometheusTest])
