#!/usr/bin/env python3
"""Differential SQL fuzzer: random valid SELECTs on granite and on ClickHouse (chdb), compared.

One table `t` of every column type granite has (UInt8/32/64, Int8/32/64, Float32/64, String, Date,
DateTime) holds --rows rows drawn from a seeded generator, edge values included (0, the minimum and
maximum of each integer type, empty strings, NaN and infinities, the first and last Date and
DateTime). The same rows go to chdb and to three granite configurations:
  w1   `granite local --workers 1`, table t
  w3   `granite local --workers 3`, table t (rows split round-robin)
  w3s  the same cluster, table ts: t's rows sharded by i32 (sharding_key), so shard-local rules fire
Each generated query (filters, expressions and functions, GROUP BY with each aggregate, HAVING,
ORDER BY / LIMIT, DISTINCT; joins, window functions, set operations, scalar / IN / EXISTS
subqueries, CTEs, grouping sets and LIMIT BY) runs on chdb first; a query chdb refuses is
dropped (it was not valid). It then runs on each granite configuration and the results are compared
with bench/clickbench/result_check.py: as multisets unless ORDER BY fixes the order, floats within a
relative 1e-9. A granite error where chdb answered is a mismatch too.

Known intended differences (tests/fuzz_sql/intended_differences.md) are avoided by the generator,
not filtered after the fact, so every mismatch printed is news.

    .venv/bin/python tests/fuzz_sql/fuzz_sql.py --granite build/granite --minutes 5 --seed 1

Prints each mismatch (query, configuration, detail) and a last line "N passed, M failed" (queries
that matched on every configuration vs queries with a mismatch). Exits 1 on a mismatch, 77 when chdb
is missing, 2 when the harness cannot run. --queries N stops after N queries (a fixed-seed smoke
run for ctest).
"""

import argparse
import math
import os
import random
import re
import struct
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO_ROOT, "bench", "clickbench"))
import engines  # noqa: E402  (sets TZ=UTC, puts the harness and client on the path)
import result_check  # noqa: E402

SKIP = 77

COLUMNS = [
    ("u8", "UInt8"), ("u32", "UInt32"), ("u64", "UInt64"), ("i8", "Int8"), ("i32", "Int32"),
    ("i64", "Int64"), ("f32", "Float32"), ("f64", "Float64"), ("s", "String"), ("d", "Date"),
    ("dt", "DateTime"), ("m", "Map(String, UInt32)"), ("tp", "Tuple(a Int32, b String)"),
    ("at", "Array(Tuple(x UInt16, y String))"),
]
MAP_KEYS = ["a", "b", "c", "it's"]
TUPLE_WORDS = ["", "a", "abc", "Abc", "hello world", "zzz", "0", "ünïcödé"]
INT_COLS = ["u8", "u32", "u64", "i8", "i32", "i64"]
SMALL_INT_COLS = ["u8", "u32", "i8", "i32"]  # sums and products cannot leave 64 bits
FLOAT_COLS = ["f32", "f64"]
NUM_COLS = INT_COLS + FLOAT_COLS
RANGES = {"u8": (0, 255), "u32": (0, 2**32 - 1), "u64": (0, 2**64 - 1), "i8": (-128, 127),
          "i32": (-2**31, 2**31 - 1), "i64": (-2**63, 2**63 - 1)}
WORDS = ["", "a", "abc", "Abc", "hello world", "x%y", "under_score", "tab\there", "new\nline",
         "back\\slash", "quote'", "ünïcödé", "zzz", "google", "yandex", "0", "-1", "1.5"]
MAX_DATE = 65535          # 2149-06-06
MAX_DATETIME = 2**32 - 1  # 2106-02-07 06:28:15


def tsv_escape(text):
    return (text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n"))


def sql_string(text):
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def make_rows(rng, n):
    """Returns n rows (tuples in COLUMNS order) of Python values; Date as days, DateTime as s."""
    rows = []
    for i in range(n):
        edge = rng.random() < 0.15
        row = []
        for name, _ in COLUMNS:
            if name in RANGES:
                lo, hi = RANGES[name]
                if edge:
                    v = rng.choice([lo, hi, 0, 1, lo + 1, hi - 1])
                else:
                    v = rng.randint(max(lo, -1000), min(hi, 1000))
            elif name in FLOAT_COLS:
                if edge:
                    v = rng.choice([0.0, 1.0, -1.5, 1e30, float("inf"),
                                    float("-inf"), float("nan")])
                else:
                    v = round(rng.uniform(-1000, 1000), 2)
                if name == "f32" and math.isfinite(v):
                    v = struct.unpack("f", struct.pack("f", v))[0]  # a Float32 value
            elif name == "s":
                v = rng.choice(WORDS) if not edge else rng.choice(["", "a" * 50, "\\N"])
            elif name == "d":
                v = rng.choice([0, MAX_DATE, 1]) if edge else rng.randint(10000, 20000)
            elif name == "m":
                keys = [] if edge else rng.sample(MAP_KEYS, rng.randint(0, len(MAP_KEYS)))
                v = [(k, rng.choice([0, 2**32 - 1]) if edge else rng.randint(0, 1000))
                     for k in keys]
            elif name == "tp":
                v = (rng.choice([-2**31, 2**31 - 1, 0]) if edge else rng.randint(-100, 100),
                     rng.choice(TUPLE_WORDS))
            elif name == "at":
                v = [] if edge else [(rng.randint(0, 65535 if rng.random() < 0.1 else 50),
                                      rng.choice(TUPLE_WORDS))
                                     for _ in range(rng.randint(0, 3))]
            else:  # dt
                v = rng.choice([0, MAX_DATETIME, 1]) if edge else rng.randint(10**9, 1.7 * 10**9)
            row.append(v)
        rows.append(tuple(row))
    return rows


def format_value(name, v):
    if name in FLOAT_COLS:
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if name == "s":
        return tsv_escape(v) if v != "\\N" else "\\\\N"
    if name == "d":
        return time.strftime("%Y-%m-%d", time.gmtime(v * 86400))
    # A map's or tuple's field is its quoted text as it stands (TSV escapes nothing in it).
    if name == "m":
        return "{%s}" % ",".join("%s:%d" % (sql_string(k), n) for k, n in v)
    if name == "tp":
        return "(%d,%s)" % (v[0], sql_string(v[1]))
    if name == "at":
        return "[%s]" % ",".join("(%d,%s)" % (x, sql_string(y)) for x, y in v)
    if name == "dt":
        return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(v))
    return str(v)


def rows_tsv(rows):
    lines = ["\t".join(format_value(c[0], v) for c, v in zip(COLUMNS, row)) for row in rows]
    return ("\n".join(lines) + "\n").encode()


def create_sql(table, order_by="u32"):
    cols = ", ".join("%s %s" % c for c in COLUMNS)
    return "CREATE TABLE %s (%s) ENGINE = MergeTree ORDER BY %s" % (table, cols, order_by)


FLOAT_EXPR = re.compile(r"\b(f32|f64|round|floor|ceil|trunc|toFloat32)\b| / ")


def fold_zero(expr):
    """Adds 0 to a float expression used as a key or a distinct value: -0.0 + 0 is 0.0, and
    granite folds -0.0 into 0.0 where ClickHouse keeps two keys (intended_differences.md)."""
    return "(%s) + 0" % expr if FLOAT_EXPR.search(expr) else expr


class Generator:
    """Random SELECTs over table t. Every query is valid ClickHouse SQL (chdb is the judge)."""

    def __init__(self, rng):
        self.r = rng

    def pick(self, items):
        return self.r.choice(items)

    def int_literal(self, col=None):
        if col and self.r.random() < 0.3:
            lo, hi = RANGES[col]
            return str(self.pick([lo, hi, 0]))
        return str(self.r.randint(-5, 1000))

    def num_expr(self, depth=0):
        r = self.r.random()
        if depth > 1 or r < 0.4:
            return self.pick(NUM_COLS)
        col = self.pick(SMALL_INT_COLS)
        choices = [
            lambda: "%s + %d" % (col, self.r.randint(-3, 100)),
            lambda: "%s * %d" % (col, self.r.randint(-3, 7)),
            lambda: "%s - %s" % (self.pick(SMALL_INT_COLS), self.pick(SMALL_INT_COLS)),
            # A negative divisor only for signed columns (intended_differences.md).
            lambda: "intDiv(%s, %d)" % (col, self.pick([1, 2, 3, 7, 1000] + (
                [-2, -7] if col.startswith("i") else []))),
            lambda: "%s %% %d" % (col, self.pick([2, 3, 7, 10] + ([-3] if col.startswith("i")
                                                                 else []))),
            lambda: "abs(%s)" % self.pick(["i8", "i32", "f64"]),
            lambda: "least(%s, %s)" % (col, self.pick(SMALL_INT_COLS)),
            lambda: "greatest(%s, %d)" % (col, self.r.randint(0, 100)),
            lambda: "length(s)",
            lambda: "toYear(d)", lambda: "toMonth(d)", lambda: "toDayOfWeek(d)",
            lambda: "toYYYYMM(d)", lambda: "toHour(dt)", lambda: "toMinute(dt)",
            lambda: "toDayOfMonth(dt)", lambda: "toUnixTimestamp(dt)",
            lambda: "if(%s, %s, %s)" % (self.predicate(depth + 1), col, self.pick(SMALL_INT_COLS)),
            lambda: "round(f64, %d)" % self.r.randint(0, 2),
            lambda: "floor(f32)",
            lambda: "toInt64(%s)" % col,
            lambda: "position(s, %s)" % sql_string(self.pick(["a", "l", "", "zz"])),
            # 64-bit arithmetic wraps around in both engines.
            lambda: "%s %s %d" % (self.pick(["u64", "i64"]), self.pick(["+", "-", "*"]),
                                  self.pick([1, 2, -1, 1000])),
            lambda: "%s + %s" % (self.pick(INT_COLS), self.pick(INT_COLS)),
            lambda: "%s / %s" % (self.pick(NUM_COLS), self.pick(["2", "3", "-7", "0.5"])),
            lambda: "round(%s, %d)" % (self.pick(FLOAT_COLS), self.r.randint(-2, 3)),
            lambda: "trunc(f64)", lambda: "ceil(f32)",
            lambda: "length(%s)" % self.str_expr(),
            lambda: "multiIf(%s, 1, %s, 2, 3)" % (self.predicate(depth + 1),
                                                  self.predicate(depth + 1)),
            lambda: "toUInt8(%s)" % self.pick(INT_COLS),
            lambda: "toInt16(%s)" % self.pick(INT_COLS),
            lambda: "toFloat32(%s)" % self.pick(NUM_COLS),
            lambda: "toDayOfYear(d)", lambda: "toQuarter(dt)", lambda: "toYYYYMMDD(dt)",
            lambda: "toSecond(dt)",
            # Map and Tuple columns (read through their subcolumns).
            lambda: "m[%s]" % sql_string(self.pick(MAP_KEYS + ["zz"])),
            lambda: "length(m)", lambda: "arraySum(mapValues(m))", lambda: "tp.a",
            lambda: "tupleElement(tp, 'a') + %d" % self.r.randint(-3, 3),
            lambda: "length(mapKeys(mapFilter((k, v) -> v > %d, m)))" % self.r.randint(0, 900),
            # The Array(Tuple) column (its element arrays at.x, at.y; lambdas over the tuples).
            lambda: "length(at)", lambda: "arraySum(at.x)",
            lambda: "arrayCount(e -> e.x > %d, at)" % self.r.randint(0, 50),
            lambda: "tupleElement(at[%d], 'x')" % self.r.randint(-2, 3),
            lambda: "arraySum(arrayMap(e -> e.x * 2, arrayFilter(e -> e.y != '', at)))",
        ]
        return self.pick(choices)()

    def str_expr(self):
        return self.pick(["s", "lower(s)", "upper(s)", "substring(s, 1, 3)", "substring(s, 2)",
                          "concat(s, '!')", "toString(u8)", "toString(d)", "toString(i32)",
                          "replaceAll(s, 'a', 'b')", "toString(toStartOfMonth(d))",
                          "toString(toStartOfHour(dt))", "toString(i64)", "toString(u64)",
                          "substring(s, -2)", "substring(s, 0, 1)", "replaceOne(s, 'l', '')",
                          "if(u8 > 100, s, 'other')", "concat(s, toString(u32), s)",
                          "toString(toStartOfFiveMinutes(dt))", "toString(dt)", "tp.b",
                          "toString(m['b'])", "tupleElement(tp, 2)", "toString(mapKeys(m))",
                          "toString(at.y)", "tupleElement(at[1], 'y')",
                          "toString(arrayMap(e -> e.y, arrayReverse(at)))"])

    def date_expr(self):
        return self.pick(["d", "dt", "toDate(dt)", "toStartOfMonth(d)", "toMonday(d)",
                          "toStartOfHour(dt)", "toStartOfDay(dt)", "toStartOfYear(d)"])

    def any_expr(self):
        r = self.r.random()
        if r < 0.55:
            return self.num_expr()
        if r < 0.8:
            return self.str_expr()
        return self.date_expr()

    def predicate(self, depth=0):
        r = self.r.random()
        if depth < 2 and r < 0.2:
            op = self.pick(["AND", "OR"])
            return "(%s %s %s)" % (self.predicate(depth + 1), op, self.predicate(depth + 1))
        if depth < 2 and r < 0.25:
            return "NOT (%s)" % self.predicate(depth + 1)
        cmp = self.pick(["=", "!=", "<", "<=", ">", ">="])
        kind = self.r.random()
        if kind < 0.38:
            col = self.pick(INT_COLS)
            return "%s %s %s" % (col, cmp, self.int_literal(col))
        if kind < 0.45:  # mixed signedness and widths compare by value
            return "%s %s %s" % (self.pick(INT_COLS), cmp, self.pick(INT_COLS + FLOAT_COLS))
        if kind < 0.55:
            return "%s %s %s" % (self.pick(FLOAT_COLS), cmp, self.pick(["0", "1.5", "-100", "1e30"]))
        if kind < 0.65:
            return "s %s %s" % (self.pick(["LIKE", "NOT LIKE", "ILIKE"]),
                                sql_string(self.pick(["%a%", "a%", "%", "_", "%o_", "x\\%y", ""])))
        if kind < 0.72:
            return "s %s %s" % (cmp, sql_string(self.pick(WORDS)))
        if kind < 0.8:
            col = self.pick(SMALL_INT_COLS)
            vals = ", ".join(str(self.r.randint(-5, 300)) for _ in range(self.r.randint(1, 4)))
            return "%s %sIN (%s)" % (col, self.pick(["", "NOT "]), vals)
        if kind < 0.87:
            return "d %s '%s'" % (cmp, self.pick(["1970-01-01", "2000-01-01", "2020-06-15",
                                                  "2149-06-06"]))
        if kind < 0.93:
            return "dt %s '%s'" % (cmp, self.pick(["1970-01-01 00:00:00", "2010-01-01 12:00:00",
                                                   "2106-02-07 06:28:15"]))
        if kind < 0.97:
            col = self.pick(SMALL_INT_COLS)
            a, b = sorted([self.r.randint(-10, 300), self.r.randint(-10, 300)])
            return "%s BETWEEN %d AND %d" % (col, a, b)
        if self.r.random() < 0.3:  # the Map and Tuple columns
            return self.pick([
                "mapContains(m, %s)" % sql_string(self.pick(MAP_KEYS)),
                "m[%s] %s %d" % (sql_string(self.pick(MAP_KEYS)), cmp, self.r.randint(0, 1000)),
                "tp %s (%d, %s)" % (cmp, self.r.randint(-100, 100),
                                    sql_string(self.pick(TUPLE_WORDS))),
                "tp.b %s %s" % (cmp, sql_string(self.pick(TUPLE_WORDS))),
                "arrayExists(e -> e.y = %s, at)" % sql_string(self.pick(TUPLE_WORDS)),
                "length(at) %s %d" % (cmp, self.r.randint(0, 3))])
        # Tuples compare element by element, lexicographically for the orderings.
        first = self.pick(SMALL_INT_COLS)
        second = self.pick(["s", "d", self.pick(INT_COLS)])
        if second == "s":
            literal = sql_string(self.pick(WORDS))
        elif second == "d":
            literal = "'2000-01-01'"
        else:
            literal = self.int_literal(second)
        return "(%s, %s) %s (%s, %s)" % (first, second, cmp, self.int_literal(first), literal)

    def aggregate(self):
        r = self.r.random()
        if r < 0.15:
            return "count()"
        fn = self.pick(["count", "sum", "min", "max", "avg", "uniqExact"])
        if fn == "sum":
            arg = self.pick(INT_COLS + FLOAT_COLS + ["length(s)", "u8 * 2"])
        elif fn == "avg":
            arg = self.pick(SMALL_INT_COLS + FLOAT_COLS)
        elif fn in ("min", "max"):
            arg = self.pick(NUM_COLS + ["s", "d", "dt", "lower(s)"])
        else:
            arg = self.any_expr()
            if fn == "uniqExact":
                arg = fold_zero(arg)
        if fn == "count" and self.r.random() < 0.3:
            return "count(DISTINCT %s)" % self.pick(["s", "u8", "d"])
        return "%s(%s)" % (fn, arg)

    def join_query(self):
        """A join of t with itself or with a filtered subquery of it, or IN over many rows; on
        granite it runs with its joins broadcast to the workers (join_settings)."""
        keys = [("u8", "u8"), ("i8", "i8"), ("u32", "u32"), ("s", "s"), ("d", "d"),
                ("u8", "i32"), ("u64", "i64"), ("i64", "i64"), ("i8", "u8"), ("i32", "i32")]
        ka, kb = self.pick(keys)
        right = "t" if self.r.random() < 0.5 else "(SELECT %s%s FROM t WHERE %s)" % (
            kb, "" if kb == "i32" else ", i32", self.predicate())
        kind = self.pick(["JOIN", "INNER JOIN", "LEFT JOIN", "LEFT SEMI JOIN", "LEFT ANTI JOIN",
                          "RIGHT JOIN", "FULL JOIN"])
        where = ""
        if self.r.random() < 0.5:
            col = self.pick(SMALL_INT_COLS)
            where = " WHERE a.%s %s %s" % (col, self.pick(["<", ">", "!="]), self.int_literal(col))
        shape = self.r.random()
        if shape < 0.15:
            col = self.pick(["u8", "i8"])
            return "SELECT count(), sum(i32) FROM t WHERE %s %sIN (SELECT number %% 300 - 20 " \
                   "FROM numbers(%d))" % (col, self.pick(["", "NOT "]), self.r.randint(1001, 3000))
        src = "FROM t AS a %s %s AS b ON a.%s = b.%s%s" % (kind, right, ka, kb, where)
        # join_use_nulls = 1: the right side's missing rows are NULL, on the workers too.
        settings = " SETTINGS join_use_nulls = 1" if self.r.random() < 0.3 else ""
        if shape < 0.6:
            return "SELECT count(), sum(a.i32), max(a.%s)%s %s%s" % (
                self.pick(NUM_COLS), "" if "SEMI" in kind or "ANTI" in kind else
                ", sum(b.i32), min(b.%s)" % kb, src, settings)
        # SEMI gives any matching right row (ClickHouse's too): only left columns are determined.
        right_sum = "a" if "SEMI" in kind else "b"
        return "SELECT a.u8, count(), sum(%s.i32) %s GROUP BY a.u8 ORDER BY 1 LIMIT %d" % (
            right_sum, src, self.r.randint(1, 20))

    def window_query(self):
        """A window function over t. The window's ORDER BY ends with every key column shown, so
        rows it leaves tied show the same values (their multiset is determined)."""
        partition = self.pick(["", "u8 % 5", "s", "d", "i8 < 0", "u8 % 5, s"])
        order_cols = self.r.sample(["i32", "u32", "s", "d", "u8", "i64"], self.r.randint(1, 3))
        order = ", ".join(c + self.pick(["", " DESC"]) for c in order_cols)
        col = self.pick(SMALL_INT_COLS)
        fn = self.pick(["row_number()", "rank()", "dense_rank()", "count()", "sum(%s)" % col,
                        "min(%s)" % col, "max(%s)" % col, "avg(%s)" % col,
                        "first_value(%s)" % col, "last_value(%s)" % col,
                        "lagInFrame(%s)" % col, "leadInFrame(%s, 1)" % col,
                        "lag(%s, 2)" % col, "lead(%s)" % col, "ntile(3)", "percent_rank()",
                        "cume_dist()", "nth_value(%s, 2)" % col])
        frame = ""
        if self.r.random() < 0.3 and not fn.startswith(("row_number", "rank", "dense_rank",
                                                           "lag(", "lead(", "ntile", "percent",
                                                           "cume")):
            frame = " " + self.pick([
                "ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
                "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
                "ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
                "ROWS BETWEEN 2 PRECEDING AND CURRENT ROW",
                "RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"])
        tie_safe = fn.startswith(("rank", "dense_rank", "percent_rank", "cume_dist", "count",
                                  "sum", "min", "max", "avg")) and "ROWS" not in frame
        if not tie_safe:
            # Rows the window leaves tied are then equal in every column it may show or read.
            order += "".join(", " + c for c in ["i32", "u32", "u64", "i64", "s", "d", "dt", "u8",
                                                 "i8"] if c not in order_cols)
        over = "OVER (%s%sORDER BY %s%s)" % (
            "PARTITION BY " if partition else "", partition + " " if partition else "", order,
            frame)
        shown = list(dict.fromkeys(order_cols + [c.strip() for c in partition.split(",")
                                                 if c.strip() in ("s", "d")]))
        where = " WHERE " + self.predicate() if self.r.random() < 0.5 else ""
        sql = "SELECT %s, %s %s AS w FROM t%s" % (", ".join(shown), fn, over, where)
        if self.r.random() < 0.3:
            # Filtered on the window's result, from outside.
            return "SELECT * FROM (%s) WHERE w %s %d" % (sql, self.pick(["<", ">", "="]),
                                                        self.r.randint(0, 5))
        return sql

    def composite_query(self):
        """Set operations, subqueries, CTEs, grouping sets and LIMIT BY over t."""
        shape = self.r.random()
        if shape < 0.2:
            col = self.pick(["u8", "i8", "s", "d"])
            op = self.pick(["UNION ALL", "UNION DISTINCT", "INTERSECT", "EXCEPT",
                            "INTERSECT DISTINCT", "EXCEPT DISTINCT"])
            return "SELECT * FROM (SELECT %s, u8 %% 3 AS k FROM t WHERE %s %s SELECT %s, " \
                   "u8 %% 3 AS k FROM t WHERE %s)" % (col, self.predicate(), op, col,
                                                      self.predicate())
        if shape < 0.35:
            col = self.pick(SMALL_INT_COLS)
            agg = self.pick(["avg", "min", "max", "median"])
            return "SELECT count(), sum(i32) FROM t WHERE %s %s (SELECT %s(%s) FROM t WHERE %s)" \
                % (col, self.pick(["<", ">", ">=", "="]), agg, col, self.predicate())
        if shape < 0.45:
            col = self.pick(["u8", "i8", "s", "d"])
            return "SELECT count(), sum(i32) FROM t WHERE %s %sIN (SELECT %s FROM t WHERE %s)" % (
                col, self.pick(["", "NOT "]), col, self.predicate())
        if shape < 0.5:
            return "SELECT count(), max(u8) FROM t WHERE %sEXISTS (SELECT 1 FROM t WHERE %s)" % (
                self.pick(["", "NOT "]), self.predicate())
        if shape < 0.65:
            key = self.pick(["u8 % 4", "s", "d", "i8 < 0"])
            return "WITH c AS (SELECT %s AS k, i32, u32 FROM t WHERE %s) SELECT k, count(), " \
                   "sum(i32), max(u32) FROM c GROUP BY k" % (key, self.predicate())
        if shape < 0.8:
            keys = self.r.sample(["u8 % 3", "s", "i8 < 0", "toYear(d)"], 2)
            by = self.pick(["ROLLUP(%s, %s)", "CUBE(%s, %s)", "GROUPING SETS ((%s), (%s), ())",
                            "GROUPING SETS ((%s, %s))"])
            return "SELECT %s, %s, count(), sum(i32), min(u32) FROM t GROUP BY %s" % (
                keys[0], keys[1], by % tuple(keys))
        if shape < 0.9:
            key = self.pick(["u8 % 4", "s", "d"])
            cols = self.r.sample(["i32", "u32", "s", "d"], 2)
            order = ", ".join(c + self.pick(["", " DESC"]) for c in cols)
            return "SELECT * FROM (SELECT %s AS k, %s FROM t ORDER BY k, %s LIMIT %d BY k)" % (
                key, ", ".join(cols), order, self.r.randint(1, 3))
        if shape < 0.92:
            col = self.pick(SMALL_INT_COLS)
            return "SELECT u8 %% 4 AS k, count(), (SELECT max(%s) FROM t WHERE %s) AS m FROM t " \
                   "GROUP BY k" % (col, self.predicate())
        if shape < 0.94:
            # A window over grouped rows.
            key = self.pick(["u8 % 5", "s", "d", "toYear(d)"])
            fn = self.pick(["rank() OVER (ORDER BY count() DESC, g)", "sum(count()) OVER ()",
                            "sum(sum(i32)) OVER (ORDER BY g)", "lagInFrame(count()) OVER "
                            "(ORDER BY g ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)"])
            return "SELECT %s AS g, count(), sum(i32), %s AS w FROM t WHERE %s GROUP BY g" % (
                key, fn, self.predicate())
        if shape < 0.96:
            cols = self.r.sample(["u8", "s", "d", "i8"], 2)
            return "SELECT count(), sum(i32) FROM t WHERE (%s, %s) %sIN (SELECT %s, %s FROM t " \
                   "WHERE %s)" % (cols[0], cols[1], self.pick(["", "NOT "]), cols[0], cols[1],
                                  self.predicate())
        if shape < 0.98:
            # A correlated EXISTS (decorrelated by granite; dropped where chdb refuses it).
            return "SELECT count(), sum(a.i32) FROM t AS a WHERE %sEXISTS (SELECT 1 FROM t AS b " \
                   "WHERE b.%s = a.%s AND b.i32 %s a.i32)" % (
                       self.pick(["", "NOT "]), *([self.pick(["u8", "s", "d"])] * 2),
                       self.pick(["<", ">", "!="]))
        return "SELECT u8 %% 4 AS k, count() FROM t GROUP BY k HAVING sum(i32) %s %d AND " \
               "max(s) %s '%s'" % (self.pick(["<", ">"]), self.r.randint(-10**9, 10**9),
                                   self.pick(["<", ">="]), self.pick(["a", "m", "z"]))

    def query(self):
        kind = self.r.random()
        if kind < 0.08:
            return self.window_query()
        if kind < 0.16:
            return self.composite_query()
        if kind < 0.26:
            return self.join_query()
        sql = self.single_table_query()
        if self.r.random() < 0.2:
            # The same query over a subquery that projects and filters t: granite merges it into
            # the query (coordinator/exec/subquery_merge.h), ClickHouse runs it as written.
            columns = "*" if self.r.random() < 0.5 else ", ".join(name for name, _ in COLUMNS)
            sql = sql.replace(" FROM t", " FROM (SELECT %s FROM t WHERE %s) AS t" % (
                columns, self.predicate()), 1)
        return sql

    def single_table_query(self):
        kind = self.r.random()
        where = " WHERE " + self.predicate() if self.r.random() < 0.6 else ""
        if kind < 0.4:
            # Aggregation with GROUP BY.
            keys = [self.pick(["u8", "i8", "s", "d", "toYear(d)", "u32 % 5", "lower(s)",
                               "toHour(dt)", "i32", "length(s)", "f32", "round(f32, -1)",
                               "ceil(f64 / 100)"])
                    for _ in range(self.r.randint(1, 2))]
            keys = [fold_zero(k) for k in keys]
            keys = list(dict.fromkeys(keys))
            aggs = [self.aggregate() for _ in range(self.r.randint(1, 3))]
            items = keys + aggs
            sql = "SELECT %s FROM t%s GROUP BY %s" % (", ".join(items), where, ", ".join(keys))
            if self.r.random() < 0.2:
                sql += " HAVING count() > %d" % self.r.randint(0, 5)
            if self.r.random() < 0.4:
                order = ", ".join(str(i + 1) + self.pick(["", " DESC"])
                                  for i in range(len(items)))
                sql += " ORDER BY " + order
                if self.r.random() < 0.7:
                    sql += " LIMIT %d" % self.r.randint(1, 20)
            return sql
        if kind < 0.55:
            aggs = [self.aggregate() for _ in range(self.r.randint(1, 4))]
            return "SELECT %s FROM t%s" % (", ".join(aggs), where)
        if kind < 0.65:
            items = [fold_zero(self.any_expr()) for _ in range(self.r.randint(1, 2))]
            return "SELECT DISTINCT %s FROM t%s" % (", ".join(items), where)
        if kind < 0.75:
            # Subqueries are not supported yet (intended_differences.md): a filtered aggregate.
            return "SELECT count(), sum(%s), min(%s), max(%s) FROM t WHERE %s" % (
                self.pick(SMALL_INT_COLS), self.pick(NUM_COLS), self.pick(NUM_COLS + ["s"]),
                self.predicate())
        # Projection, ordered by every column (so LIMIT picks a determined set), or unordered.
        items = [self.any_expr() for _ in range(self.r.randint(1, 4))]
        sql = "SELECT %s FROM t%s" % (", ".join(items), where)
        if self.r.random() < 0.6:
            sql += " ORDER BY " + ", ".join(str(i + 1) + self.pick(["", " DESC"])
                                            for i in range(len(items)))
            if self.r.random() < 0.7:
                sql += " LIMIT %d" % self.r.randint(1, 30)
                if self.r.random() < 0.2:
                    sql += " OFFSET %d" % self.r.randint(1, 10)
        return sql


def rename_table(sql, table):
    return re.sub(r"\b(FROM|JOIN) t\b", r"\1 " + table, sql)


def join_settings(sql, config):
    """Joins and IN over many rows run as `auto` chooses on w3; on w1 and w3s half of them (by a
    hash of the text) run broadcast, the other half as `auto` chooses: co-located on one shard,
    and on w3s where both sides are ts joined on its sharding key i32."""
    if config == "w3" or ("JOIN" not in sql and "IN (SELECT" not in sql):
        return sql
    if zlib.crc32(sql.encode()) % 2:
        return sql
    if " SETTINGS " in sql:
        return sql + ", distributed_join_mode = 'broadcast'"
    return sql + " SETTINGS distributed_join_mode = 'broadcast'"


class Oracle:
    def __init__(self, chdb):
        self.chdb = chdb

    def run(self, sql):
        out, _ = self.chdb.query(sql, "TSVWithNamesAndTypes")
        header, rows = result_check.parse_tsv(out, 2)
        names = [n.decode() for n in header[0]] if header else []
        kinds = [result_check.kind_of(t.decode()) for t in header[1]] if header else []
        return names, kinds, result_check.typed(rows, kinds, "chdb")


def compare_one(sql, config, table, granite, oracle, reference):
    """Returns None when granite's answer on `table` matches, else a description."""
    names, kinds, ref_rows = reference
    shape = result_check.QueryShape(sql)
    try:
        out, _ = granite.query(join_settings(rename_table(sql, table), config), "TabSeparated",
                               timeout=60)
    except engines.EngineError as e:
        return "granite error: %s" % " ".join(str(e).split())[:300]
    _, raw = result_check.parse_tsv(out)
    try:
        rows = result_check.typed(raw, kinds, "granite")
    except ValueError as e:
        return str(e)
    return result_check.compare(shape, kinds, names, rows, ref_rows,
                                lambda: oracle.run(shape.with_keys())[2],
                                lambda: oracle.run(shape.without_limit())[2])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--granite", help="granite binary (default: newest build*/granite)")
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--queries", type=int, default=0, help="stop after this many (0: no cap)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rows", type=int, default=400)
    parser.add_argument("--max-report", type=int, default=30, help="mismatches printed in full")
    parser.add_argument("--sql", action="append", default=[],
                        help="run this query instead of generated ones, printing every answer")
    args = parser.parse_args()
    try:
        import chdb  # noqa: F401
    except ImportError:
        print("SKIP: chdb is not installed (bash scripts/make-venv.sh --bench)")
        return SKIP
    try:
        granite_argv = engines.cluster.find_granite(args.granite)
    except engines.cluster.ClusterError as e:
        print("harness error: %s" % e)
        return 2

    rng = random.Random(args.seed)
    rows = make_rows(rng, args.rows)
    work = tempfile.mkdtemp(prefix="fuzz-sql-")
    data = os.path.join(work, "t.tsv")
    with open(data, "wb") as f:
        f.write(rows_tsv(rows))
    chdb_engine = engines.ChdbEngine(os.path.join(work, "chdb"))
    g1 = g3 = None
    try:
        chdb_engine.create(create_sql("t"))
        chdb_engine._run("INSERT INTO t SELECT * FROM file('%s', 'TabSeparated', '%s')" % (
            data, ", ".join("%s %s" % c for c in COLUMNS)))
        g1 = engines.GraniteEngine(granite_argv, workers=1, data_dir=os.path.join(work, "g1"))
        g3 = engines.GraniteEngine(granite_argv, workers=3, data_dir=os.path.join(work, "g3"))
        payload = rows_tsv(rows)
        for engine, table in ((g1, "t"), (g3, "t"), (g3, "ts")):
            engine.create(create_sql(table))
            if table == "ts":
                engine.create("ALTER TABLE ts MODIFY SETTING sharding_key = 'i32'")
            engine._run(lambda: engine._client.query(
                "INSERT INTO %s FORMAT TabSeparated" % table, input_data=payload))
        configs = [("w1", g1, "t"), ("w3", g3, "t"), ("w3s", g3, "ts")]
        oracle = Oracle(chdb_engine)
        gen = Generator(rng)
        started = time.monotonic()
        deadline = started + args.minutes * 60
        ran = passed = failed = invalid = 0
        seen = {}
        for sql in args.sql:
            print("chdb:\n" + chdb_engine.query(sql)[0].decode())
            for name, engine, table in configs:
                try:
                    print("%s:\n%s" % (name, engine.query(rename_table(sql, table))[0].decode()))
                except engines.EngineError as e:
                    print("%s: %s" % (name, e))
        if args.sql:
            return 0
        while time.monotonic() < deadline and (not args.queries or ran < args.queries):
            sql = gen.query()
            try:
                reference = oracle.run(sql)
            except (engines.EngineError, ValueError):
                invalid += 1
                continue
            ran += 1
            problems = []
            for name, engine, table in configs:
                problem = compare_one(sql, name, table, engine, oracle, reference)
                if problem:
                    problems.append((name, problem))
                if not engine.alive():
                    problems.append((name, "granite died:\n" + engine.log_tail()))
                    engine.restart()
            if not problems:
                passed += 1
                continue
            failed += 1
            if failed <= args.max_report:
                print("MISMATCH: %s" % sql)
                for name, problem in problems:
                    print("  [%s] %s" % (name, problem.replace("\n", "\n    ")))
                sys.stdout.flush()
            seen[sql] = problems
        print("%d queries compared on %s in %.0f s (%d not valid for chdb, dropped); seed %d, "
              "%d rows" % (ran, ", ".join(c[0] for c in configs), time.monotonic() - started,
                           invalid, args.seed, args.rows))
        print("%d passed, %d failed" % (passed, failed))
        return 1 if failed else 0
    finally:
        for engine in (g1, g3):
            if engine:
                engine.close()
        chdb_engine.close()


if __name__ == "__main__":
    sys.exit(main())
