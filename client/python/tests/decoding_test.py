#!/usr/bin/env python3
"""Tests of the granite_client package's binary decoders (no server needed): RowBinaryWithNames
AndTypes into Python values (row_binary.py, the DB-API's rows) and Native into numpy columns
(native.py) and then pandas DataFrames and Arrow tables (frames.py), for every type granite has
(integers, floats, String, Date, DateTime, Decimal, Nullable) fed in pieces that split rows and
blocks anywhere. The Native and pandas / Arrow parts skip without numpy, pandas or pyarrow
(scripts/make-venv.sh installs them)."""

import datetime
import decimal
import os
import struct
import sys
import unittest

PKG_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(os.path.dirname(PKG_ROOT))
sys.path.insert(0, PKG_ROOT)
sys.path.insert(0, os.path.join(REPO, "tests", "harness"))
import testmain  # noqa: E402
from granite_client.row_binary import RowBinaryDecoder, UnsupportedType  # noqa: E402

D = decimal.Decimal
# (name, ClickHouse type, values of 3 rows, encoder of one non-NULL value)
_INT = {"Int8": "<b", "UInt16": "<H", "Int32": "<i", "UInt64": "<Q", "Int64": "<q",
        "Float32": "<f", "Float64": "<d"}


def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def string(s):
    data = s if isinstance(s, bytes) else s.encode()
    return varint(len(data)) + data


def encode(type_name, value):
    """The binary form of one non-NULL value (the same in RowBinary and Native)."""
    if type_name in _INT:
        return struct.pack(_INT[type_name], value)
    if type_name == "String":
        return string(value)
    if type_name == "Date":
        return struct.pack("<H", (value - datetime.date(1970, 1, 1)).days)
    if type_name == "DateTime":
        return struct.pack("<I", int((value - datetime.datetime(1970, 1, 1)).total_seconds()))
    scale = int(type_name.split(",")[1].strip(" )"))
    precision = int(type_name.split("(")[1].split(",")[0])
    width = 4 if precision <= 9 else 8 if precision <= 18 else 16
    unscaled = int(value.scaleb(scale, decimal.Context(prec=100)))
    return unscaled.to_bytes(width, "little", signed=True)


COLUMNS = [
    ("i8", "Int8", [-128, 0, 127]),
    ("u16", "UInt16", [0, 1, 65535]),
    ("u64", "UInt64", [0, 1, (1 << 64) - 1]),
    ("i64", "Int64", [-(1 << 63), 0, (1 << 63) - 1]),
    ("f32", "Float32", [0.5, -1.25, 3.0]),
    ("f64", "Float64", [1e100, -0.0, 2.5]),
    ("s", "String", ["", "ü tab\there", "x" * 300]),
    ("d", "Date", [datetime.date(1970, 1, 1), datetime.date(2024, 2, 29),
                   datetime.date(2149, 6, 6)]),
    ("dt", "DateTime", [datetime.datetime(1970, 1, 1), datetime.datetime(2024, 1, 2, 3, 4, 5),
                        datetime.datetime(2106, 2, 7, 6, 28, 15)]),
    ("d9", "Decimal(9, 2)", [D("-1.25"), D("0.00"), D("9999999.99")]),
    ("d18", "Decimal(18, 4)", [D("-3.1416"), D("0.0000"), D("99999999999999.9999")]),
    ("d38", "Decimal(38, 10)", [D("12345678901234567890.0123456789"), D("-1.0000000000"),
                                D("0E-10")]),
    ("ni", "Nullable(Int32)", [None, 7, -7]),
    ("ns", "Nullable(String)", ["y", None, ""]),
    ("nd", "Nullable(Date)", [None, datetime.date(2000, 3, 4), None]),
    ("nf", "Nullable(Float64)", [0.5, None, None]),
    ("ndec", "Nullable(Decimal(10, 3))", [None, D("-1.500"), D("2.000")]),
]


def inner(type_name):
    return type_name[len("Nullable("):-1] if type_name.startswith("Nullable(") else type_name


def row_binary():
    out = varint(len(COLUMNS)) + b"".join(string(n) for n, _, _ in COLUMNS)
    out += b"".join(string(t) for _, t, _ in COLUMNS)
    for row in range(3):
        for _, type_name, values in COLUMNS:
            value = values[row]
            if type_name.startswith("Nullable("):
                out += b"\x01" if value is None else b"\x00"
            if value is not None:
                out += encode(inner(type_name), value)
    return out


def native_block(rows):
    """One Native block of the given row indexes."""
    out = varint(len(COLUMNS)) + varint(len(rows))
    for name, type_name, values in COLUMNS:
        out += string(name) + string(type_name)
        nullable = type_name.startswith("Nullable(")
        if nullable:
            out += bytes(1 if values[r] is None else 0 for r in rows)
        for r in rows:
            value = values[r]
            if value is None:  # a NULL row still has a value: the type's default
                value = {"String": "", "Date": datetime.date(1970, 1, 1),
                         "Int32": 0, "Float64": 0.0}.get(inner(type_name), D("0"))
            out += encode(inner(type_name), value)
    return out


def pieces(data, size):
    return [data[i:i + size] for i in range(0, len(data), size)]


class RowBinaryTest(unittest.TestCase):
    def test_every_type_in_pieces_of_any_size(self):
        data = row_binary()
        expected = [tuple(values[r] for _, _, values in COLUMNS) for r in range(3)]
        for size in (1, 7, 64, len(data)):
            decoder = RowBinaryDecoder()
            rows = [row for piece in pieces(data, size) for row in decoder.feed(piece)]
            self.assertEqual(rows, expected, "pieces of %d bytes" % size)
            self.assertEqual(decoder.names, [n for n, _, _ in COLUMNS])
            self.assertEqual(decoder.types, [t for _, t, _ in COLUMNS])

    def test_unknown_type(self):
        with self.assertRaises(UnsupportedType):
            RowBinaryDecoder().feed(varint(1) + string("a") + string("Map(UInt8, UInt8)"))


class NativeFramesTest(unittest.TestCase):
    def setUp(self):
        try:
            import numpy  # noqa: F401
        except ImportError:
            self.skipTest("numpy is not installed (pip install granite_client[pandas])")

    def collected(self, size):
        from granite_client.frames import Collected
        from granite_client.native import NativeDecoder
        data = native_block([0, 1]) + native_block([2])
        decoder = NativeDecoder()
        collected = None
        for piece in pieces(data, size):
            for block in decoder.feed(piece):
                collected = collected or Collected(decoder.names, decoder.types)
                collected.add(block)
        decoder.finish()
        return collected

    def test_native_blocks_in_pieces(self):
        for size in (1, 13, 100000):
            collected = self.collected(size)
            self.assertEqual(collected.rows, 3)
            self.assertEqual([len(p) for p in collected.pieces], [2] * len(COLUMNS))

    def test_truncated_stream_is_an_error(self):
        from granite_client.native import NativeDecoder, NativeFormatError
        decoder = NativeDecoder()
        self.assertEqual(decoder.feed(native_block([0])[:-1]), [])
        with self.assertRaises(NativeFormatError):
            decoder.finish()

    def test_pandas(self):
        try:
            import pandas as pd
        except ImportError:
            self.skipTest("pandas is not installed (pip install granite_client[pandas])")
        from granite_client.frames import to_pandas
        frame = to_pandas(self.collected(50))
        self.assertEqual(list(frame.columns), [n for n, _, _ in COLUMNS])
        dtypes = {n: str(t) for n, t in frame.dtypes.items()}
        self.assertEqual(dtypes["i8"], "int8")
        self.assertEqual(dtypes["u64"], "uint64")
        self.assertEqual(dtypes["f32"], "float32")
        self.assertEqual(dtypes["ni"], "Int32")
        self.assertEqual(dtypes["nf"], "Float64")
        self.assertTrue(dtypes["d"].startswith("datetime64"))
        for name, type_name, values in COLUMNS:
            got = frame[name].tolist()
            for value, cell in zip(values, got):
                if value is None:
                    self.assertTrue(pd.isna(cell), (name, cell))
                elif isinstance(value, (datetime.date, datetime.datetime)):
                    self.assertEqual(pd.Timestamp(cell), pd.Timestamp(value), name)
                else:
                    self.assertEqual(cell, value, name)
                    if isinstance(value, D):
                        self.assertEqual(str(cell), str(value), name)  # scale kept

    def test_arrow(self):
        try:
            import pyarrow as pa
        except ImportError:
            self.skipTest("pyarrow is not installed (pip install granite_client[arrow])")
        from granite_client.frames import to_arrow
        table = to_arrow(self.collected(50))
        self.assertEqual(table.schema.field("u64").type, pa.uint64())
        self.assertEqual(table.schema.field("d").type, pa.date32())
        self.assertEqual(table.schema.field("dt").type, pa.timestamp("s"))
        self.assertEqual(table.schema.field("d38").type, pa.decimal128(38, 10))
        self.assertEqual(table.schema.field("ns").type, pa.string())
        self.assertEqual(table.to_pydict(),
                         {name: values for name, _, values in COLUMNS})

    def test_empty_result_keeps_declared_columns(self):
        try:
            import pandas  # noqa: F401
            import pyarrow  # noqa: F401
        except ImportError:
            self.skipTest("pandas or pyarrow is not installed")
        from granite_client.frames import Collected, to_arrow, to_pandas
        from granite_client.native import ColumnType
        collected = Collected(["a", "b"], [ColumnType("UInt8"), ColumnType("Nullable(String)")])
        self.assertEqual(list(to_pandas(collected).columns), ["a", "b"])
        self.assertEqual(to_arrow(collected).num_rows, 0)


class ArrayDecodingTest(unittest.TestCase):
    """Array(UInt32) and Array(Nullable(String)) rows [1, 2] / ['a', NULL] and [] / [], in
    ClickHouse's RowBinary (a count per row) and Native (offsets, then the elements) layouts."""

    ROWS = [([1, 2], ["a", None]), ([], [])]

    def test_row_binary(self):
        data = varint(2) + string("a") + string("s") + string("Array(UInt32)")
        data += string("Array(Nullable(String))")
        data += varint(2) + struct.pack("<II", 1, 2) + varint(2) + b"\x00" + string("a") + b"\x01"
        data += varint(0) + varint(0)
        decoder = RowBinaryDecoder()
        rows = []
        for i in range(len(data)):  # one byte at a time: rows split anywhere
            rows += decoder.feed(data[i:i + 1])
        self.assertEqual(rows, self.ROWS)

    def test_native(self):
        try:
            import numpy  # noqa: F401
        except ImportError:
            self.skipTest("numpy is not installed")
        from granite_client.native import NativeDecoder
        data = varint(2) + varint(2)
        data += string("a") + string("Array(UInt32)") + struct.pack("<QQ", 2, 2)
        data += struct.pack("<II", 1, 2)
        data += string("s") + string("Array(Nullable(String))") + struct.pack("<QQ", 2, 2)
        data += b"\x00\x01" + string("a") + string("")
        decoder = NativeDecoder()
        blocks = decoder.feed(data)
        decoder.finish()
        self.assertEqual(len(blocks), 1)
        self.assertEqual([c.values for c in blocks[0].columns],
                         [[[1, 2], []], [["a", None], []]])


if __name__ == "__main__":
    testmain.main([RowBinaryTest, NativeFramesTest, ArrayDecodingTest])
