#!/usr/bin/env python3
"""Runs sqllogictest-style files (tests/sql/<area>/<what>.test) against fresh granite clusters.

File format (records are separated by blank lines; lines starting with # between records are
comments):

    statement ok
    <sql, one or more lines>

    statement error <code>[|<code>...] [<substring of the message>]
    <sql>

    query <column types, e.g. IIT> [nosort|rowsort]
    <sql>
    ----
    <expected rows, TabSeparated, one per line; a field written (empty) is an empty string, so
     a row of one empty string is "(empty)" and trailing empty fields survive editors>

    halt                      (stops reading the file: the records after it are skipped)

    onlyif workers>=N         (on the line before a record: run it only on clusters of at least
                               N workers, for plans that differ with the cluster's size)

Queries run with output_format TabSeparated (a FORMAT clause in the SQL takes precedence) and their
output lines are compared exactly; rowsort sorts both sides first; every output row must have as
many tab-separated fields as the type string has letters. A statement's output is ignored.
For each cluster size given with --workers, each file gets a fresh `granite local --workers N
--data <tmp> --port 0` cluster, stopped (SIGTERM, SIGKILL after 10 s) and deleted afterwards.
The last line printed is "N passed, M failed" (N, M count files x cluster sizes); the exit code
is non-zero when anything failed.
"""

import argparse
import difflib
import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster as cluster_lib  # noqa: E402

SORT_MODES = ("nosort", "rowsort")
MAX_FAILURES_PER_FILE = 20
MAX_SHOWN_LINES = 40
EMPTY = "(empty)"  # An expected field (or row) written as (empty) is an empty string.


class ParseError(Exception):
    pass


class Record:
    """One statement or query of a test file.

    kind: "statement" or "query"; line: 1-based line of its header; expect_error: None for
    "statement ok", else (tuple of accepted codes or None, substring or None); types and sort: of
    a query;
    expected: the expected output lines of a query.
    """

    def __init__(self, kind, line):
        self.kind = kind
        self.line = line
        self.sql = ""
        self.expect_error = None
        self.types = ""
        self.sort = "nosort"
        self.expected = []
        self.min_workers = 1  # onlyif workers>=N

    def __repr__(self):
        return "Record(%s@%d %r)" % (self.kind, self.line, self.sql)


def _parse_header(words, record, where):
    if record.kind == "statement":
        if len(words) < 2 or words[1] not in ("ok", "error"):
            raise ParseError("%s: expected 'statement ok' or 'statement error <code>'" % where)
        if words[1] == "ok":
            if len(words) > 2:
                raise ParseError("%s: unexpected text after 'statement ok'" % where)
            return
        code, substring = None, None
        if len(words) > 2:
            if not re.fullmatch(r"\d+(\|\d+)*", words[2]):
                raise ParseError("%s: 'statement error' needs a numeric ClickHouse error code "
                                 "(or alternatives such as 27|6), got %r" % (where, words[2]))
            code = tuple(int(c) for c in words[2].split("|"))
        if len(words) > 3:
            substring = " ".join(words[3:])
        record.expect_error = (code, substring)
    else:
        if len(words) < 2 or not re.fullmatch(r"[A-Z]+", words[1]):
            raise ParseError("%s: 'query' needs column types such as IIT" % where)
        record.types = words[1]
        for w in words[2:]:
            if w not in SORT_MODES:
                raise ParseError("%s: unknown query option %r (known: %s)" % (
                    where, w, ", ".join(SORT_MODES)))
            record.sort = w


def parse(text, filename="<string>", check_rows=True):
    """Parses a test file's text into a list of Records. Raises ParseError naming file:line.

    check_rows: reject expected rows whose field count differs from the query's type string.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    records = []
    i = 0
    n = len(lines)
    min_workers = 1  # from an onlyif line, for the next record
    while i < n:
        raw = lines[i]
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        where = "%s:%d" % (filename, i + 1)
        words = stripped.split()
        if words[0] == "halt":
            break
        if words[0] == "onlyif":
            match = re.fullmatch(r"workers>=(\d+)", "".join(words[1:]))
            if not match:
                raise ParseError("%s: expected 'onlyif workers>=N', got %r" % (where, raw))
            min_workers = int(match.group(1))
            i += 1
            continue
        if words[0] not in ("statement", "query"):
            raise ParseError("%s: expected 'statement' or 'query', got %r" % (where, raw))
        record = Record(words[0], i + 1)
        record.min_workers, min_workers = min_workers, 1
        _parse_header(words, record, where)
        i += 1
        sql_lines = []
        while i < n and lines[i].strip() and lines[i].strip() != "----":
            sql_lines.append(lines[i].rstrip())
            i += 1
        if not sql_lines:
            raise ParseError("%s: %s without SQL" % (where, record.kind))
        record.sql = "\n".join(sql_lines)
        has_separator = i < n and lines[i].strip() == "----"
        if record.kind == "statement":
            if has_separator:
                raise ParseError("%s: a statement has no '----' section (use query)" % where)
        else:
            if not has_separator:
                raise ParseError("%s: query without a '----' line before its expected rows "
                                 "(write '----' then a blank line for no rows)" % where)
            i += 1
            # Expected rows end at a truly empty line: "\t" is a row of two empty strings.
            while i < n and lines[i] != "":
                fields = lines[i].split("\t")
                record.expected.append("\t".join("" if f == EMPTY else f for f in fields))
                i += 1
            for k, row in enumerate(record.expected if check_rows else ()):
                fields = row.count("\t") + 1
                if fields != len(record.types):
                    raise ParseError("%s:%d: expected row has %d fields but the types %r say %d"
                                     % (filename, record.line + len(sql_lines) + 2 + k, fields,
                                        record.types, len(record.types)))
        records.append(record)
    return records


def parse_file(path, check_rows=True):
    with open(path, encoding="utf-8") as f:
        return parse(f.read(), path, check_rows)


def split_output(text):
    """Splits TabSeparated output into rows. Returns (rows, problem or None)."""
    if text == "":
        return [], None
    if not text.endswith("\n"):
        return text.split("\n"), "output does not end with a newline"
    return text[:-1].split("\n"), None


def compare(record, output):
    """Returns None when output matches the record's expectation, else a description."""
    rows, problem = split_output(output)
    if problem:
        return problem
    for row in rows:
        if row.count("\t") + 1 != len(record.types):
            return "row %r has %d fields, the types %r say %d" % (
                row, row.count("\t") + 1, record.types, len(record.types))
    expected = record.expected
    if record.sort == "rowsort":
        rows, expected = sorted(rows), sorted(expected)
    if rows != expected:
        return "result differs"
    return None


def _show(lines):
    shown = [("    " + (l if l != "" else "(empty)")) for l in lines[:MAX_SHOWN_LINES]]
    if len(lines) > MAX_SHOWN_LINES:
        shown.append("    ... (%d rows in all)" % len(lines))
    return "\n".join(shown) if shown else "    (no rows)"


def _report(path, record, message, expected=None, actual=None):
    out = ["FAIL %s:%d: %s" % (path, record.line, message),
           "  SQL: " + record.sql.replace("\n", "\n       ")]
    if expected is not None:
        out.append("  expected:\n" + _show(expected))
        out.append("  actual:\n" + _show(actual))
        if len(expected) > 8 or len(actual) > 8:
            diff = difflib.unified_diff(expected, actual, "expected", "actual", lineterm="", n=1)
            out.append("  diff:\n" + "\n".join("    " + d for d in list(diff)[:60]))
    print("\n".join(out), flush=True)


def run_records(path, records, client, query_timeout, workers=1):
    """Runs records against client (a cluster of `workers` workers); prints each failure.
    Returns the number of failures."""
    import granite_client
    failures = 0
    for record in records:
        if record.min_workers > workers:
            continue
        if failures >= MAX_FAILURES_PER_FILE:
            print("  ... stopping %s after %d failures" % (path, failures), flush=True)
            break
        try:
            if record.kind == "query":
                output = client.query(record.sql, format="TabSeparated",
                                      timeout=query_timeout).decode("utf-8", "replace")
            else:
                client.query(record.sql, timeout=query_timeout)
                output = None
        except granite_client.TransportError as e:
            _report(path, record, "transport failure, abandoning the file: %s" % e)
            return failures + 1
        except granite_client.GraniteError as e:
            if record.expect_error is None:
                _report(path, record, "unexpected error: %s" % e)
                failures += 1
                continue
            codes, substring = record.expect_error
            if codes is not None and e.code not in codes:
                _report(path, record, "expected error code %s, got %s" % (
                    "|".join(map(str, codes)), e))
                failures += 1
            elif substring is not None and substring not in e.message:
                _report(path, record, "error message lacks %r: %s" % (substring, e))
                failures += 1
            continue
        if record.expect_error is not None:
            codes = record.expect_error[0]
            _report(path, record, "expected error %s, but the statement succeeded"
                    % ("|".join(map(str, codes)) if codes else "(any)"))
            failures += 1
            continue
        if record.kind == "query":
            problem = compare(record, output)
            if problem:
                rows, _ = split_output(output)
                _report(path, record, problem, record.expected, rows)
                failures += 1
    return failures


def run_file(path, granite, workers, args):
    """Runs one file on a fresh cluster of `workers` workers. Returns True when it passed."""
    try:
        records = parse_file(path)
    except (ParseError, OSError, UnicodeDecodeError) as e:
        print("FAIL %s: %s" % (path, e), flush=True)
        return False
    started = time.monotonic()
    if args.server:
        host, port = args.server.rsplit(":", 1)
        import granite_client
        with granite_client.connect(host, int(port)) as client:
            failures = run_records(path, records, client, args.query_timeout, workers)
        log = None
    else:
        cluster = cluster_lib.LocalCluster(granite, workers=workers, threads=args.threads,
                                           keep_data=args.keep_data)
        try:
            cluster.start()
        except cluster_lib.ClusterError as e:
            print("FAIL %s (workers=%d): cluster did not start: %s" % (path, workers, e),
                  flush=True)
            return False
        try:
            with cluster.client() as client:
                failures = run_records(path, records, client, args.query_timeout, workers)
            if not cluster.process.alive():
                print("FAIL %s (workers=%d): granite local exited with code %s during the file"
                      % (path, workers, cluster.process.returncode()), flush=True)
                failures += 1
            log = cluster.log_tail() if failures else None
        finally:
            cluster.stop()
    elapsed = time.monotonic() - started
    status = "PASS" if failures == 0 else "FAIL"
    print("%s %s (workers=%d, %d records, %.1f s)" % (status, path, workers, len(records),
                                                     elapsed), flush=True)
    if log:
        print("  server log (last lines):\n" + log, flush=True)
    return failures == 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--granite", help="granite binary (or a shell-quoted command); default: "
                        "$GRANITE_BIN or the newest build*/granite")
    parser.add_argument("--workers", type=int, action="append",
                        help="cluster size; repeat to run each file on each size (default 1)")
    parser.add_argument("--threads", type=int, help="passed to granite local as --threads")
    parser.add_argument("--server", help="run against an already running HOST:PORT instead")
    parser.add_argument("--query-timeout", type=float, default=60.0,
                        help="deadline of each statement, seconds (default 60)")
    parser.add_argument("--keep-data", action="store_true", help="keep the clusters' data")
    parser.add_argument("--parse-only", action="store_true",
                        help="only check that the files parse")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args(argv)
    sizes = args.workers or [1]

    # SIGTERM (e.g. from ctest's timeout) unwinds through the finally blocks that stop clusters.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    passed = failed = 0
    if args.parse_only:
        for path in args.files:
            try:
                records = parse_file(path)
                print("OK %s (%d records)" % (path, len(records)))
                passed += 1
            except (ParseError, OSError, UnicodeDecodeError) as e:
                print("FAIL %s: %s" % (path, e))
                failed += 1
        print("%d passed, %d failed" % (passed, failed))
        return 1 if failed else 0

    granite = None
    if not args.server:
        try:
            granite = cluster_lib.find_granite(args.granite)
        except cluster_lib.ClusterError as e:
            print("error: %s" % e)
            print("0 passed, %d failed" % (len(args.files) * len(sizes)))
            return 1
    for workers in sizes:
        for path in args.files:
            if run_file(path, granite, workers, args):
                passed += 1
            else:
                failed += 1
    print("%d passed, %d failed" % (passed, failed), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
