"""PEP 249 (DB-API 2.0) interface to granite over ClickHouse's gRPC protocol.

    from granite_client import dbapi
    with dbapi.connect(host="127.0.0.1", port=9100) as conn:
        cur = conn.cursor()
        cur.execute("SELECT number, toString(number) AS s FROM numbers(%(n)s)", {"n": 3})
        print(cur.description)        # (('number', 'UInt64', ...), ('s', 'String', ...))
        for row in cur:               # rows decoded as the result streams in
            print(row)

Results travel as RowBinaryWithNamesAndTypes and are decoded as each output chunk arrives
(row_binary.py: the Python type of each ClickHouse type): iteration and fetchone() never wait for
the whole result, and never wait for input (the query's input side is closed when it starts).
Parameters use paramstyle "pyformat" (%(name)s, or %s with a sequence); they are bound on the
server: each placeholder becomes {name:Type} (the type inferred from the Python value) and its
value travels as the setting param_<name>, never spliced into the text (parameters.py).
description holds each column's name and ClickHouse type, a Decimal's precision and scale, and
whether it is Nullable. There are no transactions: commit() does nothing, rollback() raises
NotSupportedError.
"""

import re

from .client import Client
from .errors import GraniteError, TransportError
from .parameters import pyformat_to_server
from .row_binary import RowBinaryDecoder, UnsupportedType

apilevel = "2.0"
threadsafety = 1  # threads may share the module, not connections
paramstyle = "pyformat"


class Warning(Exception):  # noqa: A001 (PEP 249 name)
    pass


class Error(Exception):
    pass


class InterfaceError(Error):
    pass


class DatabaseError(Error):
    def __init__(self, message, code=0, name=""):
        super().__init__(message)
        self.code = code
        self.name = name


class DataError(DatabaseError):
    pass


class OperationalError(DatabaseError):
    pass


class IntegrityError(DatabaseError):
    pass


class InternalError(DatabaseError):
    pass


class ProgrammingError(DatabaseError):
    pass


class NotSupportedError(DatabaseError):
    pass


# ClickHouse codes of mistakes in the query itself (PEP 249's ProgrammingError).
_PROGRAMMING = {36, 42, 43, 46, 47, 50, 60, 62, 63, 73, 81, 115, 215}
_DATA = {6, 27, 53, 69, 117, 321}


def _translate(error):
    if isinstance(error, TransportError):
        return OperationalError(str(error), 0, error.name)
    cls = ProgrammingError if error.code in _PROGRAMMING else (
        DataError if error.code in _DATA else DatabaseError)
    return cls(str(error), error.code, error.name)


def _describe(name, type_name):
    """PEP 249's 7-item column description: name, type_code (the ClickHouse type name),
    display_size, internal_size, precision, scale (of a Decimal), null_ok (Nullable)."""
    precision = scale = None
    m = _DECIMAL_TYPE.search(type_name)
    if m:
        precision, scale = int(m.group(1)), int(m.group(2))
    return (name, type_name, None, None, precision, scale, type_name.startswith("Nullable("))


_DECIMAL_TYPE = re.compile(r"Decimal\((\d+),\s*(\d+)\)")


class Cursor:
    """Runs queries of one Connection and hands their rows out as they arrive."""

    def __init__(self, connection):
        self.connection = connection
        self.arraysize = 1
        self.description = None
        self.rowcount = -1
        self._rows = []
        self._results = None
        self._stream = None
        self._decoder = None
        self._closed = False

    def _check(self):
        if self._closed or self.connection._client is None:
            raise InterfaceError("the cursor or its connection is closed")

    def execute(self, operation, parameters=None):
        self._check()
        self._finish_previous()
        try:
            sql, settings = pyformat_to_server(operation, parameters)
        except (KeyError, TypeError, ValueError) as e:
            raise ProgrammingError("cannot bind the parameters: %s" % e) from None
        client = self.connection._client
        self._stream = client.stream(sql, format="RowBinaryWithNamesAndTypes", settings=settings)
        self._results = iter(self._stream)
        self._decoder = RowBinaryDecoder()
        self._rows = []
        self.rowcount = -1
        self.description = None
        # Reads until the column header arrived (or the query ended): description is known after
        # execute() returns, as PEP 249 asks.
        while self._decoder.names is None and self._pull():
            pass
        if self._decoder.names is not None and self._decoder.names:
            self.description = tuple(_describe(n, t) for n, t in
                                     zip(self._decoder.names, self._decoder.types))
        return self

    def executemany(self, operation, seq_of_parameters):
        for parameters in seq_of_parameters:
            self.execute(operation, parameters)

    def _pull(self):
        """Reads one more Result into the row buffer; False once the query ended."""
        if self._results is None:
            return False
        try:
            result = next(self._results)
        except StopIteration:
            self._results = None
            return False
        except GraniteError as e:
            self._results = None
            raise _translate(e) from None
        if result.HasField("exception") and result.exception.code:
            self._results = None
            e = result.exception
            raise _translate(GraniteError(e.code, e.name, e.display_text))
        if result.output:
            try:
                self._rows.extend(self._decoder.feed(result.output))
            except UnsupportedType as e:
                self._results = None
                raise NotSupportedError(str(e)) from None
        if result.HasField("stats") and result.stats.rows:
            self.rowcount = result.stats.rows
        elif result.HasField("progress") and result.progress.written_rows:
            self.rowcount = result.progress.written_rows
        return True

    def _finish_previous(self):
        if self._stream is not None and self._results is not None:
            self._stream.cancel()
            for _ in self._results:
                pass
        self._stream = self._results = None

    def fetchone(self):
        self._check()
        while not self._rows and self._pull():
            pass
        return self._rows.pop(0) if self._rows else None

    def fetchmany(self, size=None):
        size = self.arraysize if size is None else size
        out = []
        while len(out) < size:
            row = self.fetchone()
            if row is None:
                break
            out.append(row)
        return out

    def fetchall(self):
        self._check()
        while self._pull():
            pass
        out, self._rows = self._rows, []
        return out

    def __iter__(self):
        while True:
            row = self.fetchone()
            if row is None:
                return
            yield row

    def close(self):
        if not self._closed:
            self._finish_previous()
            self._closed = True

    def setinputsizes(self, sizes):
        pass

    def setoutputsize(self, size, column=None):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Connection:
    """One connection (a gRPC channel and a session, so SET carries over between queries)."""

    def __init__(self, client):
        self._client = client

    def cursor(self):
        if self._client is None:
            raise InterfaceError("the connection is closed")
        return Cursor(self)

    def commit(self):
        pass  # every statement takes effect when it succeeds

    def rollback(self):
        raise NotSupportedError("granite has no transactions")

    def close(self):
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def connect(host="127.0.0.1", port=9100, database="", user="default", password="",
            settings=None, timeout=None):
    """Opens a Connection to a granite coordinator (or a ClickHouse gRPC server)."""
    import uuid
    client = Client(host, port, user_name=user, password=password, database=database,
                    session_id=str(uuid.uuid4()), settings=settings, timeout=timeout)
    return Connection(client)
