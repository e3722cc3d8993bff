#!/usr/bin/env python3
"""Issue 24: SELECT results stream from execution to the client in blocks (granite local,
3 workers), through raw gRPC stubs and ClickHouse's HTTP interface.

- A SELECT over an endless source (numbers(10^12)) sends its first rows and can then be
  cancelled: before streaming the coordinator built the whole result first, so none came.
  Asserted by what arrives, never by a clock.
- A large result arrives in several Result messages, in order, whole.
- Progress: messages carry Progress increments while the query runs (total_rows_to_read: the
  rows left after pruning, N for numbers(N)) that add up to what the query read; HTTP sends
  X-ClickHouse-Progress headers with send_progress_in_http_headers = 1.
- OFFSET / LIMIT across blocks and workers; max_result_rows with result_overflow_mode 'throw'
  fails the query with 396 after the rows already sent (as ClickHouse does when it streams),
  'break' cuts the result; JSON statistics still count the rows read; the unary ExecuteQuery
  still answers with one message.
"""

import http.client
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import grpc_case  # noqa: E402
import testmain  # noqa: E402
from granite_client._stubs import pb2  # noqa: E402

TIMEOUT = 120
ENDLESS = "SELECT number, toString(number) FROM numbers(1000000000000)"


class StreamingTest(grpc_case.GrpcClusterCase):
    WORKERS = 3
    TIMEOUT = TIMEOUT

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.ok("CREATE TABLE s (x UInt64, s String) ENGINE = MergeTree ORDER BY x")
        cls.ok("INSERT INTO s SELECT number, toString(number) FROM numbers(300000)")

    def stream(self, query, **fields):
        return list(self.stub.ExecuteQueryWithStreamOutput(pb2.QueryInfo(query=query, **fields),
                                                           timeout=TIMEOUT))

    def wait_gone(self, query_id):
        """Waits (bounded) until the query left system.processes."""
        deadline = time.monotonic() + TIMEOUT
        sql = "SELECT count() FROM system.processes WHERE query_id = '%s'" % query_id
        while self.ok(sql) != b"0\n":
            self.assertLess(time.monotonic(), deadline, "the query kept running: " + query_id)
            time.sleep(0.05)

    def test_endless_select_sends_first_rows_then_cancels(self):
        call = self.stub.ExecuteQueryWithStreamOutput(
            pb2.QueryInfo(query=ENDLESS, query_id="endless-grpc"), timeout=TIMEOUT)
        output = b""
        for result in call:
            self.assertFalse(result.HasField("exception"), result.exception.display_text)
            output += result.output
            if output.count(b"\n") >= 1000:
                break
        lines = output.split(b"\n")[:1000]
        self.assertEqual(lines, [b"%d\t%d" % (i, i) for i in range(1000)])
        call.cancel()
        self.wait_gone("endless-grpc")
        self.assertEqual(self.ok("SELECT 1"), b"1\n")

    def test_endless_select_over_http_sends_first_rows(self):
        conn = http.client.HTTPConnection(self.cluster.host, self.cluster.http_port,
                                          timeout=TIMEOUT)
        conn.request("POST", "/?query_id=endless-http", body=ENDLESS.encode())
        response = conn.getresponse()
        self.assertEqual(response.status, 200)
        self.assertEqual(response.getheader("Transfer-Encoding"), "chunked")
        body = b""
        while body.count(b"\n") < 1000:
            piece = response.read1(1 << 16)
            self.assertTrue(piece, "the response ended early")
            body += piece
        self.assertEqual(body.split(b"\n")[:3], [b"0\t0", b"1\t1", b"2\t2"])
        conn.close()  # a client that goes away cancels the query
        self.wait_gone("endless-http")

    def test_union_all_streams_operand_after_operand(self):
        call = self.stub.ExecuteQueryWithStreamOutput(pb2.QueryInfo(
            query="SELECT number FROM numbers(3) UNION ALL SELECT number FROM numbers(10) "
                  "ORDER BY number DESC LIMIT 2 UNION ALL " + ENDLESS.replace(
                      ", toString(number)", ""),
            query_id="endless-union"), timeout=TIMEOUT)
        output = b""
        for result in call:
            self.assertFalse(result.HasField("exception"), result.exception.display_text)
            output += result.output
            if output.count(b"\n") >= 1000:
                break
        call.cancel()
        self.assertEqual(output.split(b"\n")[:8], [b"0", b"1", b"2", b"9", b"8", b"0", b"1", b"2"])
        self.wait_gone("endless-union")
        # Operands of other types are built whole with their common type, as before.
        self.assertEqual(self.ok("SELECT 1 AS x UNION ALL SELECT 1000 UNION ALL SELECT -1"),
                         b"1\n1000\n-1\n")

    def test_large_result_arrives_in_several_messages_in_order(self):
        results = self.stream("SELECT number, toString(number) FROM numbers(1000000)")
        with_output = [r for r in results if r.output]
        self.assertGreater(len(with_output), 1)
        self.assertFalse(results[-1].HasField("exception"))
        output = b"".join(r.output for r in results)
        self.assertEqual(output, b"".join(b"%d\t%d\n" % (i, i) for i in range(1000000)))
        self.assertEqual(results[-1].stats.rows, 1000000)

    def test_table_scan_streams_every_row_once(self):
        results = self.stream("SELECT x FROM s")
        rows = sorted(int(v) for v in b"".join(r.output for r in results).split())
        self.assertEqual(rows, list(range(300000)))

    def test_offset_and_limit_across_blocks_and_workers(self):
        self.assertEqual(
            b"".join(r.output for r in self.stream(
                "SELECT number FROM numbers(1000000) LIMIT 4 OFFSET 333332")),
            b"333332\n333333\n333334\n333335\n")
        output = b"".join(r.output for r in self.stream(
            "SELECT x * 2 AS y FROM s WHERE x % 1000 = 0 LIMIT 7 OFFSET 100"))
        self.assertEqual(len(output.split()), 7)
        self.assertTrue(all(int(v) % 2000 == 0 for v in output.split()))
        self.assertEqual(self.stream("SELECT x FROM s LIMIT 0")[-1].output, b"")

    def test_max_result_rows_throw_fails_after_the_rows_sent(self):
        results = self.stream("SELECT number FROM numbers(1000000) "
                              "SETTINGS max_result_rows = 100000, result_overflow_mode = 'throw'")
        self.assertEqual(results[-1].exception.code, 396, results[-1])
        self.assertIn("max_result_rows", results[-1].exception.display_text)
        sent = b"".join(r.output for r in results).split()
        self.assertLessEqual(len(sent), 100000)
        self.assertGreater(len(sent), 0)  # the first block went out before the limit was hit

    def test_max_result_rows_break_cuts_the_result(self):
        results = self.stream("SELECT number FROM numbers(1000000) "
                              "SETTINGS max_result_rows = 100000, result_overflow_mode = 'break'")
        self.assertFalse(results[-1].HasField("exception"), results[-1].exception)
        sent = b"".join(r.output for r in results).split()
        self.assertEqual(sent, [b"%d" % i for i in range(100000)])

    def test_max_result_rows_break_with_small_blocks(self):
        # One row per worker: the block after the limit must be dropped whole.
        for query, expected in (("SELECT number FROM numbers(3)", [b"0", b"1"]),
                                ("SELECT number FROM numbers(3) UNION ALL "
                                 "SELECT number FROM numbers(3)", [b"0", b"1"])):
            results = self.stream(query + " SETTINGS max_result_rows = 2, "
                                  "result_overflow_mode = 'break'")
            self.assertEqual(b"".join(r.output for r in results).split(), expected, query)

    def test_group_by_streams_merged_buckets(self):
        # 150,000 groups over 256 buckets: the merged buckets leave as they finish, in several
        # messages, each group once with all workers' rows.
        results = self.stream("SELECT x % 150000 AS k, count() AS c, sum(x) FROM s GROUP BY k")
        self.assertFalse(results[-1].HasField("exception"), results[-1].exception)
        self.assertGreater(len([r for r in results if r.output]), 1)
        rows = [line.split(b"\t") for line in b"".join(r.output for r in results).split(b"\n")
                if line]
        self.assertEqual(sorted(int(k) for k, _, _ in rows), list(range(150000)))
        self.assertTrue(all(c == b"2" and int(total) == 2 * int(k) + 150000
                            for k, c, total in rows))
        # HAVING per group, OFFSET / LIMIT counted across buckets, the overflow break.
        output = b"".join(r.output for r in self.stream(
            "SELECT x % 1000 AS k, count() FROM s GROUP BY k HAVING k % 2 = 0 LIMIT 5 OFFSET 10"))
        got = [line.split(b"\t") for line in output.split(b"\n") if line]
        self.assertEqual(len(got), 5)
        self.assertTrue(all(int(k) % 2 == 0 and c == b"300" for k, c in got), got)
        results = self.stream("SELECT x % 100000 AS k FROM s GROUP BY k SETTINGS "
                              "max_result_rows = 1000, result_overflow_mode = 'break'")
        self.assertFalse(results[-1].HasField("exception"), results[-1].exception)
        self.assertLessEqual(len(b"".join(r.output for r in results).split()), 1000)
        # The same query as a whole result (a subquery) gives the same groups in the same order.
        streamed = b"".join(r.output for r in self.stream(
            "SELECT x % 5000 AS k, count() FROM s GROUP BY k"))
        self.assertEqual(streamed, self.ok("SELECT * FROM (SELECT x % 5000 AS k, count() FROM s "
                                           "GROUP BY k) LIMIT 1000000"))

    def test_json_statistics_count_the_rows_read(self):
        output = self.ok("SELECT x FROM s LIMIT 3 FORMAT JSON")
        self.assertIn(b'"rows": 3', output)
        self.assertNotIn(b'"rows_read": 0,', output)

    def test_progress_arrives_while_the_query_runs(self):
        """An endless streamed SELECT: messages carry Progress increments before any end — the
        rows to read (N of numbers(N), from every worker) and rows read so far."""
        call = self.stub.ExecuteQueryWithStreamOutput(
            pb2.QueryInfo(query=ENDLESS, query_id="endless-progress"), timeout=TIMEOUT)
        to_read = read = messages = 0
        for result in call:
            self.assertFalse(result.HasField("exception"), result.exception.display_text)
            messages += 1
            to_read += result.progress.total_rows_to_read
            read += result.progress.read_rows
            if to_read == 10 ** 12 and read > 0:
                break
        call.cancel()
        self.assertEqual(to_read, 10 ** 12)
        self.assertGreater(read, 0)
        self.wait_gone("endless-progress")

    def test_progress_increments_add_up(self):
        for query, total in (("SELECT count() FROM numbers(30000000) WHERE number % 7 = 3",
                              30000000),
                             ("SELECT x FROM s WHERE x % 1000 = 1", 300000),
                             ("SELECT x FROM s WHERE x < 10000", None)):
            results = self.stream(query)
            self.assertFalse(results[-1].HasField("exception"), results[-1].exception)
            read = sum(r.progress.read_rows for r in results)
            to_read = sum(r.progress.total_rows_to_read for r in results)
            if total is not None:
                self.assertEqual(read, total, query)
                self.assertEqual(to_read, total, query)
            else:  # pruning: the granules around x < 10000 only
                self.assertEqual(read, to_read, query)
                self.assertLess(to_read, 300000, query)
        # The unary call sums the increments.
        result = self.stub.ExecuteQuery(pb2.QueryInfo(query="SELECT count() FROM s"),
                                        timeout=TIMEOUT)
        self.assertEqual(result.progress.total_rows_to_read, 300000)
        self.assertEqual(result.progress.read_rows, 300000)

    def test_http_progress_headers(self):
        conn = http.client.HTTPConnection(self.cluster.host, self.cluster.http_port,
                                          timeout=TIMEOUT)
        conn.request("POST", "/?send_progress_in_http_headers=1",
                     body=b"SELECT count() FROM numbers(3000000) WHERE number % 7 = 3")
        response = conn.getresponse()
        body = response.read()
        conn.close()
        self.assertEqual(response.status, 200)
        self.assertEqual(body, b"428571\n")
        progress = [v for k, v in response.getheaders() if k == "X-ClickHouse-Progress"]
        self.assertTrue(progress)
        self.assertIn('"total_rows_to_read":"3000000"', progress[-1])
        self.assertIn('"read_rows":"3000000"', response.getheader("X-ClickHouse-Summary"))
        self.assertTrue(response.getheader("X-ClickHouse-Query-Id"))

    def test_unary_call_answers_with_one_message(self):
        output = self.ok("SELECT number FROM numbers(500000)")
        self.assertEqual(output, b"".join(b"%d\n" % i for i in range(500000)))


if __name__ == "__main__":
    testmain.main([StreamingTest])
