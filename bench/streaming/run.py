#!/usr/bin/env python3
"""A large SELECT streamed to the client: time to the first block, total time and the
coordinator's peak RSS.

For each granite binary given, starts `granite worker` x N and `granite coordinator` as separate
processes (tests/harness/cluster.py SplitCluster), loads a table of --rows rows once, then for
every query and transport starts a fresh coordinator (its VmHWM then belongs to that query
alone), runs the query and reads the whole answer:

- grpc: ExecuteQueryWithStreamOutput; "first block" is the first Result with output bytes.
- grpc-io: ExecuteQueryWithStreamIO as ClickHouse's stock gRPC client calls it in its
  interactive mode: the request stream stays open (for a cancel) until the answer ends.
- http: POST to ClickHouse's HTTP interface (TabSeparated); "first block" is the first body bytes.
- clickhouse-connect: its query_column_block_stream (Native over HTTP, compressed as it asks);
  output MB is not known to it (shown as -).
- node: @clickhouse/client (bench/streaming/node_read.cjs) reading JSONCompactEachRow rows.

Each transport checks the row count it read. The coordinator's peak RSS is VmHWM from
/proc/<pid>/status after the query. Not a test: the numbers depend on the machine. Transports
whose client is missing (clickhouse-connect from the venv, node and
scripts/install-node-clients.sh) are skipped with a note.

    .venv/bin/python bench/streaming/run.py --rows 10000000 \\
        --binary before=/tmp/granite-before --binary after=build/granite [--transport http ...] \\
        [--query "group by" ...]
"""

import argparse
import http.client
import json
import os
import shutil
import subprocess
import sys
import threading
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
    # A GROUP BY with as many groups as rows: merged buckets stream as they finish.
    "group by": "SELECT x, any(s) FROM streamed GROUP BY x",
}
NODE_MODULES = os.path.join(REPO, "tests", "integration", "node", "node_modules")


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
    results = stub.ExecuteQueryWithStreamOutput(pb2.QueryInfo(query=query), timeout=3600)
    first, total, size, messages = read_results(results, time.monotonic())
    channel.close()
    return first, total, size, messages


def read_results(results, start):
    """Reads a stream of Result messages; returns (first output at, total, bytes, messages)."""
    first = None
    size = messages = 0
    for result in results:
        messages += 1
        if result.HasField("exception"):
            raise SystemExit("query failed: " + result.exception.display_text)
        if result.output and first is None:
            first = time.monotonic() - start
        size += len(result.output)
    return first, time.monotonic() - start, size, messages


def run_grpc_io(c, query):
    channel = grpc.insecure_channel("%s:%d" % (c.host, c.port),
                                    options=[("grpc.max_receive_message_length", -1)])
    stub = pb2_grpc.ClickHouseStub(channel)
    done = threading.Event()

    def requests():
        yield pb2.QueryInfo(query=query, user_name="default", output_format="TabSeparated")
        done.wait(3600)  # open until the answer ends, as the stock client's interactive mode

    start = time.monotonic()
    try:
        first, total, size, messages = read_results(
            stub.ExecuteQueryWithStreamIO(requests(), timeout=3600), start)
    finally:
        done.set()
    channel.close()
    return first, total, size, messages


def run_clickhouse_connect(c, query):
    import clickhouse_connect
    client = clickhouse_connect.get_client(host=c.host, port=c.coordinator.http_port,
                                           send_receive_timeout=3600)
    start = time.monotonic()
    first = None
    blocks = rows = 0
    with client.query_column_block_stream(query) as stream:
        for block in stream:
            if first is None:
                first = time.monotonic() - start
            blocks += 1
            rows += len(block[0])
    total = time.monotonic() - start
    client.close()
    return first, total, None, blocks, rows


def run_node(c, query):
    run = subprocess.run(["node", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                               "node_read.cjs"),
                          NODE_MODULES, "http://%s:%d" % (c.host, c.coordinator.http_port), query],
                         capture_output=True, text=True, timeout=3600)
    if run.returncode != 0:
        raise SystemExit("node failed: " + run.stderr[-2000:])
    answer = json.loads(run.stdout)
    return answer["first"], answer["total"], None, None, answer["rows"]


def missing_client(transport):
    """Returns why `transport` cannot run here, or None."""
    if transport == "clickhouse-connect":
        try:
            import clickhouse_connect  # noqa: F401
        except ImportError:
            return "clickhouse-connect is not installed (scripts/make-venv.sh)"
    if transport == "node" and (shutil.which("node") is None or not os.path.isdir(
            os.path.join(NODE_MODULES, "@clickhouse", "client"))):
        return "node or @clickhouse/client missing (scripts/install-node-clients.sh)"
    return None


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


TRANSPORTS = {
    "grpc": run_grpc,
    "grpc-io": run_grpc_io,
    "http": run_http,
    "clickhouse-connect": run_clickhouse_connect,
    "node": run_node,
}


def measure(label, binary, rows, workers, transports, query_names):
    c = cluster.SplitCluster([binary], workers=workers).start()
    lines = []
    try:
        client = c.client(timeout=3600)
        client.query("CREATE TABLE streamed (x UInt64, s String) ENGINE = MergeTree ORDER BY x")
        client.query("INSERT INTO streamed SELECT number, toString(number) FROM numbers(%d)" % rows)
        client.close()
        for name in query_names:
            text = QUERIES[name]
            query = text.format(rows=rows)
            for transport in transports:
                c.coordinator.stop()
                c._start_coordinator()
                rss_before = status_kb(c.coordinator.pid, "VmRSS")
                answer = TRANSPORTS[transport](c, query)
                first, total, size, pieces = answer[:4]
                if len(answer) > 4 and answer[4] != rows:
                    raise SystemExit("%s read %d rows, not %d" % (transport, answer[4], rows))
                peak = status_kb(c.coordinator.pid, "VmHWM")
                line = "| %s | %s | %s | %.2f | %.2f | %s | %s | %.0f | %.0f |" % (
                    label, name, transport, first, total,
                    "-" if size is None else "%.0f" % (size / 1e6),
                    "-" if pieces is None else pieces, rss_before / 1024, peak / 1024)
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
    parser.add_argument("--transport", action="append", choices=sorted(TRANSPORTS),
                        help="repeatable; default: every transport whose client is installed")
    parser.add_argument("--query", action="append", choices=sorted(QUERIES),
                        help="repeatable; default: every query")
    args = parser.parse_args()
    transports = []
    for transport in args.transport or list(TRANSPORTS):
        why = missing_client(transport)
        if why:
            print("skipping %s: %s" % (transport, why), file=sys.stderr)
        else:
            transports.append(transport)
    print("| binary | query | transport | first block s | total s | output MB | messages / reads | "
          "coordinator RSS at start MB | peak RSS (VmHWM) MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for spec in args.binary:
        label, path = spec.split("=", 1)
        measure(label, os.path.abspath(path), args.rows, args.workers, transports,
                args.query or list(QUERIES))


if __name__ == "__main__":
    main()
