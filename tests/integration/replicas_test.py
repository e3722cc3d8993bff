#!/usr/bin/env python3
"""Replicated shards (issue 27): S shards x R replicas behind one coordinator.
  - topology: system.clusters lists every replica (shard_num, replica_num, host, port);
  - reads: a query stream while one replica of R = 2 is kill -9ed and restarted fails no query;
    a stalled replica (SIGSTOP) fails over within the query's timeout; a shard whose every
    replica is down fails naming the shard and each replica (ALL_CONNECTION_TRIES_FAILED 279);
  - writes: with a replica down, insert_quorum = 1 acknowledges inserts, the default (a majority)
    refuses them with TOO_FEW_LIVE_REPLICAS 285 and writes nothing; once the replica is back, the
    repair copies what it missed, and every acknowledged batch is on every replica exactly once
    (per-batch counts and content checksums, each replica read through a coordinator of its own);
    a retried insert (same rows, or the same insert_deduplication_token) is not applied twice.
Sizes are small, every wait is bounded in time and count; nothing asserts timing."""

import os
import signal
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

import granite_client  # noqa: E402

WAIT = 60.0  # bound of every wait for the cluster to change state


def batch_rows(batch, n=200):
    """The CSV of batch `batch`: rows (batch * 1000 + i, batch), distinct per batch."""
    return "".join("%d,%d\n" % (batch * 1000 + i, batch) for i in range(n))


def batch_summary(batch, n=200):
    xs = [batch * 1000 + i for i in range(n)]
    return (n, sum(xs), sum(x * x for x in xs))


def per_batch(ports):
    """Per batch (count, sum(x), sum(x * x)) of table t on the workers `ports` (one replica of
    each shard), read through a coordinator of its own that sees only them."""
    proc = cluster.GraniteProcess(
        testmain.granite() + ["coordinator", "--port", "0", "--http_port", "0", "--workers",
                              ",".join("127.0.0.1:%d" % port for port in ports)],
        "replica_view", "coordinator").start()
    try:
        client = granite_client.connect(proc.host, proc.port, timeout=60)
        try:
            text = client.query_text(
                "SELECT batch, count(), sum(x), sum(x * x) FROM t GROUP BY batch ORDER BY batch")
        finally:
            client.close()
    finally:
        proc.stop()
    rows = {}
    for line in text.splitlines():
        b, c, s, q = (int(v) for v in line.split("\t"))
        rows[b] = (c, s, q)
    return rows


class ReplicaCluster(unittest.TestCase):
    """A SplitCluster of `shards` x 2 replicas; replica r of shard s is worker s * 2 + r."""
    shards = 1

    def setUp(self):
        self.cluster = cluster.SplitCluster(testmain.granite(), workers=self.shards * 2,
                                            threads=1, replicas=2).start()
        self.addCleanup(self.cluster.stop)
        self.client = self.cluster.client(timeout=60)
        self.addCleanup(self.client.close)
        self.client.query("CREATE TABLE t (x UInt64, batch UInt32) ENGINE = MergeTree ORDER BY x")
        self.stopped = []
        self.addCleanup(self.resume_stopped)

    def resume_stopped(self):
        for pid in self.stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass

    def fail_with_logs(self, message):
        self.fail("%s\n%s" % (message, self.cluster.log_tail(40)))

    def insert_batch(self, batch, settings=None):
        self.client.query("INSERT INTO t FORMAT CSV", input_data=batch_rows(batch),
                          settings=settings)

    def per_batch(self, replica):
        return per_batch([self.cluster.worker_ports[s * 2 + replica] for s in range(self.shards)])

    def wait_caught_up(self):
        """Waits until the repair reports no replica behind and every replica active."""
        deadline = time.monotonic() + WAIT
        text = ""
        while time.monotonic() < deadline:
            text = self.client.query_text(
                "SELECT worker, is_active, blocks, blocks_behind FROM system.replicas "
                "WHERE table = 't' ORDER BY worker")
            rows = [line.split("\t") for line in text.splitlines()]
            if (len(rows) == self.shards * 2 and all(r[1] == "1" and r[3] == "0" for r in rows)
                    and len(set(r[2] for r in rows)) >= 1):
                return rows
            time.sleep(0.3)
        self.fail_with_logs("replicas did not catch up within %.0f s:\n%s" % (WAIT, text))


class TopologyTest(ReplicaCluster):
    shards = 2

    def test_system_clusters_lists_every_replica(self):
        text = self.client.query_text(
            "SELECT shard_num, replica_num, port, is_local, worker FROM system.clusters "
            "ORDER BY worker")
        rows = [line.split("\t") for line in text.splitlines()]
        self.assertEqual([(r[0], r[1]) for r in rows],
                         [("1", "1"), ("1", "2"), ("2", "1"), ("2", "2")])
        self.assertEqual([int(r[2]) for r in rows], self.cluster.worker_ports)
        self.assertTrue(all(r[3] == "1" for r in rows))

    def test_rows_and_ddl_reach_every_replica(self):
        for b in range(4):
            self.insert_batch(b)
        self.assertEqual(self.client.query_text("SELECT count() FROM t").strip(), "800")
        # Each shard's rows count once, not once per replica.
        self.assertEqual(self.client.query_text(
            "SELECT total_rows FROM system.tables WHERE name = 't'").strip(), "800")
        with self.assertRaises(granite_client.GraniteError) as caught:
            self.client.query("ALTER TABLE t MODIFY SETTING sharding_key = 'x'")
        self.assertIn("holds 800 rows", str(caught.exception))
        expected = {b: batch_summary(b) for b in range(4)}
        for replica in (0, 1):
            self.assertEqual(self.per_batch(replica), expected)


class FailoverTest(ReplicaCluster):
    shards = 2

    def test_query_stream_survives_kill9_and_restart_of_a_replica(self):
        for b in range(10):
            self.insert_batch(b)
        expected_total = "2000\t%d" % sum(batch_summary(b)[1] for b in range(10))
        queries = [("SELECT count(), sum(x) FROM t", expected_total),
                   ("SELECT batch, count() FROM t GROUP BY batch ORDER BY batch LIMIT 2",
                    "0\t200\n1\t200")]
        failures, done = [], []
        stop = threading.Event()

        def stream():
            client = self.cluster.client(timeout=60)
            try:
                for i in range(5000):  # bounded; stopped by the main thread long before
                    if stop.is_set():
                        break
                    sql, want = queries[i % len(queries)]
                    try:
                        got = client.query_text(sql).strip()
                        if got != want:
                            failures.append("%s: %r" % (sql, got))
                    except granite_client.GraniteError as e:
                        failures.append("%s: %s" % (sql, e))
                    done.append(i)
            finally:
                client.close()

        thread = threading.Thread(target=stream)
        thread.start()
        try:
            def wait_queries(n):
                target = len(done) + n
                deadline = time.monotonic() + WAIT
                while len(done) < target and time.monotonic() < deadline and thread.is_alive():
                    time.sleep(0.05)
            wait_queries(10)
            self.cluster.kill9_worker(1)  # replica 2 of shard 1
            wait_queries(30)
            self.cluster.restart_worker(1)
            wait_queries(30)
            self.cluster.kill9_worker(2)  # replica 1 of shard 2
            wait_queries(30)
            self.cluster.restart_worker(2)
            wait_queries(30)
        finally:
            stop.set()
            thread.join(WAIT)
        self.assertGreater(len(done), 100)
        self.assertEqual(failures, [], self.cluster.log_tail(30))

    def test_all_replicas_of_a_shard_down_names_the_shard_and_each_replica(self):
        self.insert_batch(0)
        self.cluster.kill9_worker(2)
        self.cluster.kill9_worker(3)
        with self.assertRaises(granite_client.GraniteError) as caught:
            self.client.query("SELECT count() FROM t")
        e = caught.exception
        self.assertEqual(e.code, 279, str(e))
        self.assertIn("shard 1", str(e))
        for i in (2, 3):
            self.assertIn("127.0.0.1:%d" % self.cluster.worker_ports[i], str(e))


class StallTest(ReplicaCluster):
    def test_stalled_replica_fails_over_within_the_query_timeout(self):
        for b in range(3):
            self.insert_batch(b)
        pid = self.cluster.workers[0].pid
        os.kill(pid, signal.SIGSTOP)
        self.stopped.append(pid)
        settings = {"load_balancing": "in_order", "max_execution_time": "30"}
        got = self.client.query_text("SELECT count(), sum(x) FROM t", settings=settings).strip()
        self.assertEqual(got, "600\t%d" % sum(batch_summary(b)[1] for b in range(3)))
        # Again with aggregation streamed in buckets.
        got = self.client.query_text(
            "SELECT batch, count() FROM t GROUP BY batch ORDER BY batch", settings=settings)
        self.assertEqual(got, "0\t200\n1\t200\n2\t200\n")
        os.kill(pid, signal.SIGCONT)


class ReplicatedInsertTest(ReplicaCluster):
    def test_inserts_with_a_replica_down_converge_exactly_once(self):
        acked = []
        for b in range(3):
            self.insert_batch(b)
            acked.append(b)
        self.cluster.kill9_worker(1)
        # The default quorum (a majority of 2) cannot be met: refused, nothing written.
        with self.assertRaises(granite_client.GraniteError) as caught:
            self.insert_batch(100)
        self.assertEqual(caught.exception.code, 285, str(caught.exception))
        # insert_quorum = 1: acknowledged by the live replica alone.
        for b in range(3, 8):
            self.insert_batch(b, settings={"insert_quorum": "1"})
            acked.append(b)
        self.cluster.restart_worker(1)
        self.wait_caught_up()
        expected = {b: batch_summary(b) for b in acked}
        for replica in (0, 1):
            self.assertEqual(self.per_batch(replica), expected, "replica %d" % replica)

    def test_retried_insert_is_not_applied_twice(self):
        self.insert_batch(1)
        self.insert_batch(1)  # the same rows again: the same block
        token = {"insert_deduplication_token": "load-7"}
        self.insert_batch(2, settings=token)
        self.client.query("INSERT INTO t FORMAT CSV", input_data=batch_rows(3), settings=token)
        self.insert_batch(4, settings={"insert_deduplicate": "0"})
        self.insert_batch(4, settings={"insert_deduplicate": "0"})
        self.wait_caught_up()
        four = batch_summary(4)
        expected = {1: batch_summary(1), 2: batch_summary(2), 4: tuple(2 * v for v in four)}
        for replica in (0, 1):
            self.assertEqual(self.per_batch(replica), expected, "replica %d" % replica)


if __name__ == "__main__":
    testmain.main([TopologyTest, FailoverTest, StallTest, ReplicatedInsertTest])
