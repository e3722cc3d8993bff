#!/usr/bin/env python3
"""A stand-in for `granite local` backed by chdb (embedded ClickHouse), for checking test files.

It serves the ClickHouse gRPC protocol the way granite's coordinator must, but executes SQL with
real ClickHouse, so running the SQL suite or the protocol/insert tests against it checks that the
expected results in those tests are ClickHouse's. It is a development tool, not part of `make
test`; chdb comes with `scripts/make-venv.sh --bench`:

    .venv/bin/python tests/sqllogic/runner.py \
        --granite ".venv/bin/python tests/tools/chdb_granite.py" tests/sql/*/*.test

Implemented: `local --workers N --data DIR --port P` (N is ignored); `worker --port P --data DIR`
(a placeholder that only listens); `coordinator --port P --workers A,B` (chdb with its data in
$CHDB_GRANITE_DATA, failing queries while a worker port does not accept connections); and
`client --host H --port P --query SQL [--format F]` (stdin streamed into INSERT ... FORMAT).
Known difference from granite: averages of Int64 are floating point.
"""

import argparse
import os
import re
import signal
import sys
import threading
from concurrent import futures

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "client", "python"))

import grpc  # noqa: E402
from chdb import session as chdb_session  # noqa: E402

from granite_client._stubs import pb2, pb2_grpc  # noqa: E402

_CODE_RE = re.compile(r"Code: (\d+)\. DB::Exception: (.*)", re.S)
_NAME_RE = re.compile(r"\(([A-Z_]+)\)\s*$")
_FORMAT_RE = re.compile(r"\bFORMAT\s+(\w+)\s*;?\s*$", re.I)


class ChdbService(pb2_grpc.ClickHouseServicer):
    def __init__(self, data_dir, workers=()):
        self._session = chdb_session.Session(data_dir)
        self._lock = threading.Lock()
        self._workers = list(workers)

    def _dead_worker(self):
        import socket
        for addr in self._workers:
            host, port = addr.rsplit(":", 1)
            try:
                socket.create_connection((host, int(port)), timeout=1).close()
            except OSError:
                return addr
        return None

    def _run(self, info, input_data=b""):
        dead = self._dead_worker()
        if dead:
            return [pb2.Result(exception=pb2.Exception(
                code=279, name="ALL_CONNECTION_TRIES_FAILED",
                display_text="worker %s is unavailable" % dead))]
        sql = info.query.strip().rstrip(";")
        fmt = info.output_format or "TabSeparated"
        if input_data:
            sql = sql + "\n" + input_data.decode("utf-8")
        elif _FORMAT_RE.search(sql) and not sql.lower().startswith("insert"):
            fmt = _FORMAT_RE.search(sql).group(1)
        try:
            with self._lock:
                out = self._session.query(sql, fmt).bytes()
        except Exception as e:  # chdb raises one exception type with ClickHouse's message.
            text = str(e)
            m = _CODE_RE.search(text)
            code = int(m.group(1)) if m else 1000
            message = m.group(2) if m else text
            n = _NAME_RE.search(message)
            return [pb2.Result(exception=pb2.Exception(
                code=code, name=n.group(1) if n else "UNKNOWN", display_text=message),
                stats=pb2.Stats())]
        rows = out.count(b"\n")
        return [pb2.Result(output=out, output_format=fmt, query_id=info.query_id),
                pb2.Result(progress=pb2.Progress(read_rows=rows), stats=pb2.Stats(rows=rows))]

    @staticmethod
    def _merge(results):
        merged = pb2.Result()
        for r in results:
            merged.MergeFrom(r)
        return merged

    def _read_input(self, first, request_iterator):
        """Collects input_data until next_query_info is false; returns (data, cancelled)."""
        data = [first.input_data]
        more = first.next_query_info
        while more:
            try:
                info = next(request_iterator)
            except StopIteration:
                break
            if info.cancel:
                return b"", True
            data.append(info.input_data)
            more = info.next_query_info
        return b"".join(data), False

    def ExecuteQuery(self, request, context):
        return self._merge(self._run(request, request.input_data))

    def ExecuteQueryWithStreamInput(self, request_iterator, context):
        first = next(request_iterator)
        data, cancelled = self._read_input(first, request_iterator)
        if cancelled:
            return pb2.Result(cancelled=True, stats=pb2.Stats())
        return self._merge(self._run(first, data))

    def ExecuteQueryWithStreamOutput(self, request, context):
        yield from self._run(request, request.input_data)

    def ExecuteQueryWithStreamIO(self, request_iterator, context):
        first = next(request_iterator)
        if first.query.lstrip().lower().startswith("insert"):
            data, cancelled = self._read_input(first, request_iterator)
            if cancelled:
                yield pb2.Result(cancelled=True, stats=pb2.Stats())
                return
            yield from self._run(first, data)
            return
        # A query without input: run it while watching the input side for a cancel.
        box = {}
        worker = threading.Thread(target=lambda: box.setdefault("r", self._run(first)))
        worker.start()
        cancelled = threading.Event()

        def watch():
            try:
                for info in request_iterator:
                    if info.cancel:
                        cancelled.set()
                        return
            except Exception:
                pass

        if first.next_query_info:
            threading.Thread(target=watch, daemon=True).start()
        while worker.is_alive() and not cancelled.is_set():
            worker.join(0.02)
        if cancelled.is_set():
            yield pb2.Result(cancelled=True, stats=pb2.Stats())
            return
        yield from box["r"]


def serve_forever(server):
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    while not stop.wait(0.2):
        pass
    server.stop(1).wait()
    os._exit(0)


def client_main(args):
    import granite_client
    try:
        with granite_client.connect(args.host, args.port, timeout=30) as c:
            if args.query.lstrip().upper().startswith("INSERT") and not sys.stdin.isatty():
                chunks = iter(lambda: sys.stdin.buffer.read(1 << 20), b"")
                out = c.insert_stream(args.query, chunks, format=args.format).output
            else:
                out = c.query(args.query, format=args.format)
    except granite_client.GraniteError as e:
        print(e, file=sys.stderr)
        return 1
    sys.stdout.buffer.write(out)
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["local", "worker", "coordinator", "client"])
    parser.add_argument("--workers", default="1")
    parser.add_argument("--data")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--threads", type=int)
    parser.add_argument("--query")
    parser.add_argument("--format")
    args = parser.parse_args()
    if args.command == "client":
        sys.exit(client_main(args))
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8),
                         options=[("grpc.max_receive_message_length", -1),
                                  ("grpc.max_send_message_length", -1)])
    if args.command == "worker":
        port = server.add_insecure_port("127.0.0.1:%d" % args.port)
        server.start()
        print("granite worker listening on 127.0.0.1:%d" % port, flush=True)
        serve_forever(server)
    if args.command == "coordinator":
        data = os.environ.get("CHDB_GRANITE_DATA", "/tmp/chdb-granite-coordinator")
        service = ChdbService(data, args.workers.split(","))
    else:
        service = ChdbService(os.path.join(args.data, "chdb"))
    pb2_grpc.add_ClickHouseServicer_to_server(service, server)
    port = server.add_insecure_port("127.0.0.1:%d" % args.port)
    server.start()
    if args.command == "coordinator":
        print("granite coordinator listening on 127.0.0.1:%d" % port, flush=True)
    else:
        print("granite local listening on 127.0.0.1:%d (%s workers)" % (port, args.workers),
              flush=True)
    serve_forever(server)


if __name__ == "__main__":
    main()
