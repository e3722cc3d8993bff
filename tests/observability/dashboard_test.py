#!/usr/bin/env python3
"""Validates deploy/grafana/granite.json: well-formed JSON with the structure Grafana needs (unique
panel ids, grid inside 24 columns, one data source variable, targets with unique refIds), the
panels the issue asks for (lock wait rate by lock, QPS, latency quantiles, rows/s, memory, parts),
and every PromQL expression parsed by promtool (as recording rules)."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "harness"))
import testmain  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
DASHBOARD = os.path.join(REPO, "deploy", "grafana", "granite.json")


def load():
    with open(DASHBOARD) as f:
        return json.load(f)


def graph_panels(dashboard):
    return [p for p in dashboard["panels"] if p["type"] != "row"]


def expressions(dashboard):
    return [t["expr"] for p in graph_panels(dashboard) for t in p["targets"]]


class DashboardTest(unittest.TestCase):
    def test_structure(self):
        d = load()
        self.assertEqual(d["uid"], "granite-overview")
        self.assertIsInstance(d["schemaVersion"], int)
        variables = {v["name"]: v for v in d["templating"]["list"]}
        self.assertEqual(variables["datasource"]["type"], "datasource")
        self.assertEqual(variables["datasource"]["query"], "prometheus")
        ids = [p["id"] for p in d["panels"]]
        self.assertEqual(len(ids), len(set(ids)))
        for p in d["panels"]:
            g = p["gridPos"]
            self.assertLessEqual(g["x"] + g["w"], 24, p["title"])
            self.assertGreater(g["h"], 0, p["title"])
            self.assertTrue(p["title"])
        for p in graph_panels(d):
            self.assertEqual(p["datasource"]["uid"], "${datasource}", p["title"])
            refs = [t["refId"] for t in p["targets"]]
            self.assertTrue(refs, p["title"])
            self.assertEqual(len(refs), len(set(refs)), p["title"])
            for t in p["targets"]:
                self.assertEqual(t["expr"].count("("), t["expr"].count(")"), t["expr"])

    def test_required_panels(self):
        d = load()
        by_title = {p["title"]: p for p in graph_panels(d)}
        lock = by_title["Lock wait rate by lock"]["targets"][0]["expr"]
        self.assertIn("sum by (lock)", lock)
        self.assertIn("rate(granite_lock_wait_seconds_total", lock)
        self.assertIn("granite_queries_total", by_title["Queries per second"]["targets"][0]["expr"])
        quantiles = [t["expr"] for t in by_title["Query latency quantiles"]["targets"]]
        for q in ("0.5", "0.9", "0.99"):
            self.assertTrue(any("histogram_quantile(%s," % q in e and
                                "granite_query_duration_seconds_bucket" in e for e in quantiles), q)
        self.assertIn("rate(granite_rows_read_total",
                      by_title["Rows read per second"]["targets"][0]["expr"])
        memory = " ".join(t["expr"] for t in by_title["Memory (jemalloc)"]["targets"])
        for kind in ("allocated", "resident", "mapped"):
            self.assertIn("granite_jemalloc_%s_bytes" % kind, memory)
        self.assertIn("granite_active_parts", by_title["Active parts"]["targets"][0]["expr"])

    def test_promql_parses(self):
        promtool = shutil.which("promtool")
        if promtool is None:
            self.fail("promtool not found: run scripts/install-deps.sh (Debian package prometheus)")
        rules = ["groups:", "  - name: dashboard", "    rules:"]
        for i, expr in enumerate(expressions(load())):
            # Grafana's variables, as Grafana would substitute them.
            expr = expr.replace("$__rate_interval", "1m").replace("$instance", ".*")
            rules += ["      - record: dashboard:expr_%d" % i, "        expr: %s" % json.dumps(expr)]
        with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
            f.write("\n".join(rules) + "\n")
            path = f.name
        try:
            done = subprocess.run([promtool, "check", "rules", path], capture_output=True,
                                  text=True, timeout=30)
        finally:
            os.unlink(path)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertRegex(done.stdout, r"SUCCESS: \d+ rules found")

    def test_metric_names_follow_conventions(self):
        for expr in expressions(load()):
            for name in re.findall(r"\b(granite_[a-z0-9_]+)", expr):
                self.assertRegex(name, r"^[a-z][a-z0-9_]*$")


if __name__ == "__main__":
    testmain.main([DashboardTest])
