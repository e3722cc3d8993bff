#!/usr/bin/env python3
"""GROUP BY ... WITH TOTALS in every output format that shows a totals row, placed as ClickHouse
places it (the expected texts are ClickHouse 26.9's for the same query): TabSeparated and CSV
after an empty line, JSON and JSONCompact as "totals" before "rows", Pretty formats as a second
table after "Totals:"; formats without totals (JSONEachRow) leave it out. Also over HTTP."""

import json
import os
import sys
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import grpc_case  # noqa: E402
import testmain  # noqa: E402
from granite_client._stubs import pb2  # noqa: E402

TIMEOUT = 60
QUERY = "SELECT number % 2 AS k, count() AS c FROM numbers(10) GROUP BY k WITH TOTALS ORDER BY k"


class TotalsTest(grpc_case.GrpcClusterCase):
    WORKERS = 2

    def output(self, query, fmt):
        result = self.stub.ExecuteQuery(pb2.QueryInfo(query=query, output_format=fmt),
                                        timeout=TIMEOUT)
        self.assertFalse(result.HasField("exception"), result.exception)
        return result.output.decode()

    def test_tab_separated_and_csv(self):
        self.assertEqual(self.output(QUERY, "TabSeparated"), "0\t5\n1\t5\n\n0\t10\n")
        self.assertEqual(self.output(QUERY, "TSVWithNames"), "k\tc\n0\t5\n1\t5\n\n0\t10\n")
        self.assertEqual(self.output(QUERY, "CSV"), "0,5\n1,5\n\n0,10\n")

    def test_a_constant_key_keeps_its_value_in_the_totals_row(self):
        query = ("SELECT number % 2 AS k, 'x' AS s, count() AS c FROM numbers(10) "
                 "GROUP BY k, s WITH TOTALS ORDER BY k")
        self.assertEqual(self.output(query, "TabSeparated"), "0\tx\t5\n1\tx\t5\n\n0\tx\t10\n")

    def test_json(self):
        doc = json.loads(self.output(QUERY, "JSON"))
        self.assertEqual(doc["data"], [{"k": 0, "c": 5}, {"k": 1, "c": 5}])
        self.assertEqual(doc["totals"], {"k": 0, "c": 10})
        self.assertEqual(list(doc)[:4], ["meta", "data", "totals", "rows"])
        compact = json.loads(self.output(QUERY, "JSONCompact"))
        self.assertEqual(compact["totals"], [0, 10])

    def test_pretty_prints_a_second_table(self):
        text = self.output(QUERY, "PrettyCompact")
        main, _, totals = text.partition("\nTotals:\n")
        self.assertIn("│ 1 │ 5 │", main)
        self.assertIn("│ 0 │ 10 │", totals)

    def test_formats_without_totals_leave_it_out(self):
        self.assertEqual(self.output(QUERY, "JSONEachRow"), '{"k":0,"c":5}\n{"k":1,"c":5}\n')

    def test_keys_take_their_default_and_filters_apply(self):
        query = ("SELECT toString(number % 3) AS s, sum(number) FROM numbers(10) WHERE number > 2 "
                 "GROUP BY s WITH TOTALS ORDER BY s")
        self.assertEqual(self.output(query, "TabSeparated"), "0\t18\n1\t11\n2\t13\n\n\t42\n")

    def test_over_http(self):
        url = "http://%s:%d/?%s" % (self.cluster.host, self.cluster.http_port,
                                    urllib.parse.urlencode({"query": QUERY + " FORMAT JSONCompact"}))
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            self.assertEqual(json.loads(response.read())["totals"], [0, 10])


if __name__ == "__main__":
    testmain.main([TotalsTest])
