#!/usr/bin/env python3
"""Bytes on disk and scan times of ClickBench's `hits` per column codec, against chdb.

Generates `--rows` rows with `granite gen hits`, loads them into chdb (create.sql unchanged, default
codecs, OPTIMIZE TABLE ... FINAL) and, for each candidate, into granite's (`granite local --workers
2`) `hits_<name>`, whose columns carry the candidate's codec per type class (integers,
Date/DateTime, strings), merged to one part per worker; then measures:
  - compressed and uncompressed bytes per type class (system.columns) and bytes on disk
    (system.parts), next to chdb's system.columns data_compressed_bytes for the same rows;
  - per type class a scan of all its columns: hot = min of runs 2-3 with the uncompressed cache,
    cold = page cache dropped (echo 3 > /proc/sys/vm/drop_caches, root only) and the uncompressed
    cache bypassed (use_uncompressed_cache = 0);
  - with --queries, the ClickBench queries (hot and cold as above) on the candidate table.

    .venv/bin/python bench/codecs/codec_sizes.py --granite build/granite --rows 2000000 \
        [--candidates lz4,zstd1,...] [--queries] [--out bench/results/x.md]

With --keep-hits DIR, loads the one candidate given as table `hits` into a granite data folder DIR
(kept, merged) and stops: the input of bench/clickbench/binary_ab.py --data-b for paired A/Bs of
storage formats.
"""

import argparse
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "clickbench"))
import engines  # noqa: E402

# Candidate codecs per type class; None keeps the column's default.
CANDIDATES = {
    "default": {"int": None, "time": None, "str": None},
    "lz4": {"int": "LZ4", "time": "LZ4", "str": "LZ4"},
    "zstd1": {"int": "ZSTD(1)", "time": "ZSTD(1)", "str": "ZSTD(1)"},
    "delta_zstd1": {"int": "Delta, ZSTD(1)", "time": "Delta, ZSTD(1)", "str": "ZSTD(3)"},
    "t64_zstd1": {"int": "T64, ZSTD(1)", "time": "DoubleDelta, ZSTD(1)", "str": "LZ4HC(9)"},
    "t64_lz4": {"int": "T64, LZ4", "time": "DoubleDelta, LZ4", "str": "ZSTD(1)"},
    "lz4hc9": {"int": "LZ4HC(9)", "time": "LZ4HC(9)", "str": "LZ4HC(9)"},
    # With sparse serialization of mostly-default columns (on by default since 2026-11-29):
    # the same codecs written dense, as before it.
    "lz4_dense": {"int": "LZ4", "time": "LZ4", "str": "LZ4",
                  "settings": "ratio_of_defaults_for_sparse_serialization = 1"},
    "zstd1_dense": {"int": "ZSTD(1)", "time": "ZSTD(1)", "str": "ZSTD(1)",
                    "settings": "ratio_of_defaults_for_sparse_serialization = 1"},
    "str_zstd1": {"int": "LZ4", "time": "LZ4", "str": "ZSTD(1)"},
    "int_str_zstd1": {"int": "ZSTD(1)", "time": "LZ4", "str": "ZSTD(1)"},
    "str_lz4hc9": {"int": "LZ4", "time": "LZ4", "str": "LZ4HC(9)"},
    "zstd3": {"int": "ZSTD(3)", "time": "ZSTD(3)", "str": "ZSTD(3)"},
    "zstd3_dense": {"int": "ZSTD(3)", "time": "ZSTD(3)", "str": "ZSTD(3)",
                    "settings": "ratio_of_defaults_for_sparse_serialization = 1"},
}

COLUMN_RE = re.compile(r"^(\s*)(\w+)\s+([A-Za-z]+(?:\(\d+\))?)(.*?)(,?)\s*$")


def type_class(sql_type):
    t = sql_type.upper()
    if t in ("TIMESTAMP", "DATE", "DATETIME"):
        return "time"
    if t.startswith(("TEXT", "VARCHAR", "CHAR", "STRING")):
        return "str"
    return "int"


def columns_of(create_sql):
    """Returns [(name, class)] of the CREATE statement's columns."""
    out = []
    for line in create_sql.splitlines():
        m = COLUMN_RE.match(line)
        if m and m.group(2).upper() not in ("CREATE", "PRIMARY", "ORDER", "ENGINE"):
            if "NOT NULL" in m.group(4).upper() or m.group(5):
                out.append((m.group(2), type_class(m.group(3))))
    return out


def with_codecs(create_sql, table, codecs):
    """Returns create.sql for `table` with CODEC(...) per column type class."""
    lines = []
    for line in create_sql.splitlines():
        m = COLUMN_RE.match(line)
        if m and "NOT NULL" in m.group(4).upper():
            codec = codecs[type_class(m.group(3))]
            if codec:
                line = "%s%s %s%s CODEC(%s)%s" % (m.group(1), m.group(2), m.group(3), m.group(4),
                                                  codec, m.group(5))
        lines.append(line)
    sql = "\n".join(lines)
    if codecs.get("settings"):
        sql = re.sub(r"\bSETTINGS\b", "SETTINGS %s," % codecs["settings"], sql, count=1)
    return re.sub(r"TABLE\s+hits\b", "TABLE " + table, sql, count=1)


def drop_caches():
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


def timed(engine, sql, runs, cold_settings):
    """Returns (cold seconds, hot seconds)."""
    drop_caches()
    _, cold = engine.query(sql + cold_settings, timeout=3600)
    hot = []
    for _ in range(runs):
        hot.append(engine.query(sql, timeout=3600)[1])
    return cold, min(hot[1:] if len(hot) > 1 else hot)


def scan_sql(table, names, cls):
    if cls == "str":
        terms = ["sum(length(%s))" % n for n in names]
    elif cls == "time":
        terms = ["sum(toUInt32(%s))" % n for n in names]
    else:
        terms = ["sum(%s)" % n for n in names]
    return "SELECT %s FROM %s" % (", ".join(terms), table)


def granite_bytes(engine, table):
    """Returns {class: [compressed, uncompressed]} and bytes on disk of `table`."""
    out, _ = engine.query("SELECT name, data_compressed_bytes, data_uncompressed_bytes FROM "
                          "system.columns WHERE table = '%s' ORDER BY position" % table)
    rows = [line.split("\t") for line in out.decode().splitlines()]
    disk, _ = engine.query("SELECT sum(bytes_on_disk) FROM system.parts WHERE table = '%s' "
                           "AND active" % table)
    return rows, int(disk.decode().strip() or 0)


def keep_hits(granite_argv, create, codecs, data, folder):
    """Loads `data` as table hits with `codecs` into the kept data folder `folder`."""
    granite = engines.GraniteEngine(granite_argv, 2, folder, timeout=3600)
    try:
        granite.create(with_codecs(create, "hits", codecs))
        start = time.monotonic()
        granite.load(data)
        granite.query("OPTIMIZE TABLE hits FINAL", timeout=3600)
        granite.settle()
        _, disk = granite_bytes(granite, "hits")
        print("hits in %s: loaded and merged in %.1f s, %.1f MB on disk" % (
            folder, time.monotonic() - start, disk / 1e6), flush=True)
    finally:
        granite.close(keep=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--granite", default="build/granite")
    parser.add_argument("--rows", type=int, default=2000000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clickbench", default=engines.DEFAULT_CLICKBENCH)
    parser.add_argument("--candidates", default=",".join(CANDIDATES))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--queries", action="store_true", help="also time the 43 queries")
    parser.add_argument("--no-chdb", action="store_true")
    parser.add_argument("--chdb-sizes", default=None,
                        help="int,time,str,disk compressed bytes from an earlier run (skips chdb)")
    parser.add_argument("--work", default=None, help="folder for data (default: a temp dir)")
    parser.add_argument("--out", default=None, help="append the markdown report here")
    parser.add_argument("--keep-hits", default=None,
                        help="load the one candidate as `hits` into this data folder, keep it, stop")
    args = parser.parse_args()

    work = args.work or tempfile.mkdtemp(prefix="codec-bench-")
    os.makedirs(work, exist_ok=True)
    data = os.path.join(work, "hits.tsv")
    granite_argv = [os.path.abspath(args.granite)]
    if not os.path.exists(data):
        print("generating %d rows: %.1f s" % (
            args.rows, engines.generate(granite_argv, args.rows, args.seed, "TabSeparated", data)),
            flush=True)
    create = engines.read_statement(args.clickbench, "create.sql")
    columns = columns_of(create)
    classes = {c: [n for n, k in columns if k == c] for c in ("int", "time", "str")}
    report = ["## %d rows, seed %d" % (args.rows, args.seed), ""]
    if args.keep_hits:
        keep_hits(granite_argv, create, CANDIDATES[args.candidates], data, args.keep_hits)
        return

    chdb_sizes = None
    if args.chdb_sizes:
        values = [int(v) for v in args.chdb_sizes.split(",")]
        chdb_sizes = {"int": [values[0], 0], "time": [values[1], 0], "str": [values[2], 0],
                      "disk": values[3]}
    elif not args.no_chdb:
        chdb = engines.ChdbEngine(os.path.join(work, "chdb"))
        chdb.create(create)
        load = chdb.load(data)
        chdb.query("OPTIMIZE TABLE hits FINAL")
        out, _ = chdb.query("SELECT name, data_compressed_bytes, data_uncompressed_bytes FROM "
                            "system.columns WHERE database = currentDatabase() AND table = 'hits'")
        per = {line.split("\t")[0]: (int(line.split("\t")[1]), int(line.split("\t")[2]))
               for line in out.decode().splitlines()}
        chdb_sizes = {c: [sum(per[n][0] for n in names), sum(per[n][1] for n in names)]
                      for c, names in classes.items()}
        chdb_sizes["disk"] = chdb.size_bytes()
        print("chdb: loaded in %.1f s, %s (--chdb-sizes %d,%d,%d,%d)" % (
            load, chdb_sizes, chdb_sizes["int"][0], chdb_sizes["time"][0], chdb_sizes["str"][0],
            chdb_sizes["disk"]), flush=True)
        chdb.close()

    granite = engines.GraniteEngine(granite_argv, 2, os.path.join(work, "granite"), timeout=3600)
    try:
        queries = engines.read_queries(args.clickbench) if args.queries else []
        cold_settings = " SETTINGS use_uncompressed_cache = 0"
        report += ["| candidate | class | codec | compressed MB | uncompressed MB | ratio | "
                   "vs chdb | scan hot s | scan cold s |", "|---|---|---|---|---|---|---|---|---|"]
        totals = {}
        query_times = {}
        for name in args.candidates.split(","):
            codecs = CANDIDATES[name]
            table = "hits_" + name
            granite.create(with_codecs(create, table, codecs))
            start = time.monotonic()
            # Streamed: INSERT ... SELECT would hold all rows in memory.
            granite.load(data, table=table)
            granite.query("OPTIMIZE TABLE %s FINAL" % table, timeout=3600)
            granite.settle()
            rows, disk = granite_bytes(granite, table)
            per = {r[0]: (int(r[1]), int(r[2])) for r in rows}
            totals[name] = (sum(v[0] for v in per.values()), disk)
            print("%s: copied and merged in %.1f s, %.1f MB compressed, %.1f MB on disk" % (
                name, time.monotonic() - start, totals[name][0] / 1e6, disk / 1e6), flush=True)
            for cls, names in classes.items():
                compressed = sum(per[n][0] for n in names)
                uncompressed = sum(per[n][1] for n in names)
                cold, hot = timed(granite, scan_sql(table, names, cls), args.runs, cold_settings)
                vs = "%.2f" % (compressed / chdb_sizes[cls][0]) if chdb_sizes else "-"
                report.append("| %s | %s (%d) | %s | %.1f | %.1f | %.2f | %s | %.3f | %.3f |" % (
                    name, cls, len(names), (codecs[cls] or "default") + (
                        " (dense)" if codecs.get("settings") else ""), compressed / 1e6,
                    uncompressed / 1e6, uncompressed / max(compressed, 1), vs, hot, cold))
                print(report[-1], flush=True)
            if queries:
                times = []
                for sql in queries:
                    sql = re.sub(r"\bFROM hits\b", "FROM " + table, sql)
                    try:
                        times.append(timed(granite, sql, args.runs, cold_settings))
                    except engines.EngineError as e:
                        print("%s: %s" % (name, e), flush=True)
                        times.append((float("nan"), float("nan")))
                query_times[name] = times
            granite.query("DROP TABLE %s" % table)
        report += ["", "| candidate | all columns compressed MB | bytes on disk MB |", "|---|---|---|"]
        for name, (compressed, disk) in totals.items():
            report.append("| %s | %.1f | %.1f |" % (name, compressed / 1e6, disk / 1e6))
        if chdb_sizes:
            report.append("| chdb | %.1f | %.1f |" % (
                sum(chdb_sizes[c][0] for c in classes) / 1e6, chdb_sizes["disk"] / 1e6))
        if query_times:
            names = list(query_times)
            report += ["", "Queries (seconds, hot / cold):", "",
                       "| Q | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
            for q in range(len(queries)):
                report.append("| %d | %s |" % (q + 1, " | ".join(
                    "%.3f / %.3f" % (query_times[n][q][1], query_times[n][q][0]) for n in names)))
            for n in names:
                hot = [t[1] for t in query_times[n] if t[1] == t[1]]
                cold = [t[0] for t in query_times[n] if t[0] == t[0]]
                geo = lambda xs: __import__("math").exp(sum(__import__("math").log(max(x, 1e-4))
                                                            for x in xs) / max(len(xs), 1))
                report.append("| geomean %s | hot %.4f / cold %.4f |" % (n, geo(hot), geo(cold)))
    finally:
        granite.close(keep=args.work is not None)
    text = "\n".join(report) + "\n"
    print(text)
    if args.out:
        with open(args.out, "a") as f:
            f.write(text)


if __name__ == "__main__":
    main()
