#!/usr/bin/env python3
"""LowCardinality(String) against String: the same 10M rows in a String column and in a
LowCardinality(String) column, 100 distinct values of 5-40 bytes (skewed, as names of cities or
products are), queried by granite (both tables, one `granite local` cluster), chdb (LowCardinality)
and DuckDB (VARCHAR, which it dictionary-compresses itself), same run, same data.

    .venv/bin/python bench/shapes/low_cardinality.py build/granite [--rows 10000000] [--runs 7]

Each query runs once to warm up, then `runs` times per engine and table, interleaved; the table
prints the median seconds. Results: bench/results/low-cardinality-2026-11-29.md.
"""

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "clickbench"))
import engines  # noqa: E402

SYLLABLES = ["ber", "lin", "par", "is", "ro", "me", "os", "lo", "mad", "rid", "vi", "en", "na",
             "war", "saw", "pra", "gue", "bu", "da", "pest", "lis", "bon", "ham", "burg", "mu",
             "nich", "zu", "rich", "ge", "ne", "va", "mi", "lan", "to", "ri", "no", "ly", "on"]


def values(count, seed):
    """Returns `count` distinct names of 5 to 40 bytes."""
    rng = random.Random(seed)
    out = []
    seen = set()
    while len(out) < count:
        target = rng.randint(5, 40)
        name = ""
        while len(name) < target:
            name += rng.choice(SYLLABLES)
            if rng.random() < 0.2 and len(name) < target - 2:
                name += rng.choice([" ", "-", " am "])
        name = name[:target].strip().capitalize()
        if len(name) >= 5 and name not in seen:
            seen.add(name)
            out.append(name)
    return out


def write_data(path, rows, seed):
    """Writes `rows` rows of (k, x) as TabSeparated; returns the distinct values."""
    names = values(100, seed)
    weights = [1.0 / (i + 1) ** 0.8 for i in range(len(names))]  # Zipf-like: a few are common
    rng = random.Random(seed + 1)
    with open(path, "w", encoding="utf-8") as f:
        batch = 100000
        for start in range(0, rows, batch):
            n = min(batch, rows - start)
            ks = rng.choices(names, weights, k=n)
            f.write("".join("%s\t%d\n" % (k, rng.randrange(1000)) for k in ks))
    return names


def queries(table, needle, substring):
    return [
        ("GROUP BY k, count()", "SELECT k, count() FROM %s GROUP BY k" % table),
        ("GROUP BY k, sum(x) top 10",
         "SELECT k, sum(x) FROM %s GROUP BY k ORDER BY 2 DESC LIMIT 10" % table),
        ("count() WHERE k = const", "SELECT count() FROM %s WHERE k = '%s'" % (table, needle)),
        ("count() WHERE k LIKE '%%%s%%'" % substring,
         "SELECT count() FROM %s WHERE k LIKE '%%%s%%'" % (table, substring)),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("granite")
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--engines", default="granite,chdb,duckdb")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="lc-bench-")
    try:
        data = os.path.join(work, "k.tsv")
        names = write_data(data, args.rows, args.seed)
        needle, substring = names[3], "ri"
        print("rows %d, %d distinct values, %.0f MB of TSV; k = '%s'" % (
            args.rows, len(names), os.path.getsize(data) / 1e6, needle))
        runs = {}  # (engine label, query label) -> list of seconds
        answers = {}
        clients = []
        wanted = args.engines.split(",")
        if "granite" in wanted:
            g = engines.GraniteEngine([os.path.abspath(args.granite)], workers=args.workers)
            g.create("CREATE TABLE t_str (k String, x UInt32) ENGINE = MergeTree ORDER BY tuple()")
            g.create("CREATE TABLE t_lc (k LowCardinality(String), x UInt32) "
                     "ENGINE = MergeTree ORDER BY tuple()")
            for table in ("t_str", "t_lc"):
                print("granite load %s: %.1f s" % (table, g.load(data, table=table)))
            g.settle()
            clients.append(("granite String", g, "t_str"))
            clients.append(("granite LowCardinality", g, "t_lc"))
        if "chdb" in wanted:
            c = engines.ChdbEngine()
            c.create("CREATE TABLE t_lc (k LowCardinality(String), x UInt32) "
                     "ENGINE = MergeTree ORDER BY tuple()")
            c._run("INSERT INTO t_lc SELECT * FROM file('%s', 'TabSeparated', "
                   "'k String, x UInt32')" % data)
            c.settle()
            clients.append(("chdb LowCardinality", c, "t_lc"))
        if "duckdb" in wanted:
            d = engines.DuckdbEngine()
            d._run("CREATE TABLE t (k VARCHAR, x UINTEGER)")
            d._run("INSERT INTO t SELECT * FROM read_csv('%s', header = false, delim = '\t', "
                   "quote = '', escape = '', auto_detect = false, "
                   "columns = {'k': 'VARCHAR', 'x': 'UINTEGER'})" % data)
            d._run("CHECKPOINT")
            clients.append(("duckdb VARCHAR", d, "t"))
        labels = [label for label, _ in queries("t", needle, substring)]
        for q in range(len(labels)):
            for _ in range(args.runs + 1):
                for label, engine, table in clients:
                    sql = queries(table, needle, substring)[q][1]
                    out, seconds = engine.query(sql)
                    runs.setdefault((label, labels[q]), []).append(seconds)
                    answers[(label, labels[q])] = out
        print("\n| query | " + " | ".join(label for label, _, _ in clients) + " |")
        print("|---|" + "---|" * len(clients))
        for q in labels:
            cells = []
            for label, _, _ in clients:
                samples = runs[(label, q)][1:]  # the first is the warm-up
                cells.append("%.4f" % statistics.median(samples))
            print("| %s | %s |" % (q, " | ".join(cells)))
        print("\ncount() WHERE answers: " + ", ".join(
            "%s %s" % (label, answers[(label, labels[2])]) for label, _, _ in clients))
        for _, engine, _ in clients:
            try:
                engine.close()
            except Exception:
                pass
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
