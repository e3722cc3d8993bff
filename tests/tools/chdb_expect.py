#!/usr/bin/env python3
"""Checks or fills the expected rows of sqllogic test files with ClickHouse's own answers (chdb).

    .venv/bin/python tests/tools/chdb_expect.py --check tests/sql/select/*.test   # report only
    .venv/bin/python tests/tools/chdb_expect.py --fill tests/sql/new/draft.test   # rewrite rows

Each file runs in a fresh embedded ClickHouse session. --fill replaces the rows under each query's
'----' with chdb's TabSeparated output (empty fields written as (empty)) and keeps everything else
as written; review the diff before committing, since granite differs on purpose in a few places
(avg of Int64 is exact; 64-bit integers are never quoted in JSON). Statements are checked in both
modes: "statement ok" must succeed and "statement error N" must fail with code N. Granite-only
settings (GRANITE_ONLY_SETTINGS) are dropped from the SQL ClickHouse runs. EXPLAIN records are
left alone (their text is granite's plan: tests/tools/explain_fill.py fills them).
chdb is installed by `scripts/make-venv.sh --bench`.
"""

import argparse
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "sqllogic"))
import runner  # noqa: E402
from chdb import session as chdb_session  # noqa: E402

_CODE_RE = re.compile(r"Code: (\d+)\.")

# Settings only granite has: dropped from a statement's SETTINGS before ClickHouse runs it, so a
# file that places tables on shards or chooses where joins run still checks against ClickHouse.
GRANITE_ONLY_SETTINGS = ("sharding_key", "distributed_join_mode")
# A quoted value (commas inside stay with it), or a bare one that cannot start a quote.
_VALUE = r"(?:'(?:[^'\\]|\\.)*'|[^\s,']+)"


def for_chdb(sql):
    """Returns `sql` without the granite-only settings of its SETTINGS clause."""
    for name in GRANITE_ONLY_SETTINGS:
        setting = r"\b%s\s*=\s*%s" % (name, _VALUE)
        sql = re.sub(r"\s*,\s*" + setting, "", sql)           # after another setting
        sql = re.sub(setting + r"\s*,\s*", "", sql)           # before another setting
        sql = re.sub(r"\s*\bSETTINGS\s+" + setting, "", sql)  # the only one
    return sql


def run_sql(sess, sql):
    """Returns (output text, None) or (None, (code, message))."""
    try:
        return sess.query(sql, "TabSeparated").bytes().decode("utf-8"), None
    except Exception as e:
        m = _CODE_RE.search(str(e))
        return None, (int(m.group(1)) if m else -1, str(e).splitlines()[0][:300])


def _is_explain(sql):
    return sql.lstrip().upper().startswith("EXPLAIN")


def process(path, fill):
    records = runner.parse_file(path, check_rows=not fill)
    lines = open(path, encoding="utf-8").read().split("\n")
    tmp = tempfile.mkdtemp(prefix="chdb-expect-")
    sess = chdb_session.Session(tmp)
    problems = 0
    replacements = {}  # header line index -> new expected rows
    try:
        for record in records:
            out, err = run_sql(sess, for_chdb(record.sql))
            where = "%s:%d" % (path, record.line)
            if record.kind == "statement":
                if record.expect_error is None and err:
                    print("%s: statement failed in ClickHouse: %s" % (where, err[1]))
                    problems += 1
                elif record.expect_error is not None:
                    codes = record.expect_error[0]
                    if err is None:
                        print("%s: ClickHouse accepted a statement expected to fail" % where)
                        problems += 1
                    elif codes is not None and err[0] not in codes:
                        print("%s: ClickHouse fails with %d, not %s: %s" % (
                            where, err[0], codes, err[1]))
                        problems += 1
                continue
            if _is_explain(record.sql):
                continue  # granite's own plan text: tests/tools/explain_fill.py writes it
            if err:
                print("%s: query failed in ClickHouse: %s" % (where, err[1]))
                problems += 1
                continue
            rows, _ = runner.split_output(out)
            if fill:
                replacements[record.line - 1] = rows
                bad = [r for r in rows if r.count("\t") + 1 != len(record.types)]
                if bad:
                    print("%s: ClickHouse's row %r does not fit the types %r" % (
                        where, bad[0], record.types))
                    problems += 1
            elif runner.compare(record, out):
                print("%s: expected rows differ from ClickHouse's\n  SQL: %s\n  expected: %r\n"
                      "  clickhouse: %r" % (where, record.sql, record.expected, rows))
                problems += 1
    finally:
        sess.close()
        shutil.rmtree(tmp, ignore_errors=True)
    if fill and replacements:
        out_lines, i = [], 0
        while i < len(lines):
            out_lines.append(lines[i])
            if i not in replacements:
                i += 1
                continue
            header = i
            i += 1
            while lines[i].strip() != "----":
                out_lines.append(lines[i])
                i += 1
            out_lines.append(lines[i])
            i += 1
            while i < len(lines) and lines[i] != "":
                i += 1
            for row in replacements[header]:
                out_lines.append("\t".join(f if f != "" else runner.EMPTY for f in row.split("\t")))
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(out_lines))
    return problems


def main():
    parser = argparse.ArgumentParser()
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--fill", action="store_true")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    problems = 0
    for path in args.files:
        problems += process(path, args.fill)
    print("%d problem(s)" % problems)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
