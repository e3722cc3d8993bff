#!/usr/bin/env python3
"""Replica repair by part copy (docs/adr/0004-replicated-shards.md, "Part copy"), 1 shard x 2
replicas behind one coordinator:
  - a replica whose data directory is wiped while it is stopped comes back with every row: the
    repair re-creates its table from its peer's schema and copies the table's parts and block ids
    from the peer, worker to worker (the peer no longer retains the blocks, so re-sending them is
    impossible), wide parts and compact ones (storage/part_format.h) alike; per-batch counts and
    content checksums equal the peer's. While it catches up,
    reads with load_balancing = in_order skip it (it lags), so no query sees fewer rows;
  - inserts while a replica is kill -9ed and restarted: every acknowledged batch is present
    exactly once on every replica after the repair, and the replicas hold the same rows;
  - a replica that lost its parts but kept its block ids (a partial data directory) is found by
    its row count and copied again;
  - with etcd, each shard's committed blocks are logged in etcd: a replica is behind by a block
    that only a stopped peer holds, and the log keeps the table's replicated_deduplication_window
    most recent blocks.
Sizes are small, every wait is bounded in time and count; nothing asserts timing."""

import os
import shutil
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

import granite_client  # noqa: E402
from etcd_test import PREFIX, EtcdServer  # noqa: E402
from replicas_test import batch_rows, batch_summary, per_batch  # noqa: E402

WAIT = 90.0  # bound of every wait for the cluster to change state


class RepairCluster(unittest.TestCase):
    """A SplitCluster of 1 shard x 2 replicas (workers 0 and 1)."""
    table_settings = ""

    def coordinator_args(self):
        return []

    def setUp(self):
        self.cluster = cluster.SplitCluster(testmain.granite(), workers=2, threads=1, replicas=2,
                                            coordinator_args=self.coordinator_args()).start()
        self.addCleanup(self.cluster.stop)
        self.client = self.cluster.client(timeout=60)
        self.addCleanup(self.client.close)
        self.client.query("CREATE TABLE t (x UInt64, batch UInt32) ENGINE = MergeTree "
                          "PARTITION BY batch % 3 ORDER BY x" + self.table_settings)

    def fail_with_logs(self, message):
        self.fail("%s\n%s" % (message, self.cluster.log_tail(40)))

    def insert_batch(self, batch, client=None, settings=None):
        (client or self.client).query("INSERT INTO t FORMAT CSV", input_data=batch_rows(batch),
                                      settings=settings)

    def replicas(self):
        text = self.client.query_text(
            "SELECT worker, is_active, blocks, blocks_behind, retained_blocks, total_rows, "
            "clones, state, last_error FROM system.replicas WHERE table = 't' ORDER BY worker")
        return [line.split("\t") for line in text.splitlines()]

    def wait_for(self, what, predicate):
        deadline = time.monotonic() + WAIT
        rows = []
        while time.monotonic() < deadline:
            rows = self.replicas()
            if len(rows) == 2 and predicate(rows):
                return rows
            time.sleep(0.3)
        self.fail_with_logs("%s: not within %.0f s: %r" % (what, WAIT, rows))

    def wait_caught_up(self):
        """Every replica active, none behind, the same blocks and rows on both."""
        return self.wait_for("replicas caught up", lambda rows: all(
            r[1] == "1" and r[3] == "0" and r[7] == "active" for r in rows)
            and rows[0][2] == rows[1][2] and rows[0][5] == rows[1][5])

    def wait_released(self):
        """Every block on both replicas and released: only a part copy can bring them back."""
        return self.wait_for("blocks released", lambda rows: all(
            r[1] == "1" and r[3] == "0" and r[4] == "0" for r in rows))

    def per_batch(self, replica):
        return per_batch([self.cluster.worker_ports[replica]])


class WipedReplicaTest(RepairCluster):
    def part_types(self):
        """Per worker, the kinds of its active parts of t: {worker: "Compact,Wide"}."""
        text = self.client.query_text(
            "SELECT DISTINCT worker, part_type FROM system.parts WHERE table = 't' AND active "
            "ORDER BY worker, part_type")
        types = {}
        for line in text.splitlines():
            worker, part_type = line.split("\t")
            types[worker] = types[worker] + "," + part_type if worker in types else part_type
        return types

    def test_wiped_replica_comes_back_with_every_row(self):
        # Wide parts (a file pair per column) for batches 0-7, merged; a compact one for 8.
        self.client.query("ALTER TABLE t MODIFY SETTING min_bytes_for_wide_part = 0")
        for b in range(8):
            self.insert_batch(b)
        self.client.query("OPTIMIZE TABLE t FINAL")  # merged parts on the peer, copied whole
        self.client.query("ALTER TABLE t RESET SETTING min_bytes_for_wide_part")
        self.insert_batch(8)
        self.wait_released()
        self.assertEqual(self.part_types(), {"0": "Compact,Wide", "1": "Compact,Wide"})
        expected = {b: batch_summary(b) for b in range(9)}
        total = "%d\t%d" % (sum(v[0] for v in expected.values()),
                            sum(v[1] for v in expected.values()))

        # Replica 1 (worker 0, the first that in_order reads) loses its whole data directory.
        self.cluster.kill9_worker(0)
        self.wait_for("replica 0 seen down", lambda rows: rows[0][1] == "0")
        shutil.rmtree(self.cluster.worker_dir(0))
        self.cluster.restart_worker(0)

        # While it catches up, reads preferring it go to its peer: never fewer rows.
        reader = self.cluster.client(timeout=60)
        self.addCleanup(reader.close)
        settings = {"load_balancing": "in_order"}
        deadline = time.monotonic() + WAIT
        answers = 0
        while time.monotonic() < deadline:
            self.assertEqual(reader.query_text("SELECT count(), sum(x) FROM t",
                                               settings=settings).strip(), total)
            answers += 1
            rows = self.replicas()
            if rows[0][7] == "active" and rows[0][3] == "0" and rows[0][5] == rows[1][5]:
                break
            time.sleep(0.1)
        self.assertGreater(answers, 0)
        rows = self.wait_caught_up()
        self.assertGreaterEqual(int(rows[0][6]), 1, "replica 0 should have copied the table")
        self.assertEqual(self.per_batch(0), expected)
        self.assertEqual(self.per_batch(1), expected)
        self.assertEqual(self.part_types(), {"0": "Compact,Wide", "1": "Compact,Wide"})

        # It takes part in inserts again, and a retried block is still deduplicated on it.
        self.insert_batch(9)
        self.insert_batch(9)
        self.wait_caught_up()
        expected[9] = batch_summary(9)
        self.assertEqual(self.per_batch(0), expected)
        self.assertEqual(self.per_batch(1), expected)

    def test_replica_that_lost_its_parts_but_kept_its_ids_is_copied_again(self):
        for b in range(4):
            self.insert_batch(b)
        self.wait_released()
        self.cluster.kill9_worker(1)
        self.wait_for("replica 1 seen down", lambda rows: rows[1][1] == "0")
        parts = os.path.join(self.cluster.worker_dir(1), "default", "t", "parts")
        if not os.path.isdir(parts):  # the layout of a table's directory
            found = [os.path.join(d, "parts") for d, subdirs, _ in os.walk(
                self.cluster.worker_dir(1)) if "parts" in subdirs and "replication" in subdirs]
            self.assertEqual(len(found), 1, found)
            parts = found[0]
        for name in os.listdir(parts):
            shutil.rmtree(os.path.join(parts, name))
        self.cluster.restart_worker(1)
        self.wait_for("replica 1 copied the table", lambda rows: int(rows[1][6]) >= 1)
        self.wait_caught_up()
        expected = {b: batch_summary(b) for b in range(4)}
        self.assertEqual(self.per_batch(1), expected)
        self.assertEqual(self.per_batch(0), expected)


class KilledReplicaTest(RepairCluster):
    def test_inserts_while_a_replica_is_killed_converge_exactly_once(self):
        acked, unknown = [], []
        stop = threading.Event()

        def load():
            client = self.cluster.client(timeout=60)
            try:
                for b in range(1000):  # bounded; stopped by the main thread long before
                    if stop.is_set():
                        break
                    try:
                        self.insert_batch(b, client=client, settings={"insert_quorum": "1"})
                        acked.append(b)
                    except granite_client.GraniteError:
                        unknown.append(b)  # may or may not have landed: at most once
            finally:
                client.close()

        def wait_inserts(n):
            target = len(acked) + n
            deadline = time.monotonic() + WAIT
            while len(acked) < target and time.monotonic() < deadline and thread.is_alive():
                time.sleep(0.05)

        thread = threading.Thread(target=load)
        thread.start()
        try:
            wait_inserts(5)
            self.cluster.kill9_worker(1)
            wait_inserts(10)
            self.cluster.restart_worker(1)
            wait_inserts(10)
            self.cluster.kill9_worker(0)
            wait_inserts(10)
            self.cluster.restart_worker(0)
            wait_inserts(5)
        finally:
            stop.set()
            thread.join(WAIT)
        self.assertGreater(len(acked), 20)
        self.wait_caught_up()
        # The states above may predate the last restart: the replicas' contents decide.
        deadline = time.monotonic() + WAIT
        while True:
            got = [self.per_batch(0), self.per_batch(1)]
            done = got[0] == got[1] and all(b in got[0] for b in acked)
            if done or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        self.assertEqual(got[0], got[1], "the replicas differ")
        for b in acked:
            self.assertEqual(got[0].get(b), batch_summary(b), "acknowledged batch %d" % b)
        for b in unknown:
            self.assertIn(got[0].get(b), (None, batch_summary(b)), "batch %d" % b)
        self.assertEqual(set(got[0]) - set(acked) - set(unknown), set())


class ShardLogTest(RepairCluster):
    table_settings = " SETTINGS replicated_deduplication_window = 5"

    def coordinator_args(self):
        self.etcd = EtcdServer().start()
        self.addCleanup(self.etcd.stop)
        return ["--etcd", self.etcd.endpoint]

    def logged(self):
        return self.etcd.ctl("get", "--prefix", "--keys-only",
                             PREFIX + "/shards/0/blocks/t/").split()

    def test_the_log_measures_lag_and_keeps_the_window(self):
        for b in range(3):
            self.insert_batch(b)
        self.assertEqual(len(self.logged()), 3)
        # Block 3 reaches replica 0 only; with replica 0 stopped, replica 1 is behind by it
        # (measured against the log: no reachable peer has it).
        self.cluster.kill9_worker(1)
        self.wait_for("replica 1 seen down", lambda rows: rows[1][1] == "0")
        self.insert_batch(3, settings={"insert_quorum": "1"})
        self.assertEqual(len(self.logged()), 4)
        self.cluster.kill9_worker(0)
        self.cluster.restart_worker(1)
        rows = self.wait_for("replica 1 behind by the logged block", lambda rows:
                             rows[0][1] == "0" and rows[1][1] == "1" and rows[1][3] == "1")
        self.assertIn("no reachable replica", rows[1][8])
        self.cluster.restart_worker(0)
        self.wait_for("replicas caught up", lambda rows: all(
            r[1] == "1" and r[3] == "0" and r[2] == "4" for r in rows))
        expected = {b: batch_summary(b) for b in range(4)}
        self.assertEqual(self.per_batch(0), expected)
        self.assertEqual(self.per_batch(1), expected)
        # The log keeps the 5 most recent blocks (trimmed once it is over); the replicas keep
        # twice the window of ids, so they still recognize a block older than the log's window
        # when it is inserted again.
        for b in range(4, 12):
            self.insert_batch(b)
        deadline = time.monotonic() + WAIT
        while len(self.logged()) > 5 and time.monotonic() < deadline:
            time.sleep(0.3)
        self.assertEqual(len(self.logged()), 5)
        self.insert_batch(4)
        self.wait_caught_up()
        expected = {b: batch_summary(b) for b in range(12)}
        self.assertEqual(self.per_batch(0), expected)
        self.assertEqual(self.per_batch(1), expected)


class PrunedIdsTest(RepairCluster):
    """replicated_deduplication_window = 2: the replicas keep the ids of their 4 most recent
    settled blocks and forget older ones, without a copy and without losing a block."""
    table_settings = " SETTINGS replicated_deduplication_window = 2"

    def wait_pruned(self, blocks):
        return self.wait_for("ids pruned to %d" % blocks, lambda rows: all(
            r[1] == "1" and r[3] == "0" and r[7] == "active" and r[2] == str(blocks)
            for r in rows))

    def test_settled_ids_are_forgotten_beyond_twice_the_window(self):
        for b in range(12):
            self.insert_batch(b)
        rows = self.wait_pruned(4)
        self.assertEqual([r[6] for r in rows], ["0", "0"], "no replica should copy the table")
        expected = {b: batch_summary(b) for b in range(12)}
        self.assertEqual(self.per_batch(0), expected)
        self.assertEqual(self.per_batch(1), expected)
        # The most recent blocks are still deduplicated.
        self.insert_batch(11)
        self.insert_batch(10)
        self.wait_caught_up()
        self.assertEqual(self.per_batch(0), expected)

        # A replica that misses blocks while down gets them re-sent, not a copy: its peer keeps
        # their rows until both have them.
        self.cluster.kill9_worker(1)
        self.wait_for("replica 1 seen down", lambda rows: rows[1][1] == "0")
        for b in range(12, 15):
            self.insert_batch(b, settings={"insert_quorum": "1"})
        self.cluster.restart_worker(1)
        rows = self.wait_pruned(4)
        self.assertEqual([r[6] for r in rows], ["0", "0"], "no replica should copy the table")
        expected.update({b: batch_summary(b) for b in range(12, 15)})
        self.assertEqual(self.per_batch(0), expected)
        self.assertEqual(self.per_batch(1), expected)

        # A wiped replica lacks the recent ids too: it is copied whole.
        self.cluster.kill9_worker(0)
        self.wait_for("replica 0 seen down", lambda rows: rows[0][1] == "0")
        shutil.rmtree(self.cluster.worker_dir(0))
        self.cluster.restart_worker(0)
        self.wait_for("replica 0 copied the table", lambda rows: int(rows[0][6]) >= 1)
        self.wait_caught_up()
        self.assertEqual(self.per_batch(0), expected)
        self.assertEqual(self.per_batch(1), expected)


if __name__ == "__main__":
    testmain.main([WipedReplicaTest, KilledReplicaTest, ShardLogTest, PrunedIdsTest])
