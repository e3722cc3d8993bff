#!/usr/bin/env python3
"""Times binary output formats of granite local (1 worker) over gRPC, and chdb's for the same
query as a peer: wall seconds (best of --runs) and output bytes per format, then the insert of the
same rows in Native and ArrowStream. A measurement, never a test.

Usage: .venv/bin/python bench/formats/binary_formats.py [--granite build/granite] [--rows N]
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tests", "harness"))
import cluster  # noqa: E402

FORMATS = [("Native", {}), ("ArrowStream", {}), ("Arrow", {}),
           ("ArrowStream", {"output_format_arrow_compression_method": "lz4_frame"}),
           ("Parquet", {}), ("Parquet", {"output_format_parquet_compression_method": "none"})]


def best(runs, fn):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--granite", default="build/granite")
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    query = ("SELECT number, toString(number) AS s, toFloat64(number) / 3 AS f, "
             "toDate('2020-01-01') + number %% 1000 AS d FROM numbers(%d)" % args.rows)
    try:
        import chdb
    except ImportError:
        chdb = None
    c = cluster.LocalCluster([args.granite], workers=1).start()
    try:
        client = c.client(timeout=600)
        print("| format | settings | granite s | granite MB | chdb s | chdb MB |")
        print("|---|---|---|---|---|---|")
        for fmt, settings in FORMATS:
            seconds, out = best(args.runs, lambda: client.query(query, format=fmt,
                                                                settings=settings))
            peer = "-", "-"
            if chdb is not None:
                suffix = (" SETTINGS " + ", ".join("%s = '%s'" % kv for kv in settings.items())
                          if settings else "")
                s2, o2 = best(args.runs, lambda: chdb.query(query + suffix, fmt).bytes())
                peer = "%.2f" % s2, "%.1f" % (len(o2) / 1e6)
            print("| %s | %s | %.2f | %.1f | %s | %s |" % (
                fmt, ", ".join("%s=%s" % kv for kv in settings.items()) or "default", seconds,
                len(out) / 1e6, peer[0], peer[1]))
        client.query("CREATE TABLE t (number UInt64, s String, f Float64, d Date) "
                     "ENGINE = MergeTree ORDER BY number")
        print()
        print("| insert format | MB | granite s |")
        print("|---|---|---|")
        for fmt in ("Native", "ArrowStream"):
            data = client.query(query, format=fmt)
            client.query("TRUNCATE TABLE t")
            start = time.perf_counter()
            client.query("INSERT INTO t FORMAT " + fmt, input_data=data)
            seconds = time.perf_counter() - start
            count = client.query("SELECT count() FROM t", format="TSV").strip()
            assert int(count) == args.rows, count
            print("| %s | %.1f | %.2f |" % (fmt, len(data) / 1e6, seconds))
    finally:
        c.stop()


if __name__ == "__main__":
    main()
