#!/usr/bin/env python3
"""A large SELECT streamed to the client: time to the first block, total time and the
coordinator's peak RSS.

For each granite binary given, starts `granite worker` x N and `granite coordinator` as separate
processes (tests/harness/cluster.py SplitCluster), loads a table of --rows rows once, then for
every query and transport starts a fresh coordinator (its VmHWM then belongs to that query
alone), runs the query and reads the whole answer:

- grpc: ExecuteQueryWithStreamOutput; "first block" is the first Result with output bytes.
- http: POST to ClickHouse's HTTP interface; "first block" is the first body bytes read.

The coordinator's peak RSS is VmHWM from /proc/<pid>/status after the query. Not a test: the
numbers depend on the machine.

    .venv/bin/python bench/streaming/run.py --rows 10000000 \\
        --binary before=/tmp/granite-before --binary after=build/granite
"""

import argparse
import http.client
import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests", "harness"))
sys.path.insert(0, os.path.join(REPO, "client", "python"))

import cluster  # noqa: E402
import grpc  # noqa: E402
from granite_client._stubs import pb2, pb2_grpc  # noqa: E402

QUERIES = {
    "numbers": "SELECT number, toString(number) FROM numbers({rows})",
    "table scan": "SELECT x, s FROM streamed",
}


def status_kb(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def run_grpc(c, query):
    channel = grpc.insecure_channel("%s:%d" % (c.host, c.port),
                                    options=[("grpc.max_receive_message_length", -1)])
    stub = pb2_grpc.ClickHouseStub(channel)
    start = time.monotonic()
    first = None
    size = 0
    messages = 0
    for result in stub.ExecuteQueryWithStreamOutput(pb2.QueryInfo(query=query), timeout=3600):
        messages += 1
        if result.HasField("exception"):
            raise SystemExit("query failed: " + result.exception.display_text)
        if result.output and first is None:
            first = time.monotonic() - start
        size += len(result.output)
    total = time.monotonic() - start
    channel.close()
    return first, total, size, messages


def run_http(c, query):
    conn = http.client.HTTPConnection(c.host, c.coordinator.http_port, timeout=3600)
    start = time.monotonic()
    conn.request("POST", "/", body=query.encode())
    response = conn.getresponse()
    first = None
    size = 0
    reads = 0
    while True:
        piece = response.read1(1 << 20)
        if not piece:
            break
        if first is None:
            first = time.monotonic() - start
        size += len(piece)
        reads += 1
    total = time.monotonic() - start
    if response.status != 200 or response.getheader("X-ClickHouse-Exception-Code"):
        raise SystemExit("HTTP %d" % response.status)
    conn.close()
    return first, total, size, reads


def measure(label, binary, rows, workers):
    c = cluster.SplitCluster([binary], workers=workers).start()
    lines = []
    try:
        client = c.client(timeout=3600)
        client.query("CREATE TABLE streamed (x UInt64, s String) ENGINE = MergeTree ORDER BY x")
        client.query("INSERT INTO streamed SELECT number, toString(number) FROM numbers(%d)" % rows)
        client.close()
        for name, text in QUERIES.items():
            query = text.format(rows=rows)
            for transport, run in (("grpc", run_grpc), ("http", run_http)):
                c.coordinator.stop()
                c._start_coordinator()
                rss_before = status_kb(c.coordinator.pid, "VmRSS")
                first, total, size, pieces = run(c, query)
                peak = status_kb(c.coordinator.pid, "VmHWM")
                line = "| %s | %s | %s | %.2f | %.2f | %.0f | %d | %.0f | %.0f |" % (
                    label, name, transport, first, total, size / 1e6, pieces,
                    rss_before / 1024, peak / 1024)
                print(line, flush=True)
                lines.append(line)
    finally:
        c.stop()
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10000000)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--binary", action="append", required=True, help="label=path")
    args = parser.parse_args()
    print("| binary | query | transport | first block s | total s | output MB | messages | "
          "coordinator RSS at start MB | peak RSS (VmHWM) MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for spec in args.binary:
        label, path = spec.split("=", 1)
        measure(label, os.path.abspath(path), args.rows, args.workers)


if __name__ == "__main__":
    main()
