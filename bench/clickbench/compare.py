#!/usr/bin/env python3
"""Correctness oracle: runs the 43 ClickBench queries on granite and on chdb and compares results.

Steps: `granite gen hits` writes --rows rows (TabSeparated); a `granite local` cluster (2 workers)
and a chdb Session both create `hits` from the benchmark's create.sql and load the same file; every
query of queries.sql runs on both and the results are compared (rules in result_check.py).
granite runs one pass per --granite-sharding-keys entry (default: `hits` unsharded, then sharded
by UserID with ALTER TABLE hits MODIFY SETTING sharding_key = 'UserID' before the load, as
run.py benchmarks it), so a shard-local planner rule that fires wrongly shows up as a mismatch.

One oracle-side rewrite: chdb's AVG(UserID) overflows its Int64 sum, while granite returns the
exact mean, so the reference runs avg(toInt128(UserID)) instead (query 4).

Prints one line per query and pass (OK / MISMATCH with a diff excerpt / ERROR with granite's
message), then "N passed, M failed" per pass. Exits 1 on any failure not listed in --xfail, 77 when chdb or the
ClickBench folder is missing (a ctest SKIP), 2 when the harness itself cannot run.

    .venv/bin/python bench/clickbench/compare.py --rows 100000 --granite build/granite
"""

import argparse
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import engines  # noqa: E402
import result_check  # noqa: E402

SKIP = 77

# Reference-side rewrites (chdb only): exact text -> replacement.
ORACLE_REWRITES = {"AVG(UserID)": "avg(toInt128(UserID))"}


def parse_list(text):
    out = set()
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-", 1)
            out.update(range(int(lo), int(hi) + 1))
        else:
            out.add(int(part))
    return out


def oracle_sql(sql):
    for old, new in ORACLE_REWRITES.items():
        sql = sql.replace(old, new)
    return sql


def first_line(text, limit=300):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "..."


class Oracle:
    """Runs reference queries on chdb and returns typed rows."""

    def __init__(self, chdb):
        self.chdb = chdb

    def run(self, sql):
        out, _ = self.chdb.query(oracle_sql(sql), "TSVWithNamesAndTypes")
        header, rows = result_check.parse_tsv(out, 2)
        names = [n.decode() for n in header[0]] if header else []
        kinds = [result_check.kind_of(t.decode()) for t in header[1]] if header else []
        return names, kinds, result_check.typed(rows, kinds, "chdb")


def check_query(number, sql, granite, oracle, timeout):
    """Returns (status, detail, seconds): status is OK, MISMATCH or ERROR."""
    shape = result_check.QueryShape(sql)
    names, kinds, reference = oracle.run(sql)
    try:
        out, seconds = granite.query(sql, "TabSeparated", timeout=timeout)
    except engines.EngineError as e:
        return "ERROR", first_line(e), None
    _, raw = result_check.parse_tsv(out)
    try:
        rows = result_check.typed(raw, kinds, "granite")
    except ValueError as e:
        return "MISMATCH", str(e), seconds

    def keyed():
        return oracle.run(shape.with_keys())[2]

    def full():
        return oracle.run(shape.without_limit())[2]

    problem = result_check.compare(shape, kinds, names, rows, reference, keyed, full)
    if problem:
        return "MISMATCH", problem, seconds
    return "OK", "%d rows" % len(rows), seconds


def apply_sharding_key(granite, key):
    """Shards granite's empty `hits` by `key` (comma-separated columns; "none": unsharded)."""
    if key != "none":
        granite.create("ALTER TABLE hits MODIFY SETTING sharding_key = '%s'" % key)


def run_pass(args, granite, key, create, data, queries, selected, xfail, oracle):
    """Loads granite's `hits` sharded by `key` and checks every selected query; returns the
    number of unexpected failures."""
    try:
        granite.create(create)
        apply_sharding_key(granite, key)
        print("granite: loaded in %.1f s" % granite.load(data))
    except engines.EngineError as e:
        print("granite: cannot create or load hits: %s" % first_line(e))
    passed = failed = expected = 0
    for number in sorted(selected):
        if number < 1 or number > len(queries):
            continue
        try:
            status, detail, secs = check_query(number, queries[number - 1], granite, oracle,
                                               args.timeout)
        except engines.EngineError as e:
            status, detail, secs = "ERROR", "reference (chdb) failed: %s" % first_line(e), None
        except ValueError as e:
            status, detail, secs = "ERROR", "harness: %s" % e, None
        if not granite.alive():
            detail += "\n  granite exited; restarting it. Log tail:\n" + granite.log_tail()
            granite.restart()
        timing = " [%.2f s]" % secs if secs is not None else ""
        mark = ""
        if status == "OK":
            passed += 1
            if number in xfail:
                mark = " (XPASS: remove from --xfail)"
        elif number in xfail:
            expected += 1
            mark = " (XFAIL)"
        else:
            failed += 1
        print("Q%02d %s%s%s: %s" % (number, status, mark, timing, detail))
        sys.stdout.flush()
    if expected:
        print("%d expected failure(s) not counted (--xfail)" % expected)
    print("%d passed, %d failed (hits %s)" % (
        passed, failed, "unsharded" if key == "none" else "sharded by " + key))
    return failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--granite", help="granite binary (default: newest build*/granite)")
    parser.add_argument("--clickbench", default=engines.DEFAULT_CLICKBENCH,
                        help="folder with create.sql and queries.sql (default %(default)s)")
    parser.add_argument("--queries", help="subset to run, e.g. 1,2,5 or 30-43")
    parser.add_argument("--xfail", help="queries expected to fail: reported, not counted")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=120, help="seconds per granite query")
    parser.add_argument("--keep", action="store_true", help="keep the data and work folders")
    parser.add_argument("--workdir", help="work folder (default: a new temporary folder)")
    parser.add_argument("--granite-sharding-keys", default="none,UserID",
                        help="';'-separated passes, each a sharding key for granite's hits "
                             "(ALTER TABLE hits MODIFY SETTING sharding_key = '...' before the "
                             "load) or none (unsharded); default %(default)s runs both. A comma "
                             "inside one pass is a multi-column key only with ';' between passes")
    args = parser.parse_args()

    if not os.path.exists(os.path.join(args.clickbench, "queries.sql")):
        print("SKIP: no ClickBench folder at %s (pass --clickbench)" % args.clickbench)
        return SKIP
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

    queries = engines.read_queries(args.clickbench)
    selected = parse_list(args.queries) or set(range(1, len(queries) + 1))
    xfail = parse_list(args.xfail)
    separator = ";" if ";" in args.granite_sharding_keys else ","
    sharding_keys = [k.strip() for k in args.granite_sharding_keys.split(separator) if k.strip()]
    work = args.workdir or tempfile.mkdtemp(prefix="clickbench-compare-")
    os.makedirs(work, exist_ok=True)
    data = os.path.join(work, "hits.tsv")
    granite = chdb_engine = None
    try:
        seconds = engines.generate(granite_argv, args.rows, args.seed, "TabSeparated", data)
        print("generated %d rows (seed %d) in %.1f s: %s" % (args.rows, args.seed, seconds, data))
        create = engines.read_statement(args.clickbench, "create.sql")
        chdb_engine = engines.ChdbEngine(os.path.join(work, "chdb"))
        chdb_engine.create(create)
        print("chdb: loaded in %.1f s" % chdb_engine.load(data))
        oracle = Oracle(chdb_engine)
        failed = 0
        for key in sharding_keys:
            print("== granite, hits %s ==" % (
                "unsharded" if key == "none" else "sharded by %s" % key))
            granite = engines.GraniteEngine(granite_argv, args.workers,
                                            os.path.join(work, "granite-%s" % key.replace(",", "_")),
                                            timeout=args.timeout)
            try:
                failed += run_pass(args, granite, key, create, data, queries, selected, xfail,
                                   oracle)
            finally:
                granite.close(keep=args.keep)
                granite = None
        return 1 if failed else 0
    except (engines.EngineError, engines.cluster.ClusterError) as e:
        print("harness error: %s" % e)
        return 2
    finally:
        if granite:
            granite.close(keep=args.keep)
        if chdb_engine:
            chdb_engine.close(keep=args.keep)
        if args.keep:
            print("kept %s" % work)
        elif not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
