#!/usr/bin/env python3
"""Crash safety of storage under kill -9, in a loop.

Each iteration runs two inserting clients and an OPTIMIZE loop against a `granite worker` (behind
a `granite coordinator`, with background merges on), kills the worker with SIGKILL at a random
moment — during inserts, commits and merges — restarts it on the same data folder and checks:
  - every acknowledged insert is present exactly once (count and sum of its rows);
  - every insert that is present is complete: an unacknowledged one may have committed before the
    kill (its answer was lost) or not at all, but never in part, never twice;
  - nothing else is there, and an insert once seen after a restart stays.
Rows of each insert span three months, so commits of several parts (the committing_ directory
that start-up finishes) are exercised too.

GRANITE_KILL_ITERATIONS (default 50) sets the number of iterations; GRANITE_KILL_SEED the seed.
"""

import datetime
import os
import random
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

import granite_client  # noqa: E402

ITERATIONS = int(os.environ.get("GRANITE_KILL_ITERATIONS", "50"))
SEED = int(os.environ.get("GRANITE_KILL_SEED", str(int(time.time()))))
ROWS = 60  # rows per insert: one per day from 2024-01-16 to 2024-03-15 (three months)
RECOVERY_TIMEOUT = 30.0
# Bound on the wait for each iteration's first acknowledged insert (a slow machine only waits
# longer; the kill never comes before it).
FIRST_ACK_TIMEOUT = 60.0


def batch_csv(batch):
    """Rows of insert `batch`: x = batch * 1000 + i, one day per row from 2024-01-16."""
    first = datetime.date(2024, 1, 16)
    return "".join("%d,%d,%s\n" % (batch, batch * 1000 + i, first + datetime.timedelta(days=i))
                   for i in range(ROWS)).encode()


def batch_sum(batch):
    return sum(batch * 1000 + i for i in range(ROWS))


class KillTest(unittest.TestCase):
    def setUp(self):
        self.cluster = cluster.SplitCluster(testmain.granite(), workers=1).start()
        self.addCleanup(self.cluster.stop)
        self.client = self.cluster.client(timeout=20)
        self.addCleanup(lambda: self.client.close())
        self.client.query("CREATE TABLE k (batch UInt32, x UInt64, d Date) ENGINE = MergeTree "
                          "PARTITION BY toYYYYMM(d) ORDER BY x")
        self.lock = threading.Lock()
        self.acked_changed = threading.Condition(self.lock)
        self.next_batch = 0
        self.acked = set()
        self.attempted = set()
        self.known = set()  # batches seen after some restart: must stay
        self.leftovers = {"tmp_prepared_": 0, "tmp_merge_": 0, "committing_": 0}

    def fail_with_logs(self, message):
        self.fail("%s (seed %d)\n%s" % (message, SEED, self.cluster.log_tail()))

    def take_batch(self):
        with self.lock:
            batch = self.next_batch
            self.next_batch += 1
            self.attempted.add(batch)
            return batch

    def writer(self, stop):
        client = self.cluster.client(timeout=10)
        try:
            while not stop.is_set():
                batch = self.take_batch()
                try:
                    client.query("INSERT INTO k FORMAT CSV", input_data=batch_csv(batch))
                except granite_client.GraniteError:
                    continue  # failed, or its answer was lost: may or may not be there
                with self.lock:
                    self.acked.add(batch)
                    self.acked_changed.notify_all()
        finally:
            client.close()

    def optimizer(self, stop, rng):
        client = self.cluster.client(timeout=10)
        try:
            while not stop.is_set():
                try:
                    client.query("OPTIMIZE TABLE k" + (" FINAL" if rng.random() < 0.3 else ""))
                except granite_client.GraniteError:
                    pass
                stop.wait(rng.uniform(0.0, 0.05))
        finally:
            client.close()

    def count_leftovers(self):
        """Counts what the kill interrupted, from the directories it left in parts/."""
        parts = os.path.join(self.cluster.worker_dir(0), "tables", "k", "parts")
        for entry in os.listdir(parts) if os.path.isdir(parts) else []:
            for prefix in self.leftovers:
                if entry.startswith(prefix):
                    self.leftovers[prefix] += 1

    def batches_after_restart(self):
        deadline = time.monotonic() + RECOVERY_TIMEOUT
        while True:
            try:
                text = self.client.query_text(
                    "SELECT batch, count(), sum(x), uniqExact(x) FROM k GROUP BY batch")
                break
            except granite_client.GraniteError as e:
                if time.monotonic() > deadline:
                    self.fail_with_logs("no answer %.0f s after the restart: %s"
                                        % (RECOVERY_TIMEOUT, e))
                time.sleep(0.05)
        found = {}
        for line in text.splitlines():
            batch, count, total, distinct = map(int, line.split("\t"))
            found[batch] = (count, total, distinct)
        return found

    def check(self, iteration):
        found = self.batches_after_restart()
        for batch, (count, total, distinct) in found.items():
            if batch not in self.attempted:
                self.fail_with_logs("iteration %d: batch %d was never inserted" % (iteration, batch))
            if (count, total, distinct) != (ROWS, batch_sum(batch), ROWS):
                self.fail_with_logs("iteration %d: batch %d is partial or doubled: %d rows "
                                    "(%d distinct), sum %d; expected %d rows, sum %d"
                                    % (iteration, batch, count, distinct, total, ROWS,
                                       batch_sum(batch)))
        missing = sorted((self.acked | self.known) - set(found))
        if missing:
            self.fail_with_logs("iteration %d: acknowledged or earlier visible batches lost: %s"
                                % (iteration, missing[:20]))
        self.known |= set(found)
        return len(found)

    def test_kill9_during_inserts_and_merges(self):
        rng = random.Random(SEED)
        started = time.monotonic()
        for iteration in range(ITERATIONS):
            stop = threading.Event()
            threads = [threading.Thread(target=self.writer, args=(stop,)) for _ in range(2)]
            threads.append(threading.Thread(target=self.optimizer, args=(stop, rng)))
            with self.lock:
                acked_before = len(self.acked)
            for thread in threads:
                thread.start()
            # Real work before every kill, however slow the machine: an insert of this iteration
            # is acknowledged first, then the kill comes at a random moment after it.
            with self.lock:
                if not self.acked_changed.wait_for(lambda: len(self.acked) > acked_before,
                                                   FIRST_ACK_TIMEOUT):
                    stop.set()
                    self.fail_with_logs("iteration %d: no insert acknowledged within %.0f s"
                                        % (iteration, FIRST_ACK_TIMEOUT))
            time.sleep(rng.uniform(0.02, 0.25))
            self.cluster.kill9_worker(0)
            self.count_leftovers()
            stop.set()
            for thread in threads:
                thread.join(60)
                self.assertFalse(thread.is_alive(), "a client hung after the kill")
            self.cluster.restart_worker(0)
            visible = self.check(iteration)
        elapsed = time.monotonic() - started
        print("  %d kills in %.1f s (seed %d): %d inserts attempted, %d acknowledged, %d visible; "
              "interrupted: %s" % (ITERATIONS, elapsed, SEED, len(self.attempted),
                                   len(self.acked), visible, self.leftovers), flush=True)
        # Every iteration waited for an acknowledged insert before its kill (not a count of work
        # done in a fixed time, which a busy machine missed: 48 acknowledged in 50 iterations).
        self.assertGreaterEqual(len(self.acked), ITERATIONS)


if __name__ == "__main__":
    testmain.main([KillTest])
