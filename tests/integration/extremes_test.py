#!/usr/bin/env python3
"""Issue 24: SETTINGS extremes = 1 — each column's min and max row of the result. Over the HTTP
interface they follow the rows (and WITH TOTALS) in TabSeparated, CSV, JSON and JSONCompact
output, byte for byte as ClickHouse (chdb 26.9) writes them (compared live too when chdb is in
the venv), and in Pretty formats as a table after "Extremes:" (granite's Pretty tables have no
row numbers, unlike ClickHouse 26's); over gRPC they come alone in Result.extremes, as ClickHouse's gRPC server
sends them, and the output holds the rows only. granite local, 3 workers.
"""

import http.client
import os
import sys
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import grpc_case  # noqa: E402
import testmain  # noqa: E402
from granite_client._stubs import pb2  # noqa: E402

TIMEOUT = 60

# ClickHouse's bytes (chdb 26.9) for each query and format.
EXPECTED = {
    'SELECT number AS n, toString(number * 3 % 7) AS s FROM numbers(5) ORDER BY n SETTINGS extremes = 1, output_format_write_statistics = 0': {
        'TabSeparated':
            b'0\t0\n1\t3\n2\t6\n3\t2\n4\t5\n\n0\t0\n4\t6\n',
        'CSV':
            b'0,"0"\n1,"3"\n2,"6"\n3,"2"\n4,"5"\n\n0,"0"\n4,"6"\n',
        'JSON':
            b'{\n\t"meta":\n\t[\n\t\t{\n\t\t\t"name": "n",\n\t\t\t"type": "UInt64"\n\t\t},\n\t\t{\n\t\t\t"name": "s",\n\t\t\t"type": "String"\n\t\t}\n\t],\n\n\t"data":\n\t[\n\t\t{\n\t\t\t"n": 0,\n\t\t\t"s": "0"\n\t\t},\n\t\t{\n\t\t\t"n": 1,\n\t\t\t"s": "3"\n\t\t},\n\t\t{\n\t\t\t"n": 2,\n\t\t\t"s": "6"\n\t\t},\n\t\t{\n\t\t\t"n": 3,\n\t\t\t"s": "2"\n\t\t},\n\t\t{\n\t\t\t"n": 4,\n\t\t\t"s": "5"\n\t\t}\n\t],\n\n\t"extremes":\n\t{\n\t\t"min":\n\t\t{\n\t\t\t"n": 0,\n\t\t\t"s": "0"\n\t\t},\n\t\t"max":\n\t\t{\n\t\t\t"n": 4,\n\t\t\t"s": "6"\n\t\t}\n\t},\n\n\t"rows": 5\n}\n',
        'JSONCompact':
            b'{\n\t"meta":\n\t[\n\t\t{\n\t\t\t"name": "n",\n\t\t\t"type": "UInt64"\n\t\t},\n\t\t{\n\t\t\t"name": "s",\n\t\t\t"type": "String"\n\t\t}\n\t],\n\n\t"data":\n\t[\n\t\t[0, "0"],\n\t\t[1, "3"],\n\t\t[2, "6"],\n\t\t[3, "2"],\n\t\t[4, "5"]\n\t],\n\n\t"extremes":\n\t{\n\t\t"min": [0, "0"],\n\t\t"max": [4, "6"]\n\t},\n\n\t"rows": 5\n}\n',
    },
    'SELECT number % 2 AS k, count() AS c FROM numbers(5) GROUP BY k WITH TOTALS ORDER BY k SETTINGS extremes = 1, output_format_write_statistics = 0': {
        'TabSeparated':
            b'0\t3\n1\t2\n\n0\t5\n\n0\t2\n1\t3\n',
        'CSV':
            b'0,3\n1,2\n\n0,5\n\n0,2\n1,3\n',
        'JSON':
            b'{\n\t"meta":\n\t[\n\t\t{\n\t\t\t"name": "k",\n\t\t\t"type": "UInt8"\n\t\t},\n\t\t{\n\t\t\t"name": "c",\n\t\t\t"type": "UInt64"\n\t\t}\n\t],\n\n\t"data":\n\t[\n\t\t{\n\t\t\t"k": 0,\n\t\t\t"c": 3\n\t\t},\n\t\t{\n\t\t\t"k": 1,\n\t\t\t"c": 2\n\t\t}\n\t],\n\n\t"totals":\n\t{\n\t\t"k": 0,\n\t\t"c": 5\n\t},\n\n\t"extremes":\n\t{\n\t\t"min":\n\t\t{\n\t\t\t"k": 0,\n\t\t\t"c": 2\n\t\t},\n\t\t"max":\n\t\t{\n\t\t\t"k": 1,\n\t\t\t"c": 3\n\t\t}\n\t},\n\n\t"rows": 2\n}\n',
        'JSONCompact':
            b'{\n\t"meta":\n\t[\n\t\t{\n\t\t\t"name": "k",\n\t\t\t"type": "UInt8"\n\t\t},\n\t\t{\n\t\t\t"name": "c",\n\t\t\t"type": "UInt64"\n\t\t}\n\t],\n\n\t"data":\n\t[\n\t\t[0, 3],\n\t\t[1, 2]\n\t],\n\n\t"totals": [0, 5],\n\n\t"extremes":\n\t{\n\t\t"min": [0, 2],\n\t\t"max": [1, 3]\n\t},\n\n\t"rows": 2\n}\n',
    },
}


class ExtremesTest(grpc_case.GrpcClusterCase):
    WORKERS = 3

    def grpc_query(self, query, fmt):
        result = self.stub.ExecuteQuery(pb2.QueryInfo(query=query, output_format=fmt),
                                        timeout=TIMEOUT)
        self.assertFalse(result.HasField("exception"), result.exception.display_text)
        return result

    def http_query(self, query, fmt):
        conn = http.client.HTTPConnection(self.cluster.host, self.cluster.http_port,
                                          timeout=TIMEOUT)
        conn.request("POST", "/?" + urllib.parse.urlencode({"default_format": fmt}),
                     body=query.encode())
        response = conn.getresponse()
        body = response.read()
        conn.close()
        self.assertEqual(response.status, 200, body)
        return body

    def test_http_formats_match_clickhouse(self):
        for query, formats in EXPECTED.items():
            for fmt, expected in formats.items():
                with self.subTest(query=query, format=fmt):
                    self.assertEqual(self.http_query(query, fmt), expected)
                    live = grpc_case.chdb_bytes(query, fmt)
                    if live is not None:
                        self.assertEqual(live, expected)

    def test_pretty_prints_an_extremes_table(self):
        query = list(EXPECTED)[1]  # WITH TOTALS too: the extremes come after the totals
        output = self.http_query(query, "PrettyCompact").decode()
        totals = output.index("\nTotals:\n")
        extremes = output.index("\nExtremes:\n")
        self.assertLess(totals, extremes)
        rows = [line for line in output[extremes:].splitlines() if line.startswith("│")]
        self.assertEqual(rows, ["│ 0 │ 2 │", "│ 1 │ 3 │"])

    def test_grpc_result_extremes_field(self):
        query = next(iter(EXPECTED))
        result = self.grpc_query(query, "TabSeparated")
        self.assertEqual(result.output, b"0\t0\n1\t3\n2\t6\n3\t2\n4\t5\n")
        self.assertEqual(result.extremes, b"0\t0\n4\t6\n")
        result = self.grpc_query(query, "JSONCompact")
        self.assertIn(b'"data":\n\t[\n\t\t[0, "0"],\n\t\t[4, "6"]\n\t]', result.extremes)
        self.assertNotIn(b"extremes", result.output)
        result = self.grpc_query(query.replace("extremes = 1", "extremes = 0"), "TabSeparated")
        self.assertEqual(result.extremes, b"")

    def test_streamed_result_across_workers(self):
        # No ORDER BY: the rows stream from three workers; the extremes cover all of them.
        output = self.http_query("SELECT number AS n, -number AS m FROM numbers(300000) "
                                 "SETTINGS extremes = 1", "JSONCompact")
        self.assertIn(b'"min": [0, -299999],\n\t\t"max": [299999, 0]', output)

    def test_empty_result_has_no_extremes(self):
        query = "SELECT number FROM numbers(10) WHERE number > 100 SETTINGS extremes = 1"
        self.assertEqual(self.grpc_query(query, "TabSeparated").extremes, b"")
        self.assertEqual(self.http_query(query, "TabSeparated"), b"")


if __name__ == "__main__":
    testmain.main([ExtremesTest])
