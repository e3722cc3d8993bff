#!/usr/bin/env python3
"""Times calendar functions over DateTime, DateTime('UTC') and DateTime('Europe/Berlin') columns.

The zoneless column runs the UTC kernels unwrapped (the ClickBench path); the zoned ones pay the
local-clock conversion. Compare the zoneless figures of two builds to see the UTC path did not
slow down:

    .venv/bin/python bench/tz/calendar_bench.py --granite build/granite [--rows 20000000]

Prints, per query and column, the median of --runs timings (seconds, client side).
"""

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "harness"))

import cluster  # noqa: E402
from granite_client import Client  # noqa: E402

QUERIES = [
    "SELECT sum(toHour({c})) FROM tz_bench",
    "SELECT count() FROM (SELECT toStartOfHour({c}) AS h FROM tz_bench GROUP BY h)",
    "SELECT sum(toYYYYMMDD({c})) FROM tz_bench",
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--granite", required=True)
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--zoned", action="store_true",
                        help="also the zoned columns (a build with time zones)")
    args = parser.parse_args()
    columns = ["u"] + (["z", "b"] if args.zoned else [])
    local = cluster.LocalCluster([args.granite], workers=1)
    local.start()
    try:
        client = Client(local.host, local.port, timeout=600)
        types = {"u": "DateTime", "z": "DateTime('UTC')", "b": "DateTime('Europe/Berlin')"}
        client.query("CREATE TABLE tz_bench (%s) ENGINE = MergeTree ORDER BY tuple()" %
                     ", ".join("%s %s" % (c, types[c]) for c in columns))
        client.query("INSERT INTO tz_bench SELECT %s FROM numbers(%d)" %
                     (", ".join("toDateTime(1600000000 + number * 7)" for _ in columns), args.rows))
        for query in QUERIES:
            for column in columns:
                sql = query.format(c=column)
                client.query(sql)  # warm
                times = []
                for _ in range(args.runs):
                    start = time.perf_counter()
                    client.query(sql)
                    times.append(time.perf_counter() - start)
                print("%-75s %.3f" % (sql, statistics.median(times)), flush=True)
    finally:
        local.stop()


if __name__ == "__main__":
    main()
