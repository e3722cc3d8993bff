#!/usr/bin/env python3
"""Diffs every function and aggregate of granite's system.functions against ClickHouse (chdb).

For each function it generates calls over typed argument values (edge values per type: 0,
min/max, empty and long strings, NaN, far dates, decimals) with 0 to 3 arguments, runs each call
on a local granite cluster and in chdb, and classifies it:

    same        both answer, with the same text (floats compared to 1e-9 relative)
    differ      both answer, differently                      <- to explain or fix
    granite     only granite refuses it                        <- a gap
    chdb        only ClickHouse refuses it                     <- granite too lenient?
    both        both refuse (the argument types do not fit)    <- not counted
    explained   a "differ" or "chdb" call that EXPLAINED lists with its reason

Aggregates run over five rows of one typed column (`FROM numbers(5)`), scalars over a constant
argument list. The report (Markdown) lists per function the counts and the first examples of
each non-"same" class, every explained difference with its reason and count, and the gaps
(granite-only refusals) by family; its summary gives the unexplained differences, to keep at 0.

    .venv/bin/python tests/tools/function_coverage.py --granite build/granite \
        --report bench/results/function-coverage-YYYY-MM-DD.md [--only toYear,plus] [--limit N]
        [--before an-earlier-report.md] [--dump every-call.tsv]

chdb comes with `scripts/make-venv.sh --bench`. A development tool (minutes, not `make test`).
"""

import argparse
import itertools
import math
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "harness"))
sys.path.insert(0, os.path.join(ROOT, "client", "python"))

import cluster  # noqa: E402
from granite_client import Client, GraniteError  # noqa: E402

# Typed argument values: (type name, SQL text). The first of each type is the "plain" sample
# used for calls with two or three arguments.
SCALARS = [
    ("UInt8", "toUInt8(7)"), ("UInt8", "toUInt8(0)"), ("UInt8", "toUInt8(255)"),
    ("Int32", "toInt32(-5)"), ("Int32", "toInt32(-2147483648)"),
    ("UInt64", "toUInt64(12345678901)"), ("UInt64", "toUInt64(18446744073709551615)"),
    ("Int64", "toInt64(-42)"), ("Int64", "toInt64(-9223372036854775808)"),
    ("Float64", "toFloat64(2.5)"), ("Float64", "toFloat64(-0.)"), ("Float64", "toFloat64(nan)"),
    ("Float64", "toFloat64(1e300)"), ("Float32", "toFloat32(0.1)"),
    ("String", "'Hello, World'"), ("String", "''"), ("String", "'Ünïcödé ✓'"),
    ("String", "'https://user@example.com:8080/a/b.html?x=1&y=%20z#frag'"),
    ("String", "'{\"a\": {\"b\": [1, 2.5, \"x\"]}, \"c\": true}'"), ("String", "'192.168.1.10'"),
    ("String", "'2024-02-29 13:45:01'"),
    ("Date", "toDate('2024-02-29')"), ("Date", "toDate('1970-01-01')"),
    ("Date", "toDate('2149-06-06')"),
    ("DateTime", "toDateTime('2024-02-29 13:45:01')"),
    ("DateTime", "toDateTime('1970-01-01 00:00:00')"),
    ("DateTime", "toDateTime('2024-02-29 13:45:01', 'UTC')"),
    ("Decimal(10, 2)", "toDecimal64(-12.34, 2)"),
]
# Column expressions for aggregates, over numbers(5).
COLUMNS = [
    ("UInt8", "toUInt8(number * 60)"), ("Int64", "toInt64(number) - 2"),
    ("Float64", "number / 3"), ("String", "toString(number * 7)"),
    ("Date", "toDate('2024-01-01') + number"), ("Decimal(10, 2)", "toDecimal64(number, 2) / 4"),
]
# Functions that are not deterministic or depend on the server: never compared.
SKIP = {"now", "now64", "today", "yesterday", "rand", "rand32", "rand64", "randCanonical",
        "generateUUIDv4", "version", "uptime", "hostName", "hostname", "currentUser", "user",
        "currentDatabase", "database", "serverTimezone", "timezone", "timeZone", "queryID",
        "query_id", "initialQueryID", "randomString", "randomPrintableASCII", "sleep",
        "sleepEachRow", "throwIf", "randConstant", "blockNumber", "rowNumberInBlock",
        "rowNumberInAllBlocks",
        "runningDifference", "runningAccumulate", "neighbor", "getSetting", "__queryParameter",
        "defaultValueOfArgumentType", "uniq", "uniqCombined", "uniqHLL12", "quantile",
        "quantiles", "median", "any", "anyLast", "first_value", "last_value",
        "groupBitmap", "topK"}

# Differences granite keeps on purpose, each with its reason: (class, function-name regex, call
# regex, reason). Class "differ": both answer, differently; "chdb": granite answers a call
# ClickHouse refuses. A call that matches counts as "explained" instead of its class, and the
# report lists every reason with its count. Add an entry only with a reason a ClickHouse user would
# accept (chdb's host, random or clock functions, a documented ClickHouse quirk, float noise).
EXPLAINED = [
    # Both answer, differently.
    ("differ", r"timeZoneOf|timezoneOf", r"toDateTime\('[^']*'\)\)$",
     "the server's time zone: chdb's host calls UTC 'Etc/UTC', granite's server 'UTC'"),
    ("differ", r"groupUniqArray", r"",
     "element order is the hash table's; ClickHouse documents it as unspecified"),
    ("differ", r"avgWeighted", r"number / 3, toUInt8",
     "ClickHouse bug: a Float64 value with an integer weight is truncated to the weight's type "
     "before it is multiplied (0.7 instead of sum(x*w)/sum(w) = 1)"),
    ("differ", r"(add|subtract)(Days|Weeks|Months|Quarters|Years)", r"toUInt64\(12345678901\)",
     "an interval of 12 billion units leaves the date's range: both wrap around, differently; "
     "neither result means anything"),
    ("differ", r"array", r"toFloat32\(0\.1\)",
     "chdb types [Int64, Float32] as Array(Variant(...)) and prints the Float32 as is; granite "
     "uses ClickHouse's classic common type Float64 (0.1f widened exactly)"),
    ("differ", r"intDiv|modulo|mod", r"toFloat32\(0\.1\)\)$",
     "ClickHouse divides an integer by a Float32 in Float32 precision (the integer rounded to "
     "Float32 first); granite in Float64, which gives the exact quotient of the operands"),
    ("differ", r"intExp10", r"toUInt64\(1|toInt64\(-9",
     "ClickHouse first truncates the exponent to 32 bits (12345678901 -> negative -> 0, "
     "INT64_MIN -> 0 -> 1); granite saturates: 10^x for x > 19 is UInt64's largest value"),
    ("differ", r"lgamma", r"toInt(32|64)\(-",
     "a pole (non-positive integer): C's lgamma returns +inf, ClickHouse's bundled libm nan"),
    ("differ", r"sign", r"nan\)\)$", "NaN has no sign; ClickHouse answers 1, granite 0"),
    ("differ", r"toInt32|toInt64|toUInt64", r"1e300",
     "a float far outside the integer type: ClickHouse returns the x86 conversion's "
     "'indefinite' value (INT_MIN, 2^63), granite 0; the result is unspecified in both"),
    ("differ", r"ceil|ceiling", r", toInt(32|64)\(-(5|42)\)\)$",
     "rounding up to 10^5 or 10^42, beyond the value's type: granite wraps UInt8 and gives the "
     "exact float 1e42; ClickHouse's 0 and 18446744073709552000 are overflow artifacts too"),
    ("differ", r"in|notIn", r"toDate\('2024-02-29'\), toDateTime\(",
     "ClickHouse converts an IN set to the left side's type (the DateTime's day equals the "
     "Date); granite compares as = does, in the common type DateTime"),
    # granite answers, ClickHouse refuses: granite is lenient where the answer is still sound.
    ("chdb", r"if|multiIf", r"",
     "granite takes any number as a condition (non-zero is true); ClickHouse wants UInt8"),
    ("chdb", r"and|or|xor|not", r"",
     "granite takes any number, Date or DateTime as a truth value (non-zero is true)"),
    ("chdb", r"least|greatest", r"",
     "granite compares a 64-bit integer with a float as Float64, as ClickHouse's plus does"),
    ("chdb", r"equals|notEquals|less|lessOrEquals|greater|greaterOrEquals|nullIf", r"toDate",
     "granite compares a Date or DateTime with a number as its day or second number"),
    ("chdb", r"in|notIn", r"",
     "granite compares the value with the IN list as = compares them (a Date with a number as "
     "its day number); ClickHouse refuses a list element it cannot convert to the left's type"),
    ("chdb", r"range", r"^SELECT range\(toInt(32|64)\(-\d+\)\)$",
     "range(-5) is [] (no number from 0 up to -5); ClickHouse refuses a negative end"),
    ("chdb", r"round|floor|ceil|ceiling|trunc|truncate", r"toUInt64\(12345678901\)\)$",
     "rounding to 12 billion decimal places keeps the value (granite caps the places at 1000); "
     "ClickHouse refuses the scale"),
    ("chdb", r"isNaN|isFinite|isInfinite|intExp2|intExp10", r"toDecimal",
     "granite reads a Decimal as Float64 here too, as in the other math functions"),
    ("chdb", r"toDecimal(32|64|128)", r"^SELECT toDecimal\d+\(toDate",
     "a Date or DateTime converts as its day or second number, as toInt64 converts it"),
    ("chdb", r"toWeek|toStartOfWeek", r"",
     "granite takes any integer mode (its lowest bits, as MySQL); ClickHouse a constant UInt8"),
    ("chdb", r"format", r"^SELECT format\('[^']*'\)$",
     "format with a pattern only returns the pattern; ClickHouse asks for 2 arguments"),
    ("chdb", r"toStartOfTenMinutes|timeSlot", r"toDate\(",
     "granite reads a Date as its midnight, as the other toStartOf* functions do"),
    ("chdb", r"toU?Int(8|16|32|64)|toDate|toDateTime|toUnixTimestamp|intExp2|intExp10",
     r"nan\)\)$",
     "granite converts NaN to 0; ClickHouse refuses it (CANNOT_CONVERT_TYPE)"),
    ("chdb", r"quantileTDigest|medianTDigest|quantileDeterministic|medianDeterministic",
     r"toDecimal", "granite takes Decimal values (as Float64), as quantile does"),
    ("chdb", r"covar\w*|COVAR_\w+|corr|regr_\w+|avgWeighted|quantile\w*|median\w*",
     r"toDecimal\d+\(number",
     "granite computes every moment and quantile of a Decimal in Float64; ClickHouse does for "
     "varPop, stddev*, skew*, kurt*, the *Stable ones and quantile, but refuses covar/corr/regr_*"),
    ("chdb", r"range", r"toUInt64\(12345678901\)",
     "granite computes range() of signed and UInt64 bounds in Int64 (exact for these values); "
     "ClickHouse finds no common type"),
]

# Calls granite refuses and ClickHouse answers, grouped by family for the report: (function-name
# regex, call regex, family). These are gaps, listed so the next one to close is easy to pick.
GAPS = [
    (r"tuple", r"", "tuple() as a value outside the select list, comparisons and tupleElement"),
    (r"in|notIn|globalIn|globalNotIn", r"", "IN called as a function with a scalar second "
     "argument"),
    (r"dateAdd|date_add|DATE_ADD|timestampAdd|timestamp_add|dateSub|date_sub|DATE_SUB|"
     r"timestampSub|timestamp_sub", r"",
     "dateAdd / dateSub(a, b) (plus / minus) with Decimal or String operands"),
    (r"array", r"", "arrays of types with no common type (ClickHouse's Variant)"),
    (r"makeDate|makeDateTime", r"", "makeDate(year, day_of_year) and other short forms"),
    (r"entropy|uniqUpTo|boundingRatio|corrStable|covar\w*Stable|regr_\w+|\w*Stable", r"",
     "aggregates over several columns, Decimal or Date arguments"),
    (r"modulo|mod|intDiv|intDivOrZero|moduloOrZero|power|pow|atan2|hypot|plus|minus|multiply|"
     r"divide", r"toDecimal|toDate", "arithmetic with Decimal or Date operands"),
    (r"round|floor|ceil|ceiling|trunc|truncate|roundBankers|roundToExp2|roundDown", r"",
     "rounding with a Float or Decimal digits argument, roundToExp2 of floats"),
    (r"toUnixTimestamp|toDateTime64|toDecimal\d+|to\w+OrNull|to\w+OrZero|toDateTime|toDate",
     r"", "conversions from numbers or with a non-constant scale / zone"),
    (r"bitCount|bitNot|bitAnd|bitOr|bitXor|bitShiftLeft|bitShiftRight|bitTest\w*", r"",
     "bit functions over floats and strings"),
    (r"javaHash|hiveHash|intHash32|intHash64", r"", "hashes of numbers, Dates and Decimals"),
    (r"formatReadable\w+", r"", "formatReadable* of Date or String"),
    (r"(add|subtract)(Seconds|Minutes|Hours|Days|Weeks|Months|Quarters|Years)", r"",
     "add*/subtract* of a Decimal count or a String date"),
    (r"substring|substr|mid|left|right|leftUTF8|rightUTF8|substringUTF8", r"toFloat",
     "substring offsets and lengths given as floats"),
    (r"toDayOfWeek|DAYOFWEEK|toYearWeek|toWeek|toStartOfWeek", r"'20",
     "week functions over a String date"),
    (r"\w+", r"FROM numbers\(5\)$", "other aggregates over Decimal or Date columns "
     "(variance, skew, kurtosis, quantileTiming, ...)"),
    (r"range", r"", "range() with negative steps or mixed signedness"),
]

_CODE_RE = re.compile(r"Code: (\d+)\.")


def plain_samples():
    seen, out = set(), []
    for type_name, text in SCALARS:
        if type_name not in seen:
            seen.add(type_name)
            out.append(text)
    return out


def scalar_calls(name):
    yield "SELECT %s()" % name
    for _, text in SCALARS:
        yield "SELECT %s(%s)" % (name, text)
    plain = plain_samples()
    for a, b in itertools.product(plain, plain):
        yield "SELECT %s(%s, %s)" % (name, a, b)
    small = plain[:4]
    for a, b, c in itertools.product(small, small, small):
        yield "SELECT %s(%s, %s, %s)" % (name, a, b, c)


def aggregate_calls(name):
    yield "SELECT %s() FROM numbers(5)" % name
    for _, column in COLUMNS:
        yield "SELECT %s(%s) FROM numbers(5)" % (name, column)
    for (_, a), (_, b) in itertools.product(COLUMNS, COLUMNS):
        yield "SELECT %s(%s, %s) FROM numbers(5)" % (name, a, b)


def same_text(a, b):
    if a == b:
        return True
    fa, fb = a.split("\t"), b.split("\t")
    if len(fa) != len(fb):
        return False
    for x, y in zip(fa, fb):
        if x == y:
            continue
        try:
            u, v = float(x), float(y)
        except ValueError:
            return False
        if math.isnan(u) and math.isnan(v):
            continue
        if not math.isclose(u, v, rel_tol=1e-9, abs_tol=1e-12):
            return False
    return True


def run_granite(client, sql):
    try:
        out = client.execute(sql, format="TabSeparated").output.decode("utf-8", "replace")
        return True, out.strip("\n")
    except GraniteError as e:
        return False, "%s: %s" % (e.code, str(e).splitlines()[0][:120])


def run_chdb(session, sql):
    try:
        # Bytes decoded as granite's are: a digest or unhex result is not UTF-8.
        result = session.query(sql, "TabSeparated")
        return True, result.bytes().decode("utf-8", "replace").strip("\n")
    except Exception as e:  # chdb raises RuntimeError with ClickHouse's text
        text = str(e)
        m = _CODE_RE.search(text)
        return False, "%s: %s" % (m.group(1) if m else "?", text.splitlines()[0][:120])


def classify(g, c):
    (g_ok, g_out), (c_ok, c_out) = g, c
    if g_ok and c_ok:
        return "same" if same_text(g_out, c_out) else "differ"
    if not g_ok and not c_ok:
        return "both"
    return "granite" if not g_ok else "chdb"


def explanation(kind, name, sql):
    """Returns the reason of an explained difference, or None."""
    for k, function, call, reason in EXPLAINED:
        if k == kind and re.fullmatch(function, name) and re.search(call, sql):
            return reason
    return None


def gap_family(name, sql):
    for function, call, family in GAPS:
        if re.fullmatch(function, name) and re.search(call, sql):
            return family
    return "other"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--granite", default=None)
    parser.add_argument("--report", default=None, help="Markdown report path (default: stdout)")
    parser.add_argument("--only", default="", help="comma-separated function names")
    parser.add_argument("--limit", type=int, default=0, help="at most N functions")
    parser.add_argument("--examples", type=int, default=2)
    parser.add_argument("--before", action="append", default=[],
                        help="an earlier report (repeatable): its summary lines are printed "
                             "as 'Before'")
    parser.add_argument("--dump", default=None,
                        help="also write every non-'same' call here, one per line (TSV)")
    parser.add_argument("--seconds", type=int, default=0,
                        help="stop starting new functions after this long (0: no bound)")
    args = parser.parse_args()

    from chdb import session as chdb_session
    chdb = chdb_session.Session()
    only = {x for x in args.only.split(",") if x}
    start = time.time()
    rows = []
    explained, gaps = {}, {}
    dump = open(args.dump, "w") if args.dump else None
    with cluster.LocalCluster(cluster.find_granite(args.granite), workers=1) as local:
        client = Client(port=local.port, timeout=30)
        listing = client.execute(
            "SELECT name, is_aggregate FROM system.functions ORDER BY name",
            format="TabSeparated").output.decode().splitlines()
        functions = [(line.split("\t")[0], line.split("\t")[1] == "1") for line in listing]
        functions = [f for f in functions if f[0] not in SKIP and (not only or f[0] in only)]
        if args.limit:
            functions = functions[:args.limit]
        for name, aggregate in functions:
            if args.seconds and time.time() - start > args.seconds:
                args.stopped = "stopped by --seconds %d after %d of %d functions" % (
                    args.seconds, len(rows), len(functions))
                break
            counts = {"same": 0, "differ": 0, "granite": 0, "chdb": 0, "both": 0,
                      "explained": 0}
            examples = {"differ": [], "granite": [], "chdb": []}
            for sql in (aggregate_calls(name) if aggregate else scalar_calls(name)):
                g = run_granite(client, sql)
                c = run_chdb(chdb, sql)
                kind = classify(g, c)
                reason = explanation(kind, name, sql) if kind in ("differ", "chdb") else None
                if reason is not None:
                    entry = explained.setdefault(reason, [0, sql, g[1], c[1]])
                    entry[0] += 1
                    kind = "explained"
                if kind == "granite":
                    entry = gaps.setdefault(gap_family(name, sql), [0, set(), sql, g[1]])
                    entry[0] += 1
                    entry[1].add(name)
                counts[kind] += 1
                if dump and kind != "same" and kind != "both":
                    dump.write("%s\t%s\t%s\t%s\t%s\n" % (kind, name, sql, g[1].replace("\n", "\\n"),
                                                       c[1].replace("\n", "\\n")))
                if kind in examples and len(examples[kind]) < args.examples:
                    examples[kind].append((sql, g[1], c[1]))
            rows.append((name, aggregate, counts, examples))
            print("%-32s %s" % (name, " ".join("%s=%d" % kv for kv in counts.items())),
                  file=sys.stderr)
    elapsed = time.time() - start
    write_report(rows, explained, gaps, elapsed, args)


def write_report(rows, explained, gaps, elapsed, args):
    clean = [r for r in rows if r[2]["differ"] == 0 and r[2]["granite"] == 0 and r[2]["same"] > 0]
    total = {k: sum(r[2][k] for r in rows) for k in ("same", "differ", "granite", "chdb",
                                                      "explained")}
    lines = ["# Function coverage against ClickHouse (chdb)", "",
             "Command: `tests/tools/function_coverage.py%s%s%s` (%.0f s)." % (
                 " --only " + args.only if args.only else "",
                 " --limit %d" % args.limit if args.limit else "",
                 "".join(" --before " + b for b in args.before), elapsed), ""]
    for before in args.before:
        with open(before) as f:
            summary = [line.strip() for line in f
                       if line.startswith(("Functions compared", "Calls:"))]
        lines += ["Before (%s): %s" % (os.path.basename(before), " ".join(summary)), ""]
    lines += ["%sFunctions compared: %d; with no difference and no gap: %d.%s" % (
                  "After: " if args.before else "", len(rows), len(clean),
                  " (" + args.stopped + ")" if getattr(args, "stopped", "") else ""),
              "Calls: same %d, differ %d, granite-only errors %d, chdb-only errors %d, "
              "explained %d." % tuple(total[k] for k in ("same", "differ", "granite", "chdb",
                                                         "explained")), "",
              "**Unexplained differences: %d** (calls where both answer differently and no "
              "reason below covers it); unexplained chdb-only answers: %d." % (
                  total["differ"], total["chdb"]), "",
              "| function | agg | same | differ | explained | granite refuses | chdb refuses |",
              "|---|---|---|---|---|---|---|"]
    for name, aggregate, counts, _ in rows:
        lines.append("| %s | %s | %d | %d | %d | %d | %d |" % (
            name, "y" if aggregate else "", counts["same"], counts["differ"],
            counts["explained"], counts["granite"], counts["chdb"]))
    lines += ["", "## Explained differences", "",
              "| calls | reason | example: call, granite, chdb |", "|---|---|---|"]
    for reason, (count, sql, g, c) in sorted(explained.items(), key=lambda kv: -kv[1][0]):
        lines.append("| %d | %s | `%s` → `%s` / `%s` |" % (
            count, reason, sql, cell(g), cell(c)))
    lines += ["", "## Gaps: calls only granite refuses, by family", "",
              "| calls | family | functions | example: call, granite's error |", "|---|---|---|---|"]
    for family, (count, names, sql, g) in sorted(gaps.items(), key=lambda kv: -kv[1][0]):
        shown = sorted(names)
        lines.append("| %d | %s | %s | `%s` → `%s` |" % (
            count, family, ", ".join(shown[:12]) + (", ..." if len(shown) > 12 else ""), sql,
            cell(g)))
    lines += ["", "## Examples", ""]
    for name, _, counts, examples in rows:
        shown = [(k, e) for k in ("differ", "granite", "chdb") for e in examples[k]]
        if not shown:
            continue
        lines.append("### %s" % name)
        for kind, (sql, g, c) in shown:
            lines.append("- %s: `%s`  granite `%s`  chdb `%s`" % (
                kind, sql, g.replace("`", "'")[:100], c.replace("`", "'")[:100]))
        lines.append("")
    text = "\n".join(lines) + "\n"
    if args.report:
        with open(args.report, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def cell(text):
    return text.replace("`", "'").replace("|", "\\|")[:100]


if __name__ == "__main__":
    main()
