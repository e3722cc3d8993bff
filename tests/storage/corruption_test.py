#!/usr/bin/env python3
"""Damaged storage seen from SQL on a 2-worker cluster of separate worker processes (issue 19,
items 4 and 5).

Parts: a part whose data fails its checksum fails the query that reads it and is moved to
detached/ (logged, counted in system.events PartsDetached); the table keeps answering without it,
as ClickHouse does, and system.detached_parts and CHECK TABLE say so. ATTACH PART verifies the
checksums (a still damaged part stays detached), DROP DETACHED PART needs allow_drop_detached = 1.
A damaged .mrk found at start-up detaches the part with a log line too. The parts are small, so
compact (storage/part_format.h): data.bin holds the one column's blocks, data.mrk its marks.

Tables: a damaged schema file of one table does not keep its worker from starting; that table is
reported broken (naming the worker) while the others answer, and DROP TABLE removes it.
"""

import glob
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

import granite_client  # noqa: E402

CHECKSUM_DOESNT_MATCH = 40
UNKNOWN_TABLE = 60
CORRUPTED_DATA = 246
SUPPORT_IS_DISABLED = 344
NO_SUCH_DATA_PART = 232
ROWS = 100000
NO_CACHE = " SETTINGS use_uncompressed_cache = 0"


def flip_byte_from_end(path, offset):
    with open(path, "r+b") as f:
        f.seek(-offset, os.SEEK_END)
        c = f.read(1)
        f.seek(-offset, os.SEEK_END)
        f.write(bytes([c[0] ^ 0x5A]))


class CorruptionTest(unittest.TestCase):
    def setUp(self):
        self.cluster = cluster.SplitCluster(testmain.granite(), workers=2).start()
        self.addCleanup(self.cluster.stop)
        self.client = self.cluster.client(timeout=60)
        self.addCleanup(lambda: self.client.close())

    def fail_with_logs(self, message):
        self.fail("%s\n%s" % (message, self.cluster.log_tail()))

    def q(self, sql):
        return self.client.query_text(sql).strip()

    def assert_error(self, sql, code, *texts):
        with self.assertRaises(granite_client.GraniteError) as ctx:
            self.client.query(sql)
        self.assertEqual(ctx.exception.code, code, str(ctx.exception))
        for text in texts:
            self.assertIn(text, ctx.exception.message)
        return ctx.exception

    def worker_log(self, i):
        return self.cluster.workers[i].log_tail(400)

    def wait_for_log(self, i, text):
        deadline = time.monotonic() + 10
        while text not in self.worker_log(i):
            if time.monotonic() > deadline:
                self.fail_with_logs("worker %d never logged %r" % (i, text))
            time.sleep(0.1)

    def parts_of(self, worker, table="t"):
        return sorted(glob.glob(os.path.join(self.cluster.worker_dir(worker), "tables", table,
                                             "parts", "*_*_*_*")))

    def load(self):
        self.client.query("CREATE TABLE t (x UInt64) ENGINE = MergeTree ORDER BY x")
        self.client.query("INSERT INTO t SELECT number FROM numbers(%d)" % ROWS)
        self.assertEqual(self.q("SELECT count() FROM t"), str(ROWS))

    def detached_count(self, worker):
        value = self.q("SELECT value FROM system.events WHERE event = 'PartsDetached' "
                       "AND worker = '%d'" % worker)
        return int(value or 0)

    def test_damaged_part_is_reported_checked_attached_and_dropped(self):
        self.load()
        self.assertEqual(self.q("CHECK TABLE t"), "1")
        part = self.parts_of(0)[0]
        name = os.path.basename(part)
        flip_byte_from_end(os.path.join(part, "data.bin"), 3)
        # CHECK TABLE finds it without taking it out.
        self.assertEqual(self.q("CHECK TABLE t"), "0")
        rows = self.q("CHECK TABLE t SETTINGS check_query_single_value_result = 0").splitlines()
        failed = [r.split("\t") for r in rows if r.split("\t")[1] == "0"]
        self.assertEqual(len(failed), 1, rows)
        self.assertEqual(failed[0][0], name)
        self.assertIn("Checksum mismatch", failed[0][2])
        self.assertEqual(failed[0][3], "0")
        self.assertEqual(self.q("SELECT count() FROM system.detached_parts"), "0")

        # The query reading it fails naming it; the part leaves the table, loudly.
        before = self.detached_count(0)
        self.assert_error("SELECT sum(x) FROM t" + NO_CACHE, CHECKSUM_DOESNT_MATCH, name,
                          "detached/broken_" + name)
        self.wait_for_log(0, "part %s moved to detached/broken_%s" % (name, name))
        self.assertEqual(self.detached_count(0), before + 1)
        self.assertEqual(
            self.q("SELECT table, name, reason, partition_id, worker FROM system.detached_parts"),
            "t\tbroken_%s\tbroken\tall\t0" % name)
        # The table keeps answering without the part (ClickHouse's choice); CHECK TABLE says so.
        remaining = int(self.q("SELECT count() FROM t"))
        self.assertLess(remaining, ROWS)
        self.assertEqual(self.q("CHECK TABLE t"), "0")

        # ATTACH PART verifies first: still damaged, it stays detached.
        self.assert_error("ALTER TABLE t ATTACH PART 'broken_%s'" % name, CHECKSUM_DOESNT_MATCH,
                          "stays in detached/")
        self.assertEqual(self.q("SELECT count() FROM system.detached_parts"), "1")
        self.assert_error("ALTER TABLE t ATTACH PART 'all_999_999_0'", NO_SUCH_DATA_PART)
        # Repaired (the flipped byte flipped back), it is attached under a new block number.
        detached = os.path.join(self.cluster.worker_dir(0), "tables", "t", "detached",
                                "broken_" + name)
        flip_byte_from_end(os.path.join(detached, "data.bin"), 3)
        self.client.query("ALTER TABLE t ATTACH PART 'broken_%s'" % name)
        self.assertEqual(self.q("SELECT count(), sum(x) FROM t" + NO_CACHE),
                         "%d\t%d" % (ROWS, ROWS * (ROWS - 1) // 2))
        self.assertEqual(self.q("SELECT count() FROM system.detached_parts"), "0")
        self.assertEqual(self.q("CHECK TABLE t"), "1")

        # DROP DETACHED PART needs the setting, as in ClickHouse.
        part = self.parts_of(1)[0]
        name = os.path.basename(part)
        flip_byte_from_end(os.path.join(part, "data.bin"), 3)
        self.assert_error("SELECT sum(x) FROM t" + NO_CACHE, CHECKSUM_DOESNT_MATCH)
        self.assert_error("ALTER TABLE t DROP DETACHED PART 'broken_%s'" % name,
                          SUPPORT_IS_DISABLED, "allow_drop_detached")
        self.client.query("ALTER TABLE t DROP DETACHED PART 'broken_%s' "
                          "SETTINGS allow_drop_detached = 1" % name)
        self.assertEqual(self.q("SELECT count() FROM system.detached_parts"), "0")
        self.assertEqual(self.q("CHECK TABLE t"), "1")

    def test_damaged_marks_detach_the_part_at_start_up_with_a_log_line(self):
        self.load()
        part = self.parts_of(1)[0]
        name = os.path.basename(part)
        self.cluster.workers[1].stop()
        flip_byte_from_end(os.path.join(part, "data.mrk"), 20)
        self.cluster.restart_worker(1)
        self.wait_for_log(1, "part %s moved to detached/broken_%s" % (name, name))
        self.assertEqual(self.detached_count(1), 1)
        self.assertEqual(self.q("SELECT name, reason, worker FROM system.detached_parts"),
                         "broken_%s\tbroken\t1" % name)
        self.assertLess(int(self.q("SELECT count() FROM t")), ROWS)

    def test_damaged_schema_file_breaks_only_its_table(self):
        self.load()
        self.client.query("CREATE TABLE other (s String) ENGINE = MergeTree ORDER BY s")
        self.client.query("INSERT INTO other VALUES ('a'), ('b'), ('c')")
        schema = os.path.join(self.cluster.worker_dir(0), "tables", "t", "schema")
        self.cluster.workers[0].stop()
        with open(schema, "r+b") as f:
            f.write(b"\xff\xfe garbage")
        self.cluster.restart_worker(0)  # raises if the worker does not start
        self.wait_for_log(0, "table t is broken")
        # The coordinator's catalog predates the damage: the worker itself names the problem.
        self.assert_error("SELECT count() FROM t", CORRUPTED_DATA, "broken")
        # A fresh coordinator loads the catalog and names the worker.
        self.cluster.restart_coordinator()
        self.client.close()
        self.client = self.cluster.client(timeout=60)
        port = self.cluster.worker_ports[0]
        self.assert_error("SELECT count() FROM t", CORRUPTED_DATA,
                          "broken on worker 0 (127.0.0.1:%d)" % port, "DROP TABLE t")
        self.assertEqual(self.q("SELECT count() FROM other"), "3")
        self.assertEqual(self.q("SELECT name FROM system.tables ORDER BY name"), "other")
        # The damaged files stay until the table is dropped on purpose.
        self.assertTrue(os.path.exists(schema))
        self.client.query("DROP TABLE t")
        self.assertFalse(os.path.exists(os.path.dirname(schema)))
        self.assert_error("SELECT count() FROM t", UNKNOWN_TABLE, "does not exist")
        self.client.query("CREATE TABLE t (x UInt64) ENGINE = MergeTree ORDER BY x")
        self.assertEqual(self.q("SELECT count() FROM t"), "0")


if __name__ == "__main__":
    testmain.main([CorruptionTest])
