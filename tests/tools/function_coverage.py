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

Aggregates run over five rows of one typed column (`FROM numbers(5)`), scalars over a constant
argument list. The report (Markdown) lists per function the counts and the first examples of
each non-"same" class; the summary line counts functions with 0 differences.

    .venv/bin/python tests/tools/function_coverage.py --granite build/granite \
        --report bench/results/function-coverage-YYYY-MM-DD.md [--only toYear,plus] [--limit N]

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
        return True, str(session.query(sql, "TabSeparated")).strip("\n")
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--granite", default=None)
    parser.add_argument("--report", default=None, help="Markdown report path (default: stdout)")
    parser.add_argument("--only", default="", help="comma-separated function names")
    parser.add_argument("--limit", type=int, default=0, help="at most N functions")
    parser.add_argument("--examples", type=int, default=2)
    parser.add_argument("--seconds", type=int, default=0,
                        help="stop starting new functions after this long (0: no bound)")
    args = parser.parse_args()

    from chdb import session as chdb_session
    chdb = chdb_session.Session()
    only = {x for x in args.only.split(",") if x}
    start = time.time()
    rows = []
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
            counts = {"same": 0, "differ": 0, "granite": 0, "chdb": 0, "both": 0}
            examples = {"differ": [], "granite": [], "chdb": []}
            for sql in (aggregate_calls(name) if aggregate else scalar_calls(name)):
                g = run_granite(client, sql)
                c = run_chdb(chdb, sql)
                kind = classify(g, c)
                counts[kind] += 1
                if kind in examples and len(examples[kind]) < args.examples:
                    examples[kind].append((sql, g[1], c[1]))
            rows.append((name, aggregate, counts, examples))
            print("%-32s %s" % (name, " ".join("%s=%d" % kv for kv in counts.items())),
                  file=sys.stderr)
    elapsed = time.time() - start
    write_report(rows, elapsed, args)


def write_report(rows, elapsed, args):
    clean = [r for r in rows if r[2]["differ"] == 0 and r[2]["granite"] == 0 and r[2]["same"] > 0]
    lines = ["# Function coverage against ClickHouse (chdb)", "",
             "Command: `tests/tools/function_coverage.py%s%s` (%.0f s)." % (
                 " --only " + args.only if args.only else "",
                 " --limit %d" % args.limit if args.limit else "", elapsed), "",
             "Functions compared: %d; with no difference and no gap: %d.%s" % (
                 len(rows), len(clean),
                 " (" + args.stopped + ")" if getattr(args, "stopped", "") else ""),
             "Calls: same %d, differ %d, granite-only errors %d, chdb-only errors %d." % tuple(
                 sum(r[2][k] for r in rows) for k in ("same", "differ", "granite", "chdb")), "",
             "| function | agg | same | differ | granite refuses | chdb refuses |",
             "|---|---|---|---|---|---|"]
    for name, aggregate, counts, _ in rows:
        lines.append("| %s | %s | %d | %d | %d | %d |" % (
            name, "y" if aggregate else "", counts["same"], counts["differ"], counts["granite"],
            counts["chdb"]))
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


if __name__ == "__main__":
    main()
