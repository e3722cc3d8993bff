"""A scriptable ClickHouse gRPC server in Python, for testing the harness and the client package
without a granite build.

FakeClickHouse answers each query from `answers` (SQL text -> output bytes, an (code, name,
message) error tuple, or a callable(info, input_data) returning either) and records every request
stream it receives in `calls` as (method name, [QueryInfo, ...]). Run as a script, it imitates
`granite local`: `python fake_server.py local --workers N --data DIR --port P` prints the listening
line and answers "SELECT <integer>" with that integer, and any query starting with "SELEC " (sic) or
naming "no_such_table" with ClickHouse's error; everything else succeeds with no output.

Thread-safety: gRPC calls run on a thread pool; `calls` is appended under a lock.
"""

import os
import re
import signal
import sys
import threading
import unittest
from concurrent import futures

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster  # noqa: E402,F401  (puts client/python on sys.path)

import grpc  # noqa: E402

from granite_client._stubs import pb2, pb2_grpc  # noqa: E402


class FakeClickHouse(pb2_grpc.ClickHouseServicer):
    def __init__(self, answers=None):
        self.answers = dict(answers or {})
        self.calls = []
        self._lock = threading.Lock()

    def _record(self, method, infos):
        with self._lock:
            self.calls.append((method, infos))

    def _results(self, info, input_data):
        answer = self.answers.get(info.query.strip(), b"")
        if callable(answer):
            answer = answer(info, input_data)
        if isinstance(answer, tuple):
            code, name, message = answer
            return [pb2.Result(exception=pb2.Exception(code=code, name=name,
                                                       display_text=message))]
        rows = answer.count(b"\n")
        return [pb2.Result(output=answer, query_id=info.query_id),
                pb2.Result(progress=pb2.Progress(read_rows=rows), stats=pb2.Stats(rows=rows))]

    @staticmethod
    def _merge(results):
        merged = pb2.Result()
        for r in results:
            merged.MergeFrom(r)
        return merged

    @staticmethod
    def _read_rest(first, iterator, infos):
        """Reads the QueryInfos after the first; returns (input bytes, cancelled)."""
        data = [first.input_data]
        more = first.next_query_info
        while more:
            info = next(iterator, None)
            if info is None:
                break
            infos.append(info)
            if info.cancel:
                return b"", True
            data.append(info.input_data)
            more = info.next_query_info
        return b"".join(data), False

    def ExecuteQuery(self, request, context):
        self._record("ExecuteQuery", [request])
        return self._merge(self._results(request, request.input_data))

    def ExecuteQueryWithStreamInput(self, request_iterator, context):
        first = next(request_iterator)
        infos = [first]
        data, cancelled = self._read_rest(first, request_iterator, infos)
        self._record("ExecuteQueryWithStreamInput", infos)
        if cancelled:
            return pb2.Result(cancelled=True, stats=pb2.Stats())
        return self._merge(self._results(first, data))

    def ExecuteQueryWithStreamOutput(self, request, context):
        self._record("ExecuteQueryWithStreamOutput", [request])
        yield from self._results(request, request.input_data)

    def ExecuteQueryWithStreamIO(self, request_iterator, context):
        first = next(request_iterator)
        infos = [first]
        data, cancelled = self._read_rest(first, request_iterator, infos)
        self._record("ExecuteQueryWithStreamIO", infos)
        if cancelled:
            yield pb2.Result(cancelled=True, stats=pb2.Stats())
            return
        yield from self._results(first, data)


def serve(servicer, port=0):
    """Starts a gRPC server for servicer on 127.0.0.1; returns (server, port)."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    pb2_grpc.add_ClickHouseServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:%d" % port)
    server.start()
    return server, port


class FakeServerCase(unittest.TestCase):
    """A test case with one FakeClickHouse for the class (self.fake, self.port), its recorded
    calls and scripted answers cleared before each test."""

    @classmethod
    def setUpClass(cls):
        cls.fake = FakeClickHouse()
        cls.server, cls.port = serve(cls.fake)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop(0)

    def setUp(self):
        self.fake.calls.clear()
        self.fake.answers.clear()


class _LocalImitation(FakeClickHouse):
    def _results(self, info, input_data):
        sql = info.query.strip()
        m = re.fullmatch(r"SELECT (\d+)", sql)
        if m:
            self.answers[sql] = (m.group(1) + "\n").encode()
        elif sql.startswith("SELEC "):
            self.answers[sql] = (62, "SYNTAX_ERROR", "Syntax error: failed at position 1 (SELEC)")
        elif "no_such_table" in sql:
            self.answers[sql] = (60, "UNKNOWN_TABLE", "Table default.no_such_table does not exist")
        return super()._results(info, input_data)


def main(argv):
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["local"])
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--data", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--threads", type=int)
    args = parser.parse_args(argv)
    server, port = serve(_LocalImitation(), args.port)
    print("granite local listening on 127.0.0.1:%d (%d workers)" % (port, args.workers),
          flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    while not stop.wait(0.1):
        pass
    server.stop(0)
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
