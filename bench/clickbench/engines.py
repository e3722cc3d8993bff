"""The engines the ClickBench tools drive, behind one small interface, and the data set-up they share.

Engines (each: create(sql), load(path), query(sql) -> (output bytes, seconds), size_bytes(), close()):
  GraniteEngine  `granite local --workers N` on loopback, driven over gRPC by granite_client;
                 loads TabSeparated by streaming the file into INSERT INTO hits FORMAT TabSeparated
  ChdbEngine     chdb (ClickHouse in-process) in a Session with its own temporary path; loads
                 TabSeparated with INSERT ... SELECT FROM file(path, TabSeparated, <table schema>)
  DuckdbEngine   DuckDB with a database file; loads CSV with read_csv and explicit column types,
                 delimiter ',', quote and escape '"', and quoted "" read as '' (not NULL)

The benchmark files (create.sql, queries.sql, duckdb-*.sql) are read from the ClickBench folder given
on the command line (default ../shared/clickbench beside the repository); they are never copied.
Every engine runs with TZ=UTC so DateTime values print the same everywhere.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

os.environ["TZ"] = "UTC"

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_CLICKBENCH = os.path.join(os.path.dirname(REPO_ROOT), "shared", "clickbench")
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "harness"))
sys.path.insert(0, os.path.join(REPO_ROOT, "client", "python"))

import cluster  # noqa: E402  (tests/harness/cluster.py: LocalCluster)


class EngineError(Exception):
    """Raises when an engine cannot run a statement; str() is the engine's own message."""


def read_queries(clickbench_dir, name="queries.sql"):
    """Returns the queries of a ClickBench query file, one per non-empty line, in order."""
    with open(os.path.join(clickbench_dir, name), encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip()]


def read_statement(clickbench_dir, name):
    """Returns a one-statement SQL file without its final ';' and trailing comments."""
    with open(os.path.join(clickbench_dir, name), encoding="utf-8") as f:
        return strip_statement(f.read())


def strip_statement(sql):
    """Drops a final ';' and any '--' comments after it (the statement itself is unchanged)."""
    text = sql.rstrip()
    semicolon = _last_top_level_semicolon(text)
    if semicolon is not None and all(not line.strip() or line.strip().startswith("--")
                                     for line in text[semicolon + 1:].split("\n")):
        text = text[:semicolon]
    return text.rstrip()


def _last_top_level_semicolon(text):
    quote = None
    last = None
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "'\"`":
            quote = c
        elif text.startswith("--", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        elif c == ";":
            last = i
        i += 1
    return last


def generate(granite_argv, rows, seed, fmt, path):
    """Runs `granite gen hits` into path; returns the seconds it took. Raises EngineError."""
    start = time.monotonic()
    with open(path, "wb") as out:
        proc = subprocess.run(granite_argv + ["gen", "hits", "--rows", str(rows), "--seed",
                                              str(seed), "--format", fmt],
                              stdout=out, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise EngineError("granite gen failed (exit %d): %s" % (
            proc.returncode, proc.stderr.decode("utf-8", "replace").strip()))
    return time.monotonic() - start


def dir_size(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total


def wait_for_merges(run, limit):
    """Polls `SELECT count() FROM system.merges` through run(sql) -> bytes until it reads 0 twice
    in a row (or `limit` seconds pass); returns the seconds waited."""
    start = time.monotonic()
    quiet = 0
    while quiet < 2 and time.monotonic() - start < limit:
        out = run("SELECT count() FROM system.merges")
        text = out.decode() if isinstance(out, bytes) else str(out)
        quiet = quiet + 1 if text.strip() in ("0", "") else 0
        if quiet < 2:
            time.sleep(1.0)
    return time.monotonic() - start


class GraniteEngine:
    """A `granite local` cluster and a gRPC client to it."""

    name = "granite"

    def __init__(self, granite_argv, workers=2, data_dir=None, timeout=300):
        import granite_client
        self._errors = (granite_client.GraniteError,)
        self.granite_argv = list(granite_argv)
        self.workers = workers
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="granite-bench-")
        self.timeout = timeout
        self._cluster = None
        self._client = None
        self.restarts = 0
        self._start()

    def _start(self):
        self._cluster = cluster.LocalCluster(self.granite_argv, workers=self.workers,
                                             data_dir=self.data_dir, keep_data=True).start()
        self._client = self._cluster.client(timeout=self.timeout)
        self._client.wait_ready(30)

    def alive(self):
        return self._cluster is not None and self._cluster.process.alive()

    def log_tail(self, n=20):
        return self._cluster.log_tail(n) if self._cluster else ""

    def restart(self):
        """Restarts the cluster on the same data folder (after a crash)."""
        self.restarts += 1
        if self._client:
            self._client.close()
        if self._cluster:
            self._cluster.stop()
        self._start()

    def _run(self, fn):
        try:
            return fn()
        except self._errors as e:
            raise EngineError(str(e)) from None

    def create(self, sql):
        self._run(lambda: self._client.query(sql))

    def load(self, path, chunk=1 << 20, table="hits"):
        """Streams the TSV file `path` into `table`; returns the seconds it took."""
        def chunks():
            with open(path, "rb") as f:
                while True:
                    block = f.read(chunk)
                    if not block:
                        return
                    yield block
        start = time.monotonic()
        self._run(lambda: self._client.insert_stream("INSERT INTO %s FORMAT TabSeparated" % table,
                                                     chunks(), timeout=max(self.timeout, 3600)))
        return time.monotonic() - start

    def query(self, sql, fmt="TabSeparated", timeout=None):
        start = time.monotonic()
        out = self._run(lambda: self._client.query(sql, format=fmt, timeout=timeout))
        return out, time.monotonic() - start

    def settle(self, limit=900):
        """Waits until no background merge runs (two polls in a row); returns the seconds waited."""
        return wait_for_merges(lambda sql: self.query(sql)[0], limit)

    def size_bytes(self):
        return dir_size(self.data_dir)

    def close(self, keep=False):
        if self._client:
            self._client.close()
        if self._cluster:
            self._cluster.stop()
        if not keep:
            shutil.rmtree(self.data_dir, ignore_errors=True)


class ChdbEngine:
    """chdb in a Session whose data lives in a temporary folder."""

    name = "chdb"

    def __init__(self, path=None):
        from chdb import session
        self.path = path or tempfile.mkdtemp(prefix="chdb-bench-")
        self._session = session.Session(self.path)

    def _run(self, sql, fmt="TabSeparated"):
        try:
            result = self._session.query(sql, fmt)
        except Exception as e:  # chdb raises plain RuntimeError-like exceptions
            raise EngineError(str(e).strip()) from None
        if result is None:
            return b""
        if hasattr(result, "has_error") and result.has_error():
            raise EngineError(result.error_message())
        return result.bytes()

    def create(self, sql):
        self._run(sql)

    def columns(self):
        """Returns [(name, type)] of table hits."""
        out = self._run("SELECT name, type FROM system.columns WHERE database = currentDatabase() "
                        "AND table = 'hits' ORDER BY position")
        return [tuple(line.split("\t")) for line in out.decode().splitlines()]

    def load(self, path):
        structure = ", ".join("%s %s" % c for c in self.columns())
        start = time.monotonic()
        self._run("INSERT INTO hits SELECT * FROM file('%s', 'TabSeparated', '%s')" % (
            path.replace("'", "\\'"), structure))
        return time.monotonic() - start

    def query(self, sql, fmt="TabSeparated", timeout=None):
        start = time.monotonic()
        out = self._run(sql, fmt)
        return out, time.monotonic() - start

    def settle(self, limit=900):
        """Waits until no background merge runs (two polls in a row); returns the seconds waited."""
        return wait_for_merges(self._run, limit)

    def size_bytes(self):
        out = self._run("SELECT sum(bytes_on_disk) FROM system.parts WHERE database = "
                        "currentDatabase() AND table = 'hits' AND active")
        return int(out.decode().strip() or 0)

    def close(self, keep=False):
        try:
            self._session.close()
        except Exception:
            pass
        if not keep:
            shutil.rmtree(self.path, ignore_errors=True)


class DuckdbEngine:
    """DuckDB with a database file in a temporary folder."""

    name = "duckdb"

    def __init__(self, path=None):
        import duckdb
        self._duckdb = duckdb
        self.dir = path or tempfile.mkdtemp(prefix="duckdb-bench-")
        os.makedirs(self.dir, exist_ok=True)
        self.db_path = os.path.join(self.dir, "hits.duckdb")
        self._con = duckdb.connect(self.db_path)

    def _run(self, sql):
        try:
            return self._con.execute(sql).fetchall()
        except self._duckdb.Error as e:
            raise EngineError(str(e).strip()) from None

    def create(self, sql):
        # A database file kept by an earlier run (--keep) still holds hits: creating means
        # loading afresh, as the other engines do.
        self._run("DROP TABLE IF EXISTS hits")
        self._run(sql)

    def load(self, path):
        cols = self._run("SELECT column_name, data_type FROM information_schema.columns "
                         "WHERE table_name = 'hits' ORDER BY ordinal_position")
        spec = ", ".join("'%s': '%s'" % (name, dtype) for name, dtype in cols)
        start = time.monotonic()
        self._run("INSERT INTO hits SELECT * FROM read_csv('%s', header = false, delim = ',', "
                  "quote = '\"', escape = '\"', allow_quoted_nulls = false, auto_detect = false, "
                  "columns = {%s})" % (path.replace("'", "''"), spec))
        self._run("CHECKPOINT")
        return time.monotonic() - start

    def query(self, sql, fmt=None, timeout=None):
        start = time.monotonic()
        rows = self._run(sql)
        return rows, time.monotonic() - start

    def settle(self, limit=900):
        """DuckDB has no background merges; CHECKPOINT at the end of load() wrote everything."""
        return 0.0

    def size_bytes(self):
        return dir_size(self.dir)

    def close(self, keep=False):
        self._con.close()
        if not keep:
            shutil.rmtree(self.dir, ignore_errors=True)
