"""Decodes ClickHouse's RowBinaryWithNamesAndTypes from a growing buffer, whole rows at a time,
into Python values (the DB-API cursor's rows, dbapi.py). Standard library only.

The header is the column count (varint), the names, then the type names. Values by type:
(U)Int8..64, Float32/64 and Bool as ints / floats / bools; String as str (bytes when not UTF-8);
FixedString(N) as bytes; Date / Date32 as datetime.date; DateTime and DateTime64(p) as naive
datetime.datetime in UTC; Decimal(P, S) as decimal.Decimal; Nullable(T) as None or T's value
(a byte, 1 = NULL, then the value only when not NULL); Nothing as None; Array(T) as a list of
T's values (a varint count, then the elements).

Thread-safety: a RowBinaryDecoder belongs to one thread.
"""

import datetime
import decimal
import re
import struct

_FIXED = {"UInt8": "<B", "UInt16": "<H", "UInt32": "<I", "UInt64": "<Q", "Int8": "<b",
          "Int16": "<h", "Int32": "<i", "Int64": "<q", "Float32": "<f", "Float64": "<d"}
_EPOCH_DATE = datetime.date(1970, 1, 1)
_EPOCH = datetime.datetime(1970, 1, 1)
_DECIMAL = re.compile(r"^Decimal(?:\((\d+),\s*(\d+)\)|(32|64|128|256)\((\d+)\))$")
_DATETIME64 = re.compile(r"^DateTime64\((\d+)(?:,\s*'[^']*')?\)$")
_FIXED_STRING = re.compile(r"^FixedString\((\d+)\)$")
_EXACT = decimal.Context(prec=100)  # Decimal256 has 76 digits; the default context rounds to 28


class UnsupportedType(ValueError):
    """A column type this decoder does not know."""


class Incomplete(Exception):
    """The buffer ends inside a row."""


class _Buffer:
    def __init__(self):
        self.data = bytearray()
        self.pos = 0

    def take(self, n):
        end = self.pos + n
        if end > len(self.data):
            raise Incomplete()
        start, self.pos = self.pos, end
        return start

    def varint(self):
        value = shift = 0
        while True:
            if self.pos >= len(self.data):
                raise Incomplete()
            byte = self.data[self.pos]
            self.pos += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7

    def raw(self, n):
        start = self.take(n)
        return bytes(self.data[start:start + n])


def _fixed(fmt, convert=None):
    size = struct.calcsize(fmt)
    unpack = struct.Struct(fmt).unpack_from

    def read(buf):
        (value,) = unpack(buf.data, buf.take(size))
        return convert(value) if convert else value
    return read


def _string(buf):
    raw = buf.raw(buf.varint())
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw


def reader_for(type_name):
    """Returns a function reading one value of `type_name` from a _Buffer."""
    if type_name.startswith("Nullable(") and type_name.endswith(")"):
        inner = reader_for(type_name[len("Nullable("):-1])

        def nullable(buf):
            return None if buf.raw(1) == b"\x01" else inner(buf)
        return nullable
    if type_name.startswith("Array(") and type_name.endswith(")"):
        element = reader_for(type_name[len("Array("):-1])

        def array(buf):
            return [element(buf) for _ in range(buf.varint())]
        return array
    if type_name in _FIXED:
        return _fixed(_FIXED[type_name])
    if type_name == "Bool":
        return _fixed("<B", bool)
    if type_name == "String":
        return _string
    if type_name == "Nothing":
        return _fixed("<B", lambda _: None)
    if type_name == "Date":
        return _fixed("<H", lambda d: _EPOCH_DATE + datetime.timedelta(days=d))
    if type_name == "Date32":
        return _fixed("<i", lambda d: _EPOCH_DATE + datetime.timedelta(days=d))
    if type_name == "DateTime" or type_name.startswith("DateTime('"):
        return _fixed("<I", lambda s: _EPOCH + datetime.timedelta(seconds=s))
    m = _DATETIME64.match(type_name)
    if m:
        scale = int(m.group(1))
        return _fixed("<q", lambda t: _EPOCH + datetime.timedelta(
            microseconds=t * 10 ** (6 - scale) if scale <= 6 else t // 10 ** (scale - 6)))
    m = _FIXED_STRING.match(type_name)
    if m:
        width = int(m.group(1))
        return lambda buf: buf.raw(width)
    m = _DECIMAL.match(type_name)
    if m:
        if m.group(1):
            precision, scale = int(m.group(1)), int(m.group(2))
        else:
            precision = {"32": 9, "64": 18, "128": 38, "256": 76}[m.group(3)]
            scale = int(m.group(4))
        width = 4 if precision <= 9 else 8 if precision <= 18 else 16 if precision <= 38 else 32

        def read_decimal(buf):
            unscaled = int.from_bytes(buf.raw(width), "little", signed=True)
            return decimal.Decimal(unscaled).scaleb(-scale, _EXACT)
        return read_decimal
    raise UnsupportedType("cannot decode the type %s from RowBinary" % type_name)


class RowBinaryDecoder:
    """Decodes RowBinaryWithNamesAndTypes fed in pieces. names / types: None until the header
    arrived."""

    def __init__(self):
        self._buf = _Buffer()
        self.names = None
        self.types = None
        self._readers = None

    def feed(self, data):
        """Adds bytes; returns the rows now complete, as tuples."""
        buf = self._buf
        buf.data += data
        rows = []
        while True:
            start = buf.pos
            try:
                if self.names is None:
                    count = buf.varint()
                    names = [_string(buf) for _ in range(count)]
                    types = [_string(buf) for _ in range(count)]
                    self._readers = [reader_for(t) for t in types]
                    self.names, self.types = names, types
                    continue
                if buf.pos >= len(buf.data):
                    break
                rows.append(tuple(read(buf) for read in self._readers))
            except Incomplete:
                buf.pos = start
                break
        del buf.data[:buf.pos]
        buf.pos = 0
        return rows
