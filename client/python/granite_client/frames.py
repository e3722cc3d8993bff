"""Builds pandas DataFrames and Arrow tables from Native blocks (native.py): Client.query_df()
and Client.query_arrow(). pandas and pyarrow are optional extras
(pip install granite_client[pandas] / [arrow]); each is imported only when asked for.

Column types, by ClickHouse type:
  ClickHouse           pandas                                  Arrow
  (U)Int8..64          numpy int dtype; Nullable: Int64 & co.  int8..uint64
  Float32/64           numpy float dtype; Nullable: Float64    float32/64
  String               object (str; bytes if not UTF-8)        string (binary if not UTF-8)
  FixedString(N)       object (bytes)                          binary(N)
  Date / Date32        datetime64[s]                           date32
  DateTime             datetime64[s] (naive, UTC)              timestamp[s] (with the type's tz)
  DateTime64(p)        datetime64[ns] (naive, UTC)             timestamp[ms/us/ns]
  Decimal(P, S)        object (decimal.Decimal)                decimal128(P, S) / decimal256
  Nothing              object (None)                           null
  Array(T)             object (list; T's raw values)           list<...> (inferred)
A NULL is None in object columns, NaT in dates, <NA> in pandas' nullable integers and floats.
"""

import decimal

from .native import np

_ARROW_INTS = {"UInt8": "uint8", "UInt16": "uint16", "UInt32": "uint32", "UInt64": "uint64",
               "Int8": "int8", "Int16": "int16", "Int32": "int32", "Int64": "int64",
               "Float32": "float32", "Float64": "float64", "Bool": "bool_"}


class Collected:
    """The columns of a whole result: names, ColumnType per column, and per column the list of
    its block pieces (native.Column)."""

    def __init__(self, names, types):
        self.names = names
        self.types = types
        self.pieces = [[] for _ in names]
        self.rows = 0

    def add(self, block):
        self.rows += block.rows
        for pieces, column in zip(self.pieces, block.columns):
            pieces.append(column)


def _concat(ctype, pieces):
    """Returns (values, nulls) of a whole column: a numpy array or a list, and a bool array or
    None."""
    if ctype.dtype is not None:
        dtype = np.dtype(ctype.dtype)
        values = (np.concatenate([p.values for p in pieces]) if pieces
                  else np.empty(0, dtype=dtype))
    else:
        values = [v for p in pieces for v in p.values]
    nulls = None
    if ctype.nullable:
        nulls = (np.concatenate([p.nulls for p in pieces]) if pieces
                 else np.empty(0, dtype=np.bool_))
    return values, nulls


_EXACT = decimal.Context(prec=100)  # Decimal256 has 76 digits; the default context rounds to 28


def _decimals(ctype, values, nulls):
    scale = -ctype.scale
    out = [decimal.Decimal(int(v)).scaleb(scale, _EXACT) for v in values]
    if nulls is not None:
        out = [None if null else v for v, null in zip(out, nulls)]
    return out


def _with_none(values, nulls):
    values = list(values)
    if nulls is not None:
        values = [None if null else v for v, null in zip(values, nulls)]
    return values


def _datetimes(ctype, values):
    """numpy datetime64 values of a Date / DateTime / DateTime64 column."""
    if ctype.kind in ("Date", "Date32"):
        return values.astype("int64").astype("datetime64[D]").astype("datetime64[s]")
    if ctype.kind == "DateTime":
        return values.astype("int64").astype("datetime64[s]")
    # DateTime64(p): ticks of 10^-p seconds, as nanoseconds.
    scale = ctype.scale
    ticks = values.astype("int64")
    ns = ticks * 10 ** (9 - scale) if scale <= 9 else ticks // 10 ** (scale - 9)
    return ns.astype("datetime64[ns]")


def to_pandas(collected):
    """Returns a pandas DataFrame of `collected` (see the module comment for the types)."""
    import pandas as pd
    data = {}
    for name, ctype, pieces in zip(collected.names, collected.types, collected.pieces):
        values, nulls = _concat(ctype, pieces)
        if ctype.kind == "Decimal":
            series = pd.Series(_decimals(ctype, values, nulls), dtype=object)
        elif ctype.kind in ("Date", "Date32", "DateTime", "DateTime64"):
            stamps = _datetimes(ctype, values)
            if nulls is not None:
                stamps[nulls] = np.datetime64("NaT")
            series = pd.Series(stamps)
        elif ctype.kind in ("String", "FixedString", "Nothing", "Array"):
            series = pd.Series([None] * len(values) if ctype.kind == "Nothing"
                               else _with_none(values, nulls), dtype=object)
        elif nulls is not None:
            # pandas' masked dtypes are named as ClickHouse's types (Int32, UInt64, Float64).
            masked = pd.array(values, dtype="boolean" if ctype.kind == "Bool" else ctype.kind)
            masked[nulls] = pd.NA
            series = pd.Series(masked)
        else:
            series = pd.Series(values)
        data[name] = series
    return pd.DataFrame(data, columns=collected.names)


def to_arrow(collected):
    """Returns a pyarrow Table of `collected` (see the module comment for the types)."""
    import pyarrow as pa
    arrays = []
    for ctype, pieces in zip(collected.types, collected.pieces):
        values, nulls = _concat(ctype, pieces)
        kind = ctype.kind
        if kind in _ARROW_INTS:
            array = pa.array(values.astype(bool) if kind == "Bool" else values,
                             type=getattr(pa, _ARROW_INTS[kind])(), mask=nulls)
        elif kind in ("Date", "Date32"):
            array = pa.array(values.astype("int32"), type=pa.date32(), mask=nulls)
        elif kind == "DateTime":
            array = pa.array(values.astype("int64"), type=pa.timestamp("s", ctype.timezone),
                             mask=nulls)
        elif kind == "DateTime64":
            unit = "s" if ctype.scale == 0 else "ms" if ctype.scale <= 3 else \
                "us" if ctype.scale <= 6 else "ns"
            factor = {"s": 0, "ms": 3, "us": 6, "ns": 9}[unit]
            ticks = values.astype("int64")
            ticks = ticks * 10 ** (factor - ctype.scale) if ctype.scale <= factor else \
                ticks // 10 ** (ctype.scale - factor)
            array = pa.array(ticks, type=pa.timestamp(unit, ctype.timezone), mask=nulls)
        elif kind == "Decimal":
            type_ = (pa.decimal128 if ctype.precision <= 38 else pa.decimal256)(
                ctype.precision, ctype.scale)
            array = pa.array(_decimals(ctype, values, nulls), type=type_)
        elif kind == "String":
            items = _with_none(values, nulls)
            binary = any(isinstance(v, bytes) for v in items)
            array = pa.array(items, type=pa.binary() if binary else pa.string())
        elif kind == "FixedString":
            array = pa.array(_with_none(values, nulls), type=pa.binary(ctype.width))
        elif kind == "Array":
            array = pa.array(values)  # a list type inferred from the elements
        else:  # Nothing
            array = pa.nulls(len(values))
        arrays.append(array)
    return pa.Table.from_arrays(arrays, names=list(collected.names))
