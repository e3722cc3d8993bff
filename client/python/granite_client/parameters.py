"""Server-side query parameters, as ClickHouse's clients send them.

A query names a parameter {name:Type} in its text; its value travels apart, as the setting
param_<name> holding the value's text in TabSeparated form (the server parses it as Type). Values
are therefore never spliced into the query text, so no quoting can go wrong.

- param_settings({"x": 5}) -> {"param_x": "5"}, for Client.query(..., parameters=...).
- pyformat_to_server(sql, params) turns PEP 249's pyformat placeholders (%(name)s with a mapping,
  %s with a sequence; %% is a literal %) into {name:Type} placeholders, the type inferred from the
  Python value (infer_type), and returns the settings that carry the values; None becomes the
  keyword NULL (it carries no data, and its type comes from its context). The DB-API cursor
  uses it.
"""

import datetime
import decimal
import re

_TSV_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\0": "\\0",
                "\b": "\\b", "\f": "\\f"}
_TSV_SPECIAL = re.compile(r"[\\\t\n\r\0\b\f]")
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1


def _literal(value):
    """The SQL literal of `value` inside an Array parameter's text."""
    if value is None:
        return "NULL"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_literal(v) for v in value) + "]"
    text = value_text(value)
    if isinstance(value, (str, bytes, bytearray, datetime.date)):
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return text


def value_text(value):
    """Returns the text of `value` as the server parses a param_<name> setting (TabSeparated
    field form): NULL is \\N, strings are escaped as in TabSeparated, a datetime is
    'YYYY-MM-DD hh:mm:ss[.ffffff]', a sequence is an array literal."""
    if value is None:
        return "\\N"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, decimal.Decimal):
        return format(value, "f")  # 1E+3 as 1000: the server reads plain digits
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return value.strftime("%Y-%m-%d %H:%M:%S.%f" if value.microsecond else
                              "%Y-%m-%d %H:%M:%S")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("utf-8", "surrogateescape")
    if isinstance(value, (list, tuple)):
        return _literal(list(value))
    return _TSV_SPECIAL.sub(lambda m: _TSV_ESCAPES[m.group(0)], str(value))


def param_settings(parameters):
    """Returns {"param_<name>": text} for a mapping of parameter names to Python values."""
    return {"param_%s" % name: value_text(value) for name, value in (parameters or {}).items()}


def infer_type(value):
    """Returns the ClickHouse type a DB-API parameter binds as, from its Python type."""
    if value is None:
        return "Nullable(String)"
    if isinstance(value, bool):
        return "UInt8"
    if isinstance(value, int):
        if _INT64_MIN <= value <= _INT64_MAX:
            return "Int64"
        if 0 <= value <= _UINT64_MAX:
            return "UInt64"
        raise ValueError("integer parameter %d does not fit in 64 bits" % value)
    if isinstance(value, float):
        return "Float64"
    if isinstance(value, decimal.Decimal):
        sign, digits, exponent = value.as_tuple()
        if not isinstance(exponent, int):
            raise ValueError("Decimal parameter %s is not a finite number" % value)
        scale = max(0, -exponent)
        precision = max(len(digits) + max(0, exponent), scale + 1)
        if precision > 38:
            raise ValueError("Decimal parameter %s has more than 38 digits" % value)
        return "Decimal(%d, %d)" % (precision, scale)
    if isinstance(value, datetime.datetime):
        return "DateTime64(6)" if value.microsecond else "DateTime"
    if isinstance(value, datetime.date):
        return "Date"
    if isinstance(value, (list, tuple)):
        if not value:
            raise ValueError("cannot infer the type of an empty sequence parameter")
        return "Array(%s)" % infer_type(value[0])
    return "String"


_PYFORMAT = re.compile(r"%(?:\((?P<name>[^)]*)\))?(?P<conv>.)", re.S)


def pyformat_to_server(operation, parameters):
    """Returns (sql, settings): `operation` with each pyformat placeholder replaced by
    {name:Type}, and the param_ settings carrying the values. A sequence's values are named
    p0, p1, ... . Raises ValueError (or TypeError, as the % operator) on a mismatch."""
    if parameters is None:
        return operation, {}
    named = hasattr(parameters, "keys")
    values = {} if named else list(parameters)
    used = {}
    position = 0

    def replace(match):
        nonlocal position
        name, conv = match.group("name"), match.group("conv")
        if conv == "%" and name is None:
            return "%"
        if conv != "s":
            raise ValueError("unsupported placeholder %r: use %%s or %%(name)s" % match.group(0))
        if named:
            if name is None:
                raise TypeError("%s placeholder with a mapping of parameters")
            if name not in parameters:
                raise KeyError(name)
            key, value = name, parameters[name]
        else:
            if name is not None:
                raise TypeError("%(name)s placeholder with a sequence of parameters")
            if position >= len(values):
                raise TypeError("not enough parameters for the query")
            key, value = "p%d" % position, values[position]
            position += 1
        if value is None:
            return "NULL"  # a constant, not data: typed by its context, as a literal NULL is
        used[key] = value
        return "{%s:%s}" % (key, infer_type(value))

    sql = _PYFORMAT.sub(replace, operation)
    if not named and position != len(values):
        raise TypeError("%d parameters for %d placeholders" % (len(values), position))
    return sql, param_settings(used)
