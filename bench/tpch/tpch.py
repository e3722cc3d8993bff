#!/usr/bin/env python3
"""TPC-H on granite, with chdb and DuckDB as peers in the same run on the same data.

    .venv/bin/python bench/tpch/tpch.py --sf 1 --workers 1,3 --runs 3 --peers chdb,duckdb \
        --report bench/results/tpch-sf1.md

The TPC-H kit (schema, the 22 queries in ClickHouse's dialect, DuckDB's texts, answers at SF 0.1,
its loader) is read from --kit (default ../shared/tpch next to the repository) and never copied
into the repository; its tools/load_and_check.py is imported from there for data generation,
peer loading and result comparison. Data comes from `tpchgen-cli` (PyPI, installed into the venv
by `scripts/make-venv.sh --bench`) and is cached outside the clone in --data-root (default
~/.cache/granite/tpch/sf<SF>).

Per query file the statements run in order in one gRPC session (SET ...); the result is that
of the last SELECT/WITH. granite's answer is compared with the kit's answer file when one exists
for the scale factor, else with chdb's answer of the same run (numbers as floats, relative
tolerance 1e-6; row order only where the query has ORDER BY).
"""

import argparse
import importlib.util
import os
import re
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "harness"))
sys.path.insert(0, os.path.join(REPO, "bench", "clickbench"))
import cluster  # noqa: E402  (also makes granite_client importable)
from engines import wait_for_merges  # noqa: E402
from granite_client import Client, GraniteError  # noqa: E402

DEFAULT_KIT = os.path.join(os.path.dirname(REPO), "shared", "tpch")
CHUNK = 4 << 20


def load_kit_tools(kit):
    """Imports the kit's tools/load_and_check.py (split, parse, compare, peers)."""
    path = os.path.join(kit, "tools", "load_and_check.py")
    spec = importlib.util.spec_from_file_location("tpch_kit_tools", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def data_folder(root, sf):
    return os.path.join(os.path.expanduser(root), "sf%s" % sf)


def ensure_data(kit_tools, folder, sf):
    """Generates the CSV files with tpchgen-cli unless they are all there."""
    if kit_tools.data_complete(folder):
        return 0.0
    venv_bin = os.path.dirname(sys.executable)
    os.environ["PATH"] = venv_bin + os.pathsep + os.environ.get("PATH", "")
    os.makedirs(os.path.dirname(folder), exist_ok=True)
    return kit_tools.generate(str(sf), folder, None)


def file_chunks(path):
    with open(path, "rb") as f:
        while True:
            chunk = f.read(CHUNK)
            if not chunk:
                return
            yield chunk


# A tuned layout, reported beside the schema as given: the two largest tables sharded by the order
# key they join on, so those joins run co-located on each worker.
SHARDED_BY_ORDER_KEY = {"lineitem": "l_orderkey", "orders": "o_orderkey"}


def with_sharding_key(statement, shard_keys):
    """Appends SETTINGS sharding_key to a CREATE TABLE of a table in `shard_keys`."""
    m = re.match(r"\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?`?(\w+)`?", statement, re.I)
    if not m or m.group(1).lower() not in shard_keys:
        return statement
    setting = "sharding_key = '%s'" % shard_keys[m.group(1).lower()]
    body = statement.rstrip().rstrip(";")
    if re.search(r"\bSETTINGS\b", body, re.I):
        return body + ", " + setting
    return body + " SETTINGS " + setting


def load_granite(client, kit, kit_tools, folder, shard_keys=None):
    """Creates the 8 tables from the kit's create.sql (with `shard_keys`, {table: column}, as
    sharding keys) and inserts the CSV files."""
    for table in kit_tools.TABLES:
        client.execute("DROP TABLE IF EXISTS %s" % table)
    with open(os.path.join(kit, "create.sql")) as f:
        for statement in kit_tools.split_statements(f.read()):
            client.execute(with_sharding_key(statement, shard_keys or {}))
    for table in kit_tools.TABLES:
        path = os.path.join(folder, table + ".csv")
        client.insert_stream("INSERT INTO %s FORMAT CSVWithNames" % table, file_chunks(path))


def run_granite(client_factory, statements, kit_tools, runs):
    """Runs one query file `runs` times in a fresh session each time; returns (best s, raw TSV)."""
    best, raw = None, None
    for _ in range(runs):
        client = client_factory()
        start = time.perf_counter()
        out = None
        for statement in statements:
            result = client.execute(statement, format="TabSeparatedWithNamesAndTypes")
            if kit_tools.is_select(statement):
                out = result.output.decode("utf-8")
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
        raw = out
    return best, raw


def query_files(kit, only):
    names = sorted(f for f in os.listdir(os.path.join(kit, "queries")) if re.match(r"q\d\d\.sql$", f))
    if only:
        wanted = {int(x) for x in only.split(",")}
        names = [n for n in names if int(n[1:3]) in wanted]
    return names


def check_against(kit_tools, expected_raw, actual_raw, statements):
    """Returns (ok, detail) comparing two TabSeparatedWithNamesAndTypes outputs."""
    _, _, expected = kit_tools.parse_ch_tsv(expected_raw)
    _, _, actual = kit_tools.parse_ch_tsv(actual_raw)
    ordered = kit_tools.has_top_order_by(statements[-1])
    return kit_tools.compare(expected, actual, ordered)


class GraniteRun:
    """A `granite local` cluster with the data loaded: run(name) times one query file under every
    join mode."""

    def __init__(self, args, kit_tools, folder, workers):
        self.args, self.kit_tools = args, kit_tools
        granite = cluster.find_granite(args.granite)
        self.local = cluster.LocalCluster(granite, workers=workers)
        self.local.__enter__()
        self.port = self.local.port
        admin = Client(port=self.port, timeout=3600)
        start = time.perf_counter()
        load_granite(admin, args.kit, kit_tools, folder,
                     SHARDED_BY_ORDER_KEY if args.sharded else None)
        self.load_s = time.perf_counter() - start
        # Hot runs read settled parts, as the peers' do: time no query beside the load's merges.
        wait_for_merges(lambda sql: admin.execute(sql).output, 1800)

    def run(self, name, results):
        args = self.args
        with open(os.path.join(args.kit, "queries", name)) as f:
            statements = self.kit_tools.split_statements(f.read())
        for mode in args.join_modes.split(","):
            settings = {"distributed_join_mode": mode}
            factory = lambda: Client(port=self.port, session_id=str(uuid.uuid4()),
                                     timeout=args.timeout, settings=settings)
            try:
                seconds, raw = run_granite(factory, statements, self.kit_tools, args.runs)
                results[(mode, name)] = {"seconds": seconds, "raw": raw, "statements": statements}
            except GraniteError as e:
                results[(mode, name)] = {
                    "error": "%s %s" % (e.code, str(e).splitlines()[0][:160]),
                    "statements": statements}

    def close(self):
        self.local.__exit__(None, None, None)


class Peers:
    """chdb and DuckDB loaded with the same data: run(name) times one query file on each."""

    def __init__(self, args, kit_tools, folder):
        self.args, self.kit_tools = args, kit_tools
        self.sess = self.con = None
        if "chdb" in args.peers:
            from chdb import session
            import tempfile
            self.sess = session.Session(tempfile.mkdtemp(prefix="tpch-chdb-"))
            kit_tools.load_chdb(self.sess, args.kit, folder)
        if "duckdb" in args.peers:
            import duckdb
            if args.duckdb_db != ":memory:" and os.path.exists(args.duckdb_db):
                os.remove(args.duckdb_db)
            self.con = duckdb.connect(args.duckdb_db)
            if args.duckdb_memory_limit:
                self.con.execute("SET memory_limit = '%s'" % args.duckdb_memory_limit)
            kit_tools.load_duckdb(self.con, args.kit, folder)

    def run(self, name, peers):
        args, kit_tools = self.args, self.kit_tools
        if self.sess is not None:
            statements = kit_tools.split_statements(
                open(os.path.join(args.kit, "queries", name)).read())
            peers.setdefault(name, {})["chdb"] = kit_tools.run_chdb(self.sess, statements,
                                                                    args.runs)
        if self.con is not None:
            statements = kit_tools.split_statements(
                open(os.path.join(args.kit, "duckdb-queries", name)).read())
            seconds, _ = kit_tools.run_duckdb(self.con, statements, args.runs)
            peers.setdefault(name, {})["duckdb"] = (seconds, None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kit", default=DEFAULT_KIT)
    parser.add_argument("--sf", default="0.1")
    parser.add_argument("--data-root", default="~/.cache/granite/tpch")
    parser.add_argument("--granite", default=None, help="path of the granite binary")
    parser.add_argument("--workers", default="1,3")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--sharded", action="store_true",
                        help="tuned layout: lineitem and orders sharded by the order key")
    parser.add_argument("--only", default="")
    parser.add_argument("--peers", default="", help="chdb,duckdb: run them in the same run")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--join-modes", default="auto",
                        help="distributed_join_mode values to run granite under, one column each")
    parser.add_argument("--duckdb-db", default=":memory:",
                        help="DuckDB's database: ':memory:', or a file (SF 10 on a small machine)")
    parser.add_argument("--duckdb-memory-limit", default="",
                        help="DuckDB's memory_limit (default: DuckDB's own, 80%% of RAM)")
    parser.add_argument("--interleave", action="store_true",
                        help="load every engine, then run each query on each in turn (one "
                             "--workers value): a shared machine's load falls on all alike")
    parser.add_argument("--report", default="")
    parser.add_argument("--known-failures", default="",
                        help="file of 'qNN reason' lines: exit 0 only when exactly these fail")
    args = parser.parse_args()
    if not os.path.isdir(args.kit):
        print("TPC-H kit not found at %s (--kit): skipped" % args.kit)
        return 77
    kit_tools = load_kit_tools(args.kit)
    folder = data_folder(args.data_root, args.sf)
    gen_s = ensure_data(kit_tools, folder, args.sf)
    files = query_files(args.kit, args.only)
    answers = os.path.join(args.kit, "answers", "sf%s" % args.sf)
    load_at_start = os.getloadavg()[0]
    peers = {}
    worker_counts = [int(w) for w in args.workers.split(",")]
    runs = {}
    if args.interleave:
        # Every engine loaded first, then each query on each engine in turn: the load of a shared
        # machine falls on all of them alike.
        granite = GraniteRun(args, kit_tools, folder, worker_counts[0])
        engines = Peers(args, kit_tools, folder)
        results = {}
        for name in files:
            granite.run(name, results)
            engines.run(name, peers)
            print("ran %s" % name, flush=True)
        granite.close()
        runs[worker_counts[0]] = (granite.load_s, results)
    else:
        engines = Peers(args, kit_tools, folder)
        for name in files:
            engines.run(name, peers)
    lines = ["# TPC-H SF %s: granite vs peers" % args.sf, "",
             "Command: `%s`" % " ".join(sys.argv), "",
             "data generated in %.1f s (0 = cached) in %s" % (gen_s, folder), "",
             "load average (1 min): %.1f at the start, %.1f at the end" % (
                 load_at_start, os.getloadavg()[0]), ""]
    failures = 0
    failed = set()
    for workers in worker_counts:
        if workers in runs:
            load_s, results = runs[workers]
        else:
            granite = GraniteRun(args, kit_tools, folder, workers)
            results = {}
            for name in files:
                granite.run(name, results)
            granite.close()
            load_s = granite.load_s
        modes = args.join_modes.split(",")
        named = modes != ["auto"]
        lines += ["## %d worker(s): load %.1f s" % (workers, load_s), "",
                  "| query | %s | chdb s | duckdb s | answer |" % " | ".join(
                      "granite %s s" % m if named else "granite s" for m in modes),
                  "|---|" + "---|" * (len(modes) + 3)]
        for name in files:
            peer = peers.get(name, {})
            expected_path = os.path.join(answers, name.replace(".sql", ".tsv"))
            expected = open(expected_path).read() if os.path.isfile(expected_path) else (
                peer.get("chdb", (None, None))[1])
            verdicts = []
            for mode in modes:
                r = results[(mode, name)]
                if "error" in r:
                    verdict = "error: " + r["error"]
                elif expected is None:
                    verdict = "unchecked"
                else:
                    ok, detail = check_against(kit_tools, expected, r["raw"], r["statements"])
                    verdict = "ok" if ok else "WRONG: " + detail
                verdicts.append(verdict if not named or verdict == "ok" else mode + ": " + verdict)
            verdict = "ok" if all(v == "ok" for v in verdicts) else "; ".join(
                v for v in verdicts if v != "ok")
            failures += verdict != "ok"
            if verdict != "ok":
                failed.add(name[:3])
            fmt = lambda v: "%.3f" % v if v is not None else "-"
            lines.append("| %s | %s | %s | %s | %s |" % (
                name[:3], " | ".join(fmt(results[(m, name)].get("seconds")) for m in modes),
                fmt(peer.get("chdb", (None,))[0]), fmt(peer.get("duckdb", (None,))[0]), verdict))
            print("workers=%d %s %s" % (workers, name, verdict), flush=True)
        lines.append("")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text)
    if args.known_failures:
        known = set()
        with open(args.known_failures) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    known.add(line.split()[0])
        ran = {name[:3] for name in files}
        unexpected = sorted(failed - known)
        fixed = sorted((known & ran) - failed)
        if unexpected:
            print("FAILED: queries that should pass: %s" % ", ".join(unexpected))
        if fixed:
            print("FAILED: queries now pass; remove them from %s: %s" % (args.known_failures,
                                                                          ", ".join(fixed)))
        return 1 if unexpected or fixed else 0
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
