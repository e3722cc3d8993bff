#!/usr/bin/env python3
"""Times binary output formats of granite local (1 worker) over gRPC, and chdb's for the same
query as a peer: wall seconds (best of --runs) and output bytes per format, then the insert of the
same rows in Native, ArrowStream and Parquet (granite's and pyarrow's), with chdb inserting the same
bytes into a MergeTree table (INSERT ... SELECT FROM file) as the peer. A measurement, never a
test.

Usage: .venv/bin/python bench/formats/binary_formats.py [--granite build/granite] [--rows N]
"""

import argparse
import os
import shutil
import sys
import tempfile
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
        print("| insert format | writer | MB | granite s | chdb s (INSERT SELECT FROM file) |")
        print("|---|---|---|---|---|")
        inputs = [(fmt, "granite", client.query(query, format=fmt))
                  for fmt in ("Native", "ArrowStream", "Parquet")]
        try:
            import io
            import pyarrow.ipc
            import pyarrow.parquet
            table = pyarrow.ipc.open_stream(inputs[1][2]).read_all()
            sink = io.BytesIO()
            pyarrow.parquet.write_table(table, sink)  # snappy, dictionary pages: pyarrow's default
            inputs.append(("Parquet", "pyarrow", sink.getvalue()))
        except ImportError:
            pass
        peer_session = None
        if chdb is not None:
            from chdb import session
            peer_dir = tempfile.mkdtemp(prefix="chdb-insert-")
            peer_session = session.Session(peer_dir)
            peer_session.query("CREATE TABLE t (number UInt64, s String, f Float64, d Date) "
                               "ENGINE = MergeTree ORDER BY number")
        for fmt, writer, data in inputs:
            client.query("TRUNCATE TABLE t")
            start = time.perf_counter()
            client.query("INSERT INTO t FORMAT " + fmt, input_data=data)
            seconds = time.perf_counter() - start
            count = client.query("SELECT count() FROM t", format="TSV").strip()
            assert int(count) == args.rows, count
            peer = "-"
            if peer_session is not None:
                path = os.path.join(peer_dir, "input.bin")
                with open(path, "wb") as f:
                    f.write(data)
                peer_session.query("TRUNCATE TABLE t")
                start = time.perf_counter()
                peer_session.query("INSERT INTO t SELECT * FROM file('%s', %s)" % (path, fmt))
                peer = "%.2f" % (time.perf_counter() - start)
            print("| %s | %s | %.1f | %.2f | %s |" % (fmt, writer, len(data) / 1e6, seconds, peer))
        if peer_session is not None:
            peer_session.cleanup()
            shutil.rmtree(peer_dir, ignore_errors=True)
    finally:
        c.stop()


if __name__ == "__main__":
    main()
