#!/usr/bin/env python3
"""Issue 24: QueryInfo fields and result formats as ClickHouse's gRPC protocol defines them
(granite local, 1 worker), through raw gRPC stubs.

- QueryInfo{cancel: true} cancels a running SELECT at once (it was ignored once a non-INSERT ran).
- Exception.display_text has ClickHouse's form "Code: N. DB::Exception: ... (NAME)" and is valid
  UTF-8 even when the message quotes the client's invalid bytes.
- `database`: "", "default" and other existing databases are accepted, others are
  UNKNOWN_DATABASE (81) (statements_test.py covers databases).
- output_compression_type / input_compression_type (gzip, deflate, lz4, zstd; others
  UNKNOWN_COMPRESSION_METHOD), input_data_delimiter.
- Output formats JSONCompactEachRow, Values, Markdown, TSKV, RowBinary(+WithNames[AndTypes]),
  Native, JSON's statistics and output_format_json_quote_64bit_integers, compared with the bytes
  ClickHouse (chdb 26.9) writes for the same query; with chdb in the venv also live.
"""

import gzip
import os
import sys
import threading
import time
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import grpc_case  # noqa: E402
import testmain  # noqa: E402
from granite_client._stubs import pb2  # noqa: E402

TIMEOUT = 60

# One query whose every column type granite has, and ClickHouse's answer in each format.
SAMPLE = ("SELECT number AS id, toUInt64(number * 1000000000000) AS big, toInt64(-number) AS neg, "
          "concat('a|b=c\\t', toString(number), '''x\\\\') AS s, toDate('2024-01-02') AS d, "
          "1.5 AS f FROM numbers(2)")
EXPECTED = {
    "JSONCompactEachRow": b'[0, 0, 0, "a|b=c\\t0\'x\\\\", "2024-01-02", 1.5]\n'
                          b'[1, 1000000000000, -1, "a|b=c\\t1\'x\\\\", "2024-01-02", 1.5]\n',
    "Values": b"(0,0,0,'a|b=c\\t0\\'x\\\\','2024-01-02',1.5),"
              b"(1,1000000000000,-1,'a|b=c\\t1\\'x\\\\','2024-01-02',1.5)",
    "Markdown": b"| id | big | neg | s | d | f |\n|-:|-:|-:|:-|-:|-:|\n"
                b"| 0 | 0 | 0 | a|b=c\\t0\\'x\\\\ | 2024-01-02 | 1.5 |\n"
                b"| 1 | 1000000000000 | -1 | a|b=c\\t1\\'x\\\\ | 2024-01-02 | 1.5 |\n",
    "TSKV": b"id=0\tbig=0\tneg=0\ts=a|b=c\\t0\\'x\\\\\td=2024-01-02\tf=1.5\n"
            b"id=1\tbig=1000000000000\tneg=-1\ts=a|b=c\\t1\\'x\\\\\td=2024-01-02\tf=1.5\n",
}
BINARY_SAMPLE = "SELECT toUInt32(number) AS a, toString(number) AS s FROM numbers(2)"
BINARY_EXPECTED = {
    "RowBinary": b"\x00\x00\x00\x00\x010\x01\x00\x00\x00\x011",
    "RowBinaryWithNames": b"\x02\x01a\x01s\x00\x00\x00\x00\x010\x01\x00\x00\x00\x011",
    "RowBinaryWithNamesAndTypes":
        b"\x02\x01a\x01s\x06UInt32\x06String\x00\x00\x00\x00\x010\x01\x00\x00\x00\x011",
    "Native": b"\x02\x02\x01a\x06UInt32\x00\x00\x00\x00\x01\x00\x00\x00\x01s\x06String\x010\x011",
}


class ProtocolFieldsTest(grpc_case.GrpcClusterCase):
    WORKERS = 1

    def processes(self, query_id):
        return self.ok("SELECT count() FROM system.processes WHERE query_id = '%s'" % query_id)

    def test_cancel_message_stops_a_running_select(self):
        started = threading.Event()
        cancel = threading.Event()

        def requests():
            yield pb2.QueryInfo(query="SELECT sum(number) FROM numbers(18446744073709551615)",
                                query_id="cancel-me")
            started.set()
            cancel.wait(TIMEOUT)
            yield pb2.QueryInfo(cancel=True)

        results = []
        call = threading.Thread(target=lambda: results.extend(
            self.stub.ExecuteQueryWithStreamIO(requests(), timeout=TIMEOUT)), daemon=True)
        call.start()
        started.wait(TIMEOUT)
        deadline = time.monotonic() + TIMEOUT
        while self.processes("cancel-me") != b"1\n":
            self.assertLess(time.monotonic(), deadline, "the query never showed")
            time.sleep(0.05)
        cancel.set()
        call.join(TIMEOUT)
        self.assertFalse(call.is_alive(), "the cancel message did not end the query")
        self.assertTrue(results and results[-1].cancelled, results[-1:])
        self.assertEqual(self.processes("cancel-me"), b"0\n")
        self.assertEqual(self.ok("SELECT 1"), b"1\n")  # the server goes on

    def test_display_text_has_clickhouse_form_and_is_utf8(self):
        result = self.run_query("SELECT * FROM no_such_table")
        self.assertRegex(result.exception.display_text,
                         r"^Code: 60\. DB::Exception: .*no_such_table.*\. \(UNKNOWN_TABLE\)$")
        self.ok("CREATE TABLE u (x UInt32) ENGINE = MergeTree ORDER BY x")
        # A parse error that quotes invalid bytes of the input: the reply still deserializes.
        result = self.run_query("INSERT INTO u FORMAT CSV", input_data=b"1\n\xff\xfe\n")
        self.assertIn(result.exception.code, (6, 27, 117))  # a parse error, whichever
        self.assertTrue(result.exception.display_text.startswith("Code: "))
        self.assertIn("\\xFF", result.exception.display_text)

    def test_database_field(self):
        self.assertEqual(self.ok("SELECT 1", database="default"), b"1\n")
        self.assertEqual(self.ok("SELECT 1", database=""), b"1\n")
        result = self.run_query("SELECT 1", database="other")
        self.assertEqual(result.exception.code, 81)
        self.assertEqual(result.exception.name, "UNKNOWN_DATABASE")
        self.assertIn("other", result.exception.display_text)
        result = self.run_query("SELECT 1", external_tables=[pb2.ExternalTable(name="ext")])
        self.assertEqual(result.exception.name, "NOT_IMPLEMENTED")
        self.assertIn("ext", result.exception.display_text)

    def test_output_compression(self):
        query = "SELECT number FROM numbers(100000)"
        plain = self.ok(query)
        self.assertEqual(gzip.decompress(self.ok(query, output_compression_type="gzip")), plain)
        self.assertEqual(zlib.decompress(self.ok(query, output_compression_type="deflate")),
                         plain)
        # Streamed: the output of all messages is one compressed stream.
        def streamed(**fields):
            return list(self.stub.ExecuteQueryWithStreamOutput(pb2.QueryInfo(
                query="SELECT number FROM numbers(1000000)", **fields), timeout=TIMEOUT))
        results = streamed(output_compression_type="gzip")
        self.assertGreater(len(results), 1)
        self.assertEqual(gzip.decompress(b"".join(r.output for r in results)),
                         b"".join(r.output for r in streamed()))
        result = self.run_query(query, output_compression_type="brotli")
        self.assertEqual(result.exception.name, "UNKNOWN_COMPRESSION_METHOD")
        for method in ("lz4", "zstd"):  # checked by round trip through the input side
            packed = self.ok("SELECT number FROM numbers(1000)", output_compression_type=method)
            self.assertNotEqual(packed, self.ok("SELECT number FROM numbers(1000)"))

    def test_input_compression_and_delimiter(self):
        self.ok("CREATE TABLE ci (x UInt32, s String) ENGINE = MergeTree ORDER BY x")
        rows = b"".join(b"%d,r%d\n" % (i, i) for i in range(1000))
        self.ok("INSERT INTO ci FORMAT CSV", input_data=gzip.compress(rows),
                input_compression_type="gzip")
        for offset, method in ((1000, "lz4"), (1500, "zstd")):
            packed = self.ok("SELECT number + %d, concat('r', toString(number)) FROM numbers(500) "
                             "FORMAT CSV" % offset, output_compression_type=method)
            self.ok("INSERT INTO ci FORMAT CSV", input_data=packed, input_compression_type=method)
        self.assertEqual(self.ok("SELECT count(), sum(x) FROM ci"),
                         b"2000\t%d\n" % sum(range(2000)))
        result = self.run_query("INSERT INTO ci FORMAT CSV", input_data=b"not gzip",
                                input_compression_type="gzip")
        self.assertEqual(result.exception.name, "CANNOT_DECOMPRESS")
        # The delimiter follows each piece of a streamed input.
        self.ok("CREATE TABLE de (x UInt32) ENGINE = MergeTree ORDER BY x")
        pieces = [pb2.QueryInfo(query="INSERT INTO de FORMAT TSV", input_data=b"1",
                                input_data_delimiter=b"\n", next_query_info=True),
                  pb2.QueryInfo(input_data=b"2", next_query_info=True),
                  pb2.QueryInfo(input_data=b"3")]
        result = self.stub.ExecuteQueryWithStreamInput(iter(pieces), timeout=TIMEOUT)
        self.assertFalse(result.HasField("exception"), result.exception)
        self.assertEqual(self.ok("SELECT x FROM de ORDER BY x"), b"1\n2\n3\n")

    def test_text_formats_match_clickhouse(self):
        for fmt, expected in EXPECTED.items():
            live = grpc_case.chdb_bytes(SAMPLE, fmt)
            if live is not None:
                self.assertEqual(live, expected, fmt)
            self.assertEqual(self.ok(SAMPLE, output_format=fmt), expected, fmt)

    def test_binary_formats_match_clickhouse(self):
        for fmt, expected in BINARY_EXPECTED.items():
            live = grpc_case.chdb_bytes(BINARY_SAMPLE, fmt)
            if live is not None:
                self.assertEqual(live, expected, fmt)
            self.assertEqual(self.ok(BINARY_SAMPLE, output_format=fmt), expected, fmt)
        self.assertEqual(self.ok("SELECT 1 AS x WHERE 0", output_format="Native"), b"")

    def test_json_statistics_and_quoting(self):
        out = self.ok("SELECT toUInt64(1) AS a, toInt64(-2) AS b FORMAT JSON").decode()
        self.assertIn('"a": 1,', out)
        self.assertRegex(out, r'"rows": 1,\n\n\t"statistics":\n\t\{\n\t\t"elapsed": [0-9.e-]+,\n'
                              r'\t\t"rows_read": \d+,\n\t\t"bytes_read": \d+\n\t\}\n\}\n$')
        quoted = self.ok("SELECT toUInt64(1) AS a, toInt64(-2) AS b, 3 AS c FORMAT JSONEachRow",
                         settings={"output_format_json_quote_64bit_integers": "1"})
        self.assertEqual(quoted, b'{"a":"1","b":"-2","c":3}\n')
        bare = self.ok("SELECT 1 AS a FORMAT JSONCompact",
                       settings={"output_format_write_statistics": "0"})
        self.assertTrue(bare.endswith(b'"rows": 1\n}\n'), bare)


if __name__ == "__main__":
    testmain.main([ProtocolFieldsTest])
