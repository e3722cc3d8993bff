#!/usr/bin/env python3
"""Issue 19: idle processes kept the memory of their last big query (0.8 to 2.2 GB RSS).

jemalloc applied its dirty-page decay only when a thread allocated or freed, so a server that went
idle after a big GROUP BY never gave the pages back. With background_thread:true
(core/malloc_conf.c) its own threads purge them within about the decay time (30 s).

Measured from /proc/<pid>/status (VmRSS) of the coordinator and the workers; the assertion is a
large fall from the post-query level within a bounded wait, with no timing of the query itself.
"""

import os
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

WAIT = 120  # seconds: the bound of the idle wait (the decay time is 30 s)


class IdleMemoryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=2).start()
        cls.client = cls.cluster.client(timeout=300)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.stop()

    def test_the_allocator_purges_in_the_background(self):
        log = self.cluster.log_tail(200)
        self.assertIn("background_thread=true", log)

    def test_an_idle_server_returns_a_big_querys_memory(self):
        pids = {"coordinator": self.cluster.process.pid}
        for worker, pid in (line.split("\t") for line in self.client.query_text(
                "SELECT index, pid FROM system.workers").splitlines()):
            pids["worker " + worker] = int(pid)
        # About 8M groups: a few hundred MiB of hash tables on each process (with the ORDER BY
        # key LIMIT filter on, the workers would aggregate only the first keys' rows).
        self.client.query("SELECT number % 8000000 AS k, count(), sum(number) "
                          "FROM numbers_mt(16000000) GROUP BY k ORDER BY k LIMIT 1 "
                          "SETTINGS enable_group_by_top_k_optimization = 0")
        after = {name: cluster.rss_kb(pid) for name, pid in pids.items()}
        # Each process held at least ~60 MiB more than an idle one (~30 MiB) right after.
        grown = {name: kb for name, kb in after.items() if kb > 96 * 1024}
        self.assertTrue(grown, "no process grew: %s" % after)
        deadline = time.monotonic() + WAIT
        while True:
            now = {name: cluster.rss_kb(pids[name]) for name in grown}
            if all(now[name] < grown[name] / 2 for name in grown):
                break
            self.assertLess(time.monotonic(), deadline,
                            "RSS (KiB) did not halve within %d s idle: after the query %s, now %s"
                            % (WAIT, grown, now))
            time.sleep(0.5)


if __name__ == "__main__":
    testmain.main([IdleMemoryTest])
