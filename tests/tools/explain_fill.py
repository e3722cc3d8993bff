#!/usr/bin/env python3
"""Fills the expected rows of EXPLAIN records that have none, from granite itself.

Usage: explain_fill.py --granite build/granite [--workers N] FILE
Starts `granite local --workers N` (default 1), runs the file's records in order and writes each
empty EXPLAIN record's output into the file. chdb_expect.py fills the other records from
ClickHouse; EXPLAIN's text is granite's own, so check what this writes before committing it.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "harness"))
sys.path.insert(0, os.path.join(REPO, "tests", "sqllogic"))
import cluster  # noqa: E402  (also makes granite_client importable)
import runner  # noqa: E402
from granite_client import Client, GraniteError  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--granite", default=None)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("file")
    args = parser.parse_args()
    records = runner.parse_file(args.file, check_rows=False)
    with open(args.file, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fills = {}  # index of the '----' line -> output rows
    with cluster.LocalCluster(cluster.find_granite(args.granite), workers=args.workers) as local:
        client = Client(port=local.port, timeout=120)
        for record in records:
            if record.min_workers > args.workers:
                continue
            try:
                out = client.execute(record.sql, format="TabSeparated").output.decode()
            except GraniteError:
                continue
            if (record.kind == "query" and not record.expected and
                    record.sql.lstrip().upper().startswith("EXPLAIN")):
                separator = record.line + record.sql.count("\n") + 1
                fills[separator] = out.rstrip("\n").split("\n") if out else []
    for separator in sorted(fills, reverse=True):
        lines[separator + 1:separator + 1] = fills[separator]
    with open(args.file, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    print("filled %d EXPLAIN record(s)" % len(fills))


if __name__ == "__main__":
    main()
