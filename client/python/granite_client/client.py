"""Client for granite's ClickHouse-compatible gRPC service (clickhouse.grpc.ClickHouse).

Which RPC each call uses:
  execute/query/query_text                -> ExecuteQuery (one QueryInfo, carrying input_data if
                                              given; one Result): the whole output is collected
                                              anyway, and a unary call costs ~0.25 ms less than a
                                              streamed one (bench/results/smallq-2026-11-23.md)
  execute(stream_output=True)             -> ExecuteQueryWithStreamOutput (output streamed back)
  insert_stream / execute with an iterable -> ExecuteQueryWithStreamInput (one QueryInfo per chunk,
                                              next_query_info=true, then an empty QueryInfo)
  stream                                   -> ExecuteQueryWithStreamIO (send more input, cancel)
  query_df / query_arrow                   -> ExecuteQueryWithStreamOutput in Native, decoded
                                              block by block (native.py, frames.py; needs the
                                              [pandas] / [arrow] extras)
Every call takes parameters={"name": value} for the query's {name:Type} placeholders, sent as
param_<name> settings (parameters.py), never spliced into the text.
Every call raises GraniteError when a Result carries an exception, TransportError when the gRPC call
itself fails.

Thread-safety: a Client may be shared by threads (gRPC channels are thread-safe); a QueryStream
belongs to one thread, except cancel(), which any thread may call.
"""

import queue
import uuid

import grpc

from ._stubs import pb2, pb2_grpc
from .errors import GraniteError, TransportError
from .parameters import param_settings

_PROGRESS_FIELDS = ("read_rows", "read_bytes", "total_rows_to_read", "written_rows",
                    "written_bytes")


class QueryResult:
    """Holds everything the server streamed back for one query.

    output: the concatenated Result.output bytes; stats: the last Stats message (or None);
    progress: dict of the summed Progress increments; cancelled: True when the server confirmed a
    cancel; results: the raw Result messages in arrival order.
    """

    def __init__(self, results):
        self.results = list(results)
        self.output = b"".join(r.output for r in self.results)
        self.stats = None
        self.cancelled = False
        self.query_id = ""
        self.output_format = ""
        self.time_zone = ""
        self.output_columns = []
        self.progress = {f: 0 for f in _PROGRESS_FIELDS}
        for r in self.results:
            if r.HasField("stats"):
                self.stats = r.stats
            if r.HasField("progress"):
                for f in _PROGRESS_FIELDS:
                    self.progress[f] += getattr(r.progress, f)
            self.cancelled = self.cancelled or r.cancelled
            self.query_id = r.query_id or self.query_id
            self.output_format = r.output_format or self.output_format
            self.time_zone = r.time_zone or self.time_zone
            if r.output_columns:
                self.output_columns = [(c.name, c.type) for c in r.output_columns]

    def text(self):
        return self.output.decode("utf-8")


def _raise_on_exception(result):
    if result.HasField("exception") and (result.exception.code or result.exception.display_text):
        e = result.exception
        raise GraniteError(e.code, e.name, e.display_text)


def _transport_error(rpc_error):
    code = rpc_error.code() if hasattr(rpc_error, "code") else None
    name = code.name if code is not None else "UNKNOWN"
    details = rpc_error.details() if hasattr(rpc_error, "details") else str(rpc_error)
    return TransportError(name, details or "")


def _as_bytes(data):
    if isinstance(data, str):
        return data.encode("utf-8")
    if isinstance(data, int):  # bytes(5) would be five zero bytes, not data
        raise TypeError("input data chunks must be bytes-like or str, not int")
    return bytes(data)


def _is_single_chunk(data):
    """Whether `data` is one chunk: str, or any bytes-like object (a pyarrow Buffer too)."""
    if isinstance(data, (bytes, bytearray, memoryview, str)):
        return True
    try:
        memoryview(data)
    except TypeError:
        return False
    return True


class QueryStream:
    """Runs one query over ExecuteQueryWithStreamIO and keeps the input side open.

    Iterate to receive Result messages as they arrive. send() streams more input_data, finish()
    ends the input, cancel() asks the server to cancel (it answers with Result.cancelled = true),
    also after finish(): the request stream stays open until the call ends, so a cancel message
    can always follow. Iterating (or result()) ends the input first if it is still open, so a
    query never waits for input nobody will send. close() drops the call.
    """

    def __init__(self, stub, first_info, timeout, metadata):
        self._queue = queue.Queue()
        self._input_open = True
        first_info.next_query_info = True
        self._queue.put(first_info)
        self._call = stub.ExecuteQueryWithStreamIO(self._requests(), timeout=timeout,
                                                   metadata=metadata)

    def _requests(self):
        # Stays open after the last input (next_query_info = false) for a later cancel message;
        # ends when the call ends (None from __iter__ or close()) or after a cancel.
        while True:
            info = self._queue.get()
            if info is None:
                return
            yield info
            if info.cancel:
                return

    def send(self, data):
        """Streams one more chunk of input_data. REQUIRES: finish()/cancel() not called yet."""
        if not self._input_open:
            raise ValueError("the input of this query is already closed")
        self._queue.put(pb2.QueryInfo(input_data=_as_bytes(data), next_query_info=True))

    def finish(self):
        """Ends the input (an empty QueryInfo with next_query_info = false)."""
        if self._input_open:
            self._input_open = False
            self._queue.put(pb2.QueryInfo(next_query_info=False))

    def cancel(self):
        """Sends QueryInfo{cancel: true}: the server stops the query and answers cancelled."""
        self._input_open = False
        self._queue.put(pb2.QueryInfo(cancel=True))

    def close(self):
        self._input_open = False
        self._queue.put(None)
        self._call.cancel()

    def __iter__(self):
        self.finish()
        try:
            for result in self._call:
                yield result
        except grpc.RpcError as e:
            raise _transport_error(e) from None
        finally:
            self._queue.put(None)

    def result(self):
        """Collects the remaining Results into a QueryResult; raises GraniteError on exception."""
        results = list(self)
        for r in results:
            _raise_on_exception(r)
        return QueryResult(results)


class Client:
    """Talks to one granite coordinator (or any ClickHouse gRPC server).

    settings: default per-query settings merged under each call's own; session_id is sent with
    every query when given; timeout (seconds) is the default deadline of each call.
    """

    def __init__(self, host="127.0.0.1", port=9100, *, user_name="default", password="",
                 database="", session_id="", settings=None, timeout=None, secure=False,
                 root_certificates=None, private_key=None, certificate_chain=None):
        """secure: TLS, verifying the server with root_certificates (PEM bytes; None: the
        system's roots); private_key and certificate_chain (PEM bytes) present a client
        certificate (mutual TLS)."""
        target = "%s:%d" % (host, int(port))
        options = [("grpc.max_receive_message_length", -1),
                   ("grpc.max_send_message_length", -1)]
        if secure:
            credentials = grpc.ssl_channel_credentials(
                root_certificates=root_certificates, private_key=private_key,
                certificate_chain=certificate_chain)
            self._channel = grpc.secure_channel(target, credentials, options=options)
        else:
            self._channel = grpc.insecure_channel(target, options=options)
        self._stub = pb2_grpc.ClickHouseStub(self._channel)
        self.user_name = user_name
        self.password = password
        self.database = database
        self.session_id = session_id
        self.settings = dict(settings or {})
        self.timeout = timeout

    @property
    def stub(self):
        """The raw generated stub, for calls this class does not wrap."""
        return self._stub

    def wait_ready(self, timeout=10.0):
        """Blocks until the channel is connected; raises TransportError after timeout seconds."""
        try:
            grpc.channel_ready_future(self._channel).result(timeout=timeout)
        except grpc.FutureTimeoutError:
            raise TransportError("UNAVAILABLE", "not connected after %.1f s" % timeout) from None

    def query_info(self, sql, format=None, settings=None, query_id=None, input_data=b"",
                   next_query_info=False, parameters=None):
        """Builds the first QueryInfo of a query the way this client sends it."""
        merged = dict(self.settings)
        merged.update(settings or {})
        merged.update(param_settings(parameters))
        return pb2.QueryInfo(
            query=sql, query_id=query_id or str(uuid.uuid4()),
            settings={str(k): str(v) for k, v in merged.items()}, database=self.database,
            input_data=_as_bytes(input_data), output_format=format or "",
            user_name=self.user_name, password=self.password, session_id=self.session_id,
            next_query_info=next_query_info)

    def execute(self, sql, format=None, settings=None, input_data=None, query_id=None,
                timeout=None, stream_output=False, parameters=None):
        """Runs one query and returns its QueryResult. See the module comment for the RPC used."""
        timeout = timeout if timeout is not None else self.timeout
        if input_data is not None and not _is_single_chunk(input_data):
            return self.insert_stream(sql, input_data, format=format, settings=settings,
                                      query_id=query_id, timeout=timeout, parameters=parameters)
        info = self.query_info(sql, format, settings, query_id,
                               input_data=b"" if input_data is None else input_data,
                               parameters=parameters)
        try:
            if stream_output:
                results = list(self._stub.ExecuteQueryWithStreamOutput(info, timeout=timeout))
            else:
                results = [self._stub.ExecuteQuery(info, timeout=timeout)]
        except grpc.RpcError as e:
            raise _transport_error(e) from None
        for r in results:
            _raise_on_exception(r)
        return QueryResult(results)

    def query(self, sql, format=None, settings=None, input_data=None, **kwargs):
        """Runs one query and returns its output bytes (TabSeparated unless format says else)."""
        return self.execute(sql, format=format, settings=settings, input_data=input_data,
                            **kwargs).output

    def query_text(self, sql, format=None, settings=None, input_data=None, **kwargs):
        """Like query(), decoded as UTF-8."""
        return self.query(sql, format, settings, input_data, **kwargs).decode("utf-8")

    def insert_stream(self, sql, chunks, format=None, settings=None, query_id=None, timeout=None,
                      parameters=None):
        """Streams chunks (an iterable of bytes/str) as the input data of sql, e.g.
        "INSERT INTO t FORMAT CSV", over ExecuteQueryWithStreamInput. Returns the QueryResult."""
        timeout = timeout if timeout is not None else self.timeout
        first = self.query_info(sql, format, settings, query_id, next_query_info=True,
                                parameters=parameters)

        def requests():
            pending = first
            for chunk in chunks:
                if pending is not None:
                    pending.input_data = _as_bytes(chunk)
                    yield pending
                    pending = None
                else:
                    yield pb2.QueryInfo(input_data=_as_bytes(chunk), next_query_info=True)
            if pending is not None:
                yield pending
            yield pb2.QueryInfo(next_query_info=False)

        try:
            result = self._stub.ExecuteQueryWithStreamInput(requests(), timeout=timeout)
        except grpc.RpcError as e:
            raise _transport_error(e) from None
        _raise_on_exception(result)
        return QueryResult([result])

    def stream(self, sql, format=None, settings=None, query_id=None, input_data=b"",
               timeout=None, parameters=None):
        """Starts sql over ExecuteQueryWithStreamIO; returns its QueryStream (input kept open)."""
        timeout = timeout if timeout is not None else self.timeout
        info = self.query_info(sql, format, settings, query_id, input_data=input_data,
                               parameters=parameters)
        return QueryStream(self._stub, info, timeout, None)

    def query_df(self, sql, parameters=None, settings=None, query_id=None, timeout=None):
        """Runs a SELECT and returns its result as a pandas DataFrame (frames.py: the types)."""
        from .frames import to_pandas
        return to_pandas(self._query_native(sql, parameters, settings, query_id, timeout))

    def query_arrow(self, sql, parameters=None, settings=None, query_id=None, timeout=None):
        """Runs a SELECT and returns its result as a pyarrow Table (frames.py: the types)."""
        from .frames import to_arrow
        return to_arrow(self._query_native(sql, parameters, settings, query_id, timeout))

    def _query_native(self, sql, parameters, settings, query_id, timeout):
        """Streams sql's result in Native, decoding each block as it arrives; returns a
        frames.Collected. Column names and types come from Result.output_columns when the result
        is empty (an empty Native result is no bytes at all)."""
        from .frames import Collected
        from .native import ColumnType, NativeDecoder
        timeout = timeout if timeout is not None else self.timeout
        decoder = NativeDecoder()
        info = self.query_info(sql, "Native", settings, query_id, parameters=parameters)
        info.send_output_columns = True
        collected = None
        declared = []
        try:
            for result in self._stub.ExecuteQueryWithStreamOutput(info, timeout=timeout):
                _raise_on_exception(result)
                if result.output_columns and not declared:
                    declared = [(c.name, c.type) for c in result.output_columns]
                for block in decoder.feed(result.output) if result.output else ():
                    if collected is None:
                        collected = Collected(decoder.names, decoder.types)
                    collected.add(block)
        except grpc.RpcError as e:
            raise _transport_error(e) from None
        decoder.finish()
        if collected is None:
            collected = Collected([n for n, _ in declared], [ColumnType(t) for _, t in declared])
        return collected

    def close(self):
        self._channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def connect(host="127.0.0.1", port=9100, **kwargs):
    """Returns a Client for host:port (connection is made lazily by the first call)."""
    return Client(host, port, **kwargs)
