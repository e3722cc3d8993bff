"""Decodes ClickHouse's Native format (as its HTTP interface and gRPC output send it) into numpy
columns, block by block as the bytes arrive. query_df() and query_arrow() (frames.py) build on it.

A block is: the column count and row count (varints), then per column its name, its type name
and its data. Data by type:
  (U)Int8..64, Float32/64   little-endian fixed width          -> numpy array of that dtype
  Date / Date32             uint16 / int32 days since 1970     -> numpy array (days)
  DateTime[('tz')]          uint32 seconds since the epoch     -> numpy array (seconds)
  DateTime64(p[, 'tz'])     int64 ticks of 10^-p s             -> numpy array (ticks)
  Decimal(P, S)             int32/64/128/256 by P: value*10^S  -> numpy int array, or a list of
                                                                  Python ints when 16/32 bytes
  String                    varint length + bytes per row      -> list of str (bytes if not UTF-8)
  FixedString(N)            N bytes per row                    -> list of bytes
  Nullable(T)               a byte per row (1 = NULL), then T for every row
  Nothing                   a byte per row
  Array(T)                  UInt64 end offsets per row, then   -> list of Python lists of T's
                            the elements as a column of T        values (raw numbers as above;
                                                                  None for a NULL element)
numpy is needed (pip install granite_client[pandas] or [arrow]).

Thread-safety: a NativeDecoder belongs to one thread.
"""

import re

try:
    import numpy as np
except ImportError:  # only query_df / query_arrow need it
    np = None

_FIXED = {"UInt8": "<u1", "UInt16": "<u2", "UInt32": "<u4", "UInt64": "<u8", "Int8": "<i1",
          "Int16": "<i2", "Int32": "<i4", "Int64": "<i8", "Float32": "<f4", "Float64": "<f8",
          "Bool": "<u1", "Date": "<u2", "Date32": "<i4", "Nothing": "<u1"}
_DECIMAL = re.compile(r"^Decimal(?:\((\d+),\s*(\d+)\)|(32|64|128|256)\((\d+)\))$")
_DATETIME = re.compile(r"^DateTime(?:\('([^']*)'\))?$")
_DATETIME64 = re.compile(r"^DateTime64\((\d+)(?:,\s*'([^']*)')?\)$")
_FIXED_STRING = re.compile(r"^FixedString\((\d+)\)$")


class NativeFormatError(ValueError):
    """The bytes are not a Native stream this decoder understands (a type it does not know)."""


class ColumnType:
    """A parsed ClickHouse type name: base kind, Nullable flag and parameters."""

    def __init__(self, name):
        self.name = name
        self.nullable = name.startswith("Nullable(") and name.endswith(")")
        inner = name[len("Nullable("):-1] if self.nullable else name
        if inner.startswith("LowCardinality("):
            raise NotSupportedType(name)
        self.inner = inner
        self.precision = self.scale = None
        self.timezone = None
        self.width = None  # bytes per value of the fixed-width kinds
        self.element = None  # Array(T): T's ColumnType
        if inner.startswith("Array(") and inner.endswith(")") and not self.nullable:
            self.kind, self.dtype = "Array", None
            self.element = ColumnType(inner[len("Array("):-1])
            return
        if inner in _FIXED:
            self.kind, self.dtype = inner, _FIXED[inner]
            self.width = int(self.dtype[2:])
            return
        if inner == "String":
            self.kind, self.dtype = "String", None
            return
        m = _FIXED_STRING.match(inner)
        if m:
            self.kind, self.dtype, self.width = "FixedString", None, int(m.group(1))
            return
        m = _DATETIME.match(inner)
        if m:
            self.kind, self.dtype, self.width, self.timezone = "DateTime", "<u4", 4, m.group(1)
            return
        m = _DATETIME64.match(inner)
        if m:
            self.kind, self.dtype, self.width = "DateTime64", "<i8", 8
            self.scale, self.timezone = int(m.group(1)), m.group(2)
            return
        m = _DECIMAL.match(inner)
        if m:
            if m.group(1):
                self.precision, self.scale = int(m.group(1)), int(m.group(2))
            else:
                bits = int(m.group(3))
                self.precision = {32: 9, 64: 18, 128: 38, 256: 76}[bits]
                self.scale = int(m.group(4))
            self.kind = "Decimal"
            self.width = 4 if self.precision <= 9 else 8 if self.precision <= 18 else \
                16 if self.precision <= 38 else 32
            self.dtype = {4: "<i4", 8: "<i8"}.get(self.width)
            return
        raise NotSupportedType(name)


class NotSupportedType(NativeFormatError):
    def __init__(self, name):
        super().__init__("cannot decode the type %s from Native" % name)


class Column:
    """One decoded column of one block: values (numpy array or list) and nulls (numpy bool array,
    True = NULL) or None."""

    __slots__ = ("values", "nulls")

    def __init__(self, values, nulls):
        self.values = values
        self.nulls = nulls


class _Incomplete(Exception):
    pass


class _Reader:
    def __init__(self, buffer, pos):
        self.buffer = buffer
        self.pos = pos

    def take(self, n):
        end = self.pos + n
        if end > len(self.buffer):
            raise _Incomplete()
        start, self.pos = self.pos, end
        return start

    def varint(self):
        value = shift = 0
        buffer = self.buffer
        while True:
            if self.pos >= len(buffer):
                raise _Incomplete()
            byte = buffer[self.pos]
            self.pos += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7

    def string(self):
        n = self.varint()
        start = self.take(n)
        return bytes(self.buffer[start:start + n])


def _strings(reader, rows):
    buffer = reader.buffer
    out = [None] * rows
    for i in range(rows):
        n = reader.varint()
        start = reader.take(n)
        raw = bytes(buffer[start:start + n])
        try:
            out[i] = raw.decode("utf-8")
        except UnicodeDecodeError:
            out[i] = raw
    return out


def _arrays(reader, ctype, rows):
    start = reader.take(rows * 8)
    ends = np.frombuffer(reader.buffer, dtype="<u8", count=rows, offset=start).tolist()
    total = ends[-1] if rows else 0
    element = ctype.element
    nulls = None
    if element.nullable:
        start = reader.take(total)
        nulls = bytes(reader.buffer[start:start + total])
    values = _values(reader, element, total)
    values = values.tolist() if hasattr(values, "tolist") else list(values)
    if nulls is not None:
        values = [None if null else v for v, null in zip(values, nulls)]
    out, begin = [], 0
    for end in ends:
        out.append(values[begin:end])
        begin = end
    return out


def _values(reader, ctype, rows):
    if ctype.kind == "Array":
        return _arrays(reader, ctype, rows)
    if ctype.kind == "String":
        return _strings(reader, rows)
    if ctype.kind == "FixedString":
        start = reader.take(rows * ctype.width)
        w = ctype.width
        return [bytes(reader.buffer[start + i * w:start + (i + 1) * w]) for i in range(rows)]
    start = reader.take(rows * ctype.width)
    if ctype.dtype is not None:
        return np.frombuffer(reader.buffer, dtype=ctype.dtype, count=rows, offset=start).copy()
    # Decimal128 / Decimal256: little-endian two's complement, as Python ints.
    w = ctype.width
    data = bytes(reader.buffer[start:start + rows * w])
    return [int.from_bytes(data[i * w:(i + 1) * w], "little", signed=True) for i in range(rows)]


class NativeDecoder:
    """Decodes Native bytes fed in pieces; each feed() returns the blocks now complete.

    names / types: of the first block (None until one arrived). Each block is a list of Column,
    one per column, with its row count in `rows`.
    """

    def __init__(self):
        if np is None:
            raise ImportError("decoding Native needs numpy: pip install granite_client[pandas]")
        self.buffer = bytearray()
        self.names = None
        self.types = None

    def feed(self, data):
        self.buffer += data
        blocks = []
        pos = 0
        while pos < len(self.buffer):
            reader = _Reader(self.buffer, pos)
            try:
                block = self._block(reader)
            except _Incomplete:
                break
            blocks.append(block)
            pos = reader.pos
        del self.buffer[:pos]
        return blocks

    def finish(self):
        """REQUIRES: the stream ended. Raises NativeFormatError when bytes are left over."""
        if self.buffer:
            raise NativeFormatError("the Native stream ends inside a block (%d bytes left)"
                                    % len(self.buffer))

    def _block(self, reader):
        columns = reader.varint()
        rows = reader.varint()
        names, types, out = [], [], []
        for _ in range(columns):
            names.append(reader.string().decode("utf-8"))
            ctype = ColumnType(reader.string().decode("utf-8"))
            types.append(ctype)
            nulls = None
            if ctype.nullable:
                start = reader.take(rows)
                nulls = np.frombuffer(reader.buffer, dtype=np.bool_, count=rows,
                                      offset=start).copy()
            out.append(Column(_values(reader, ctype, rows), nulls))
        if self.names is None:
            self.names, self.types = names, types
        elif names != self.names or [t.name for t in types] != [t.name for t in self.types]:
            raise NativeFormatError("a Native block's columns differ from the first block's")
        return _Block(rows, out)


class _Block:
    __slots__ = ("rows", "columns")

    def __init__(self, rows, columns):
        self.rows = rows
        self.columns = columns
