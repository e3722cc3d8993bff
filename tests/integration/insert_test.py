#!/usr/bin/env python3
"""Bulk inserts into a 3-worker cluster: a 1,000,000-row CSV insert streamed in 1 MiB chunks is
exact; a malformed row fails the whole insert with its line number and leaves nothing visible;
likewise for TabSeparated and JSONEachRow input; forced small chunks (SETTINGS input_chunk_rows) keep
every row exactly once, route by the sharding key, and a bad row in a later chunk leaves nothing;
chunks parsed in parallel store what a serial parse stores, name a bad row's line in the whole
text, and KILL QUERY in the middle of an insert leaves nothing."""

import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

import granite_client  # noqa: E402

ROWS = 1000000
BAD_LINE = 500001
PARSE_ERRORS = (27, 6, 26, 72, 117)  # ClickHouse's CANNOT_PARSE_* / INCORRECT_DATA codes
CHUNK = 1 << 20


def csv_lines(n, bad_line=None):
    """Yields the CSV text of rows 0..n-1 as (x, "s<x>"); line bad_line (1-based) is malformed."""
    for i in range(n):
        if i + 1 == bad_line:
            yield "12x4,\"broken\"\n"
        else:
            yield "%d,\"s%d\"\n" % (i, i)


def chunked(lines, size=CHUNK):
    """Groups text lines into byte chunks of about size bytes (rows split across chunks)."""
    buf, length = [], 0
    for line in lines:
        buf.append(line)
        length += len(line)
        if length >= size:
            data = "".join(buf).encode()
            # Split the chunk mid-row so the server must carry partial rows over.
            yield data[:-3]
            buf, length = [data[-3:].decode()], 3
    if buf:
        yield "".join(buf).encode()


class InsertTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=3).start()
        cls.client = cls.cluster.client(timeout=120)
        cls.client.query("CREATE TABLE big (x UInt64, s String) ENGINE = MergeTree ORDER BY x")
        cls.client.insert_stream("INSERT INTO big FORMAT CSV", chunked(csv_lines(ROWS)))

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.stop()

    def count_sum(self, table="big"):
        return self.client.query_text("SELECT count(), sum(x) FROM %s" % table)

    def test_million_row_csv_insert_is_exact(self):
        self.assertEqual(self.count_sum(), "%d\t%d\n" % (ROWS, ROWS * (ROWS - 1) // 2))
        self.assertEqual(self.client.query_text(
            "SELECT x, s FROM big WHERE x IN (0, 499999, 999999) ORDER BY x"),
            "0\ts0\n499999\ts499999\n999999\ts999999\n")

    def test_no_row_lost_or_duplicated(self):
        self.assertEqual(self.client.query_text(
            "SELECT count() FROM big GROUP BY x % 3 ORDER BY x % 3"), "333334\n333333\n333333\n")

    def assert_parse_error_with_line(self, error, line):
        self.assertIn(error.code, PARSE_ERRORS, str(error))
        self.assertRegex(error.message, r"(?<!\d)%d(?!\d)" % line,
                         "the message does not name line %d: %s" % (line, error.message))

    def test_malformed_csv_row_fails_the_whole_insert(self):
        before = self.count_sum()
        with self.assertRaises(granite_client.GraniteError) as ctx:
            self.client.insert_stream("INSERT INTO big FORMAT CSV",
                                      chunked(csv_lines(ROWS, bad_line=BAD_LINE)))
        self.assertNotIsInstance(ctx.exception, granite_client.TransportError)
        self.assert_parse_error_with_line(ctx.exception, BAD_LINE)
        self.assertEqual(self.count_sum(), before)

    def test_bad_tsv_value_fails_the_whole_insert(self):
        self.client.query("CREATE TABLE tsv (x UInt64, d Date, s String) ENGINE = MergeTree "
                          "ORDER BY x")
        good = "".join("%d\t2024-01-%02d\tv%d\n" % (i, i % 28 + 1, i) for i in range(1000))
        self.client.insert_stream("INSERT INTO tsv FORMAT TabSeparated", [good.encode()])
        lines = ["%d\t2024-02-%02d\tw%d\n" % (i, i % 28 + 1, i) for i in range(2000)]
        lines[776] = "abc\t2024-02-01\tw776\n"  # line 777: not a number
        with self.assertRaises(granite_client.GraniteError) as ctx:
            self.client.insert_stream("INSERT INTO tsv FORMAT TabSeparated",
                                      chunked(lines, size=4096))
        self.assert_parse_error_with_line(ctx.exception, 777)
        self.assertEqual(self.count_sum("tsv"), "1000\t499500\n")

    def test_json_each_row_insert(self):
        self.client.query("CREATE TABLE js (x UInt64, s String) ENGINE = MergeTree ORDER BY x")
        rows = "".join('{"x":%d,"s":"j%d"}\n' % (i, i) for i in range(5000))
        self.client.insert_stream("INSERT INTO js FORMAT JSONEachRow", chunked([rows], 1000))
        self.assertEqual(self.count_sum("js"), "5000\t12497500\n")
        with self.assertRaises(granite_client.GraniteError):
            self.client.insert_stream("INSERT INTO js FORMAT JSONEachRow",
                                      [b'{"x":1,"s":"a"}\n{"x":"no","s":"b"}\n'])
        self.assertEqual(self.count_sum("js"), "5000\t12497500\n")

    # Chunked inserts: SETTINGS input_chunk_rows forces many small chunks through the same
    # ExecuteQueryWithStreamInput stream; all chunks commit together or not at all.

    def test_many_chunks_over_the_stream_arrive_exactly_once(self):
        self.client.query("CREATE TABLE ch (x UInt64, s String) ENGINE = MergeTree ORDER BY x")
        rows = 20000
        self.client.insert_stream("INSERT INTO ch FORMAT CSV",
                                  chunked(csv_lines(rows), size=10000),
                                  settings={"input_chunk_rows": "700"})
        self.assertEqual(self.count_sum("ch"), "%d\t%d\n" % (rows, rows * (rows - 1) // 2))
        self.assertEqual(self.client.query_text(
            "SELECT x FROM ch GROUP BY x HAVING count() != 1"), "")

    def test_many_chunks_route_by_the_sharding_key(self):
        self.client.query("CREATE TABLE chk (k UInt32, v UInt64) ENGINE = MergeTree ORDER BY k "
                          "SETTINGS sharding_key = 'k'")
        lines = ["%d\t%d\n" % (i % 50, i) for i in range(3000)]
        self.client.insert_stream("INSERT INTO chk FORMAT TSV", chunked(lines, size=2000),
                                  settings={"input_chunk_rows": "100"})
        # Every group is complete on one worker: 60 rows per key, no key twice.
        self.assertEqual(self.client.query_text(
            "SELECT k AS chunked_groups FROM chk GROUP BY k HAVING count() != 60"), "")
        self.assertEqual(self.client.query_text(
            "SELECT final_merge_skipped FROM system.query_log WHERE query LIKE "
            "'%chunked_groups%' AND query_kind = 'select' AND type = 'QueryFinish'").strip(), "1")
        self.assertEqual(self.client.query_text("SELECT count(), sum(v) FROM chk"),
                         "3000\t4498500\n")

    def test_bad_row_in_chunk_three_of_five_leaves_nothing(self):
        self.client.query("CREATE TABLE ch5 (x UInt64, s String) ENGINE = MergeTree ORDER BY x")
        # 5 chunks of 1000 rows; line 2500 (chunk 3) is malformed.
        with self.assertRaises(granite_client.GraniteError) as ctx:
            self.client.insert_stream("INSERT INTO ch5 FORMAT CSV",
                                      chunked(csv_lines(5000, bad_line=2500), size=3000),
                                      settings={"input_chunk_rows": "1000"})
        self.assert_parse_error_with_line(ctx.exception, 2500)
        self.assertEqual(self.count_sum("ch5"), "0\t0\n")
        # The table takes a good insert afterwards (no token or part left behind).
        self.client.insert_stream("INSERT INTO ch5 FORMAT CSV", chunked(csv_lines(5000), 3000),
                                  settings={"input_chunk_rows": "1000"})
        self.assertEqual(self.count_sum("ch5"), "5000\t12497500\n")

    # Chunks parsed in parallel (input_format_parallel_parsing, the default) against a serial
    # parse of the same text: the same rows, in the same order on one worker.

    def test_parallel_and_serial_parse_store_the_same_rows(self):
        self.client.query("CREATE TABLE par (x UInt64, s String) ENGINE = MergeTree ORDER BY x")
        self.client.query("CREATE TABLE ser (x UInt64, s String) ENGINE = MergeTree ORDER BY x")
        # Quoted fields holding newlines and doubled quotes.
        lines = ['%d,"line\n%d ""q"""\n' % (i, i) for i in range(30000)]
        for table, parallel in (("par", "1"), ("ser", "0")):
            self.client.insert_stream("INSERT INTO %s FORMAT CSV" % table,
                                      chunked(lines, size=5000),
                                      settings={"input_chunk_rows": "997",
                                                "input_format_parallel_parsing": parallel})
        digest = "SELECT count(), sum(cityHash64(x, s)) FROM %s"
        self.assertEqual(self.client.query_text(digest % "par"),
                         self.client.query_text(digest % "ser"))
        self.assertEqual(self.client.query_text("SELECT count() FROM par"), "30000\n")
        self.assertEqual(self.client.query_text("SELECT s FROM par WHERE x = 12345",
                                                format="JSONEachRow"),
                         '{"s":"line\\n12345 \\"q\\""}\n')

    def test_parallel_parse_error_names_the_line_of_the_whole_text(self):
        self.client.query("CREATE TABLE pe (x UInt64, s String) ENGINE = MergeTree ORDER BY x")
        # Rows of two lines each (a quoted newline): row 4321 starts on line 8641.
        lines = ['%d,"a\nb"\n' % i if i != 4320 else '12x4,"a\nb"\n' for i in range(6000)]
        with self.assertRaises(granite_client.GraniteError) as ctx:
            self.client.insert_stream("INSERT INTO pe FORMAT CSV", chunked(lines, size=3000),
                                      settings={"input_chunk_rows": "250"})
        self.assertIn("row 4321, line 8641", ctx.exception.message)
        self.assertEqual(self.count_sum("pe"), "0\t0\n")

    def test_kill_query_mid_insert_leaves_nothing(self):
        self.client.query("CREATE TABLE killed (x UInt64, s String) ENGINE = MergeTree "
                          "ORDER BY x")
        killer = {}

        def kill():
            # Until the KILL finds the insert (the server may not have registered it yet).
            other = self.cluster.client(timeout=60)
            try:
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    if other.query_text("KILL QUERY WHERE query_id = 'mid-insert' SYNC"):
                        return
                    time.sleep(0.05)
            finally:
                other.close()

        def slow_chunks():
            # Chunks of about 100 rows flow on; after 30 the insert is killed from another
            # connection, and the text keeps coming (more slowly, however long the KILL takes
            # on a loaded machine) until the KILL returns: it is SYNC, so the insert has ended.
            deadline = time.monotonic() + 120
            for n, chunk in enumerate(chunked(csv_lines(10 ** 9), size=2000)):
                if n == 30:
                    killer["thread"] = threading.Thread(target=kill)
                    killer["thread"].start()
                if n > 30:
                    if not killer["thread"].is_alive() or time.monotonic() > deadline:
                        return
                    time.sleep(0.01)
                yield chunk

        with self.assertRaises(granite_client.GraniteError) as ctx:
            self.client.insert_stream("INSERT INTO killed FORMAT CSV", slow_chunks(),
                                      query_id="mid-insert",
                                      settings={"input_chunk_rows": "100"})
        killer["thread"].join()
        self.assertEqual(ctx.exception.code, 394, str(ctx.exception))  # QUERY_WAS_CANCELLED
        self.assertEqual(self.count_sum("killed"), "0\t0\n")
        # Nothing is left prepared on the workers: the table takes a good insert afterwards.
        self.client.insert_stream("INSERT INTO killed FORMAT CSV", chunked(csv_lines(1000)),
                                  settings={"input_chunk_rows": "100"})
        self.assertEqual(self.count_sum("killed"), "1000\t499500\n")


if __name__ == "__main__":
    testmain.main([InsertTest])
