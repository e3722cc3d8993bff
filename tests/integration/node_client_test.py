#!/usr/bin/env python3
"""Issue 24: ClickHouse's official Node.js client (@clickhouse/client from npm, installed into
tests/integration/node/ by scripts/install-node-clients.sh) runs a scripted session against the
HTTP interface of granite local (1 worker): see tests/integration/node/session.mjs. Skipped when
node or the package is missing."""

import os
import shutil
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

NODE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node")
TIMEOUT = 150


class NodeClientTest(unittest.TestCase):
    def test_scripted_session(self):
        node = shutil.which("node")
        package = os.path.join(NODE_DIR, "node_modules", "@clickhouse", "client")
        if node is None or not os.path.isdir(package):
            self.skipTest("node or @clickhouse/client missing (scripts/install-node-clients.sh)")
        with cluster.LocalCluster(testmain.granite(), workers=1) as local:
            url = "http://%s:%d" % (local.host, local.http_port)
            run = subprocess.run([node, os.path.join(NODE_DIR, "session.mjs"), url],
                                 capture_output=True, text=True, timeout=TIMEOUT)
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
            self.assertEqual(run.stdout, "ok\n")
            # The aborted request cancelled its query on the server.
            client = local.client(timeout=60)
            deadline = time.monotonic() + 60
            while client.query_text("SELECT count() FROM system.processes "
                                    "WHERE query_id = 'node-cancel'") != "0\n":
                self.assertLess(time.monotonic(), deadline, "the aborted query still runs")
                time.sleep(0.05)
            client.close()


if __name__ == "__main__":
    testmain.main([NodeClientTest])
