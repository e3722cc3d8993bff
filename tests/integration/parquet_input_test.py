#!/usr/bin/env python3
"""Issue 24 (formats): INSERT ... FORMAT Parquet reads what real writers produce.

- One table with every granite type and edge values (integer limits, NaN and infinities, empty
  and non-ASCII strings, NULLs, decimals of three widths, timestamps of three units, UUIDs,
  nested and NULL-holding arrays) is written by pyarrow with each page codec (none, snappy,
  gzip, brotli, zstd, lz4), data pages v1 and v2, with and without dictionaries, with the DELTA
  and BYTE_STREAM_SPLIT encodings, in tiny pages and row groups, with INT96 timestamps and with
  integer-stored decimals; by ClickHouse (chdb), by DuckDB and by granite itself. Each file is
  inserted into granite and read back, and must equal ClickHouse reading the same file with the
  same structure (chdb's file() table function), on 1 and 3 workers.
- Columns map by name: file columns the table lacks are skipped (a struct among them too), table
  columns the file lacks take their DEFAULT; a needed struct is UNKNOWN_TYPE (50).
- A NULL into a column that is not Nullable is its default, or refused with
  input_format_null_as_default = 0.
- A corrupt file (truncated, bad magic, damaged pages) is refused with INCORRECT_DATA (117) or
  CANNOT_DECOMPRESS (271) and inserts nothing.
- The HTTP interface takes a Parquet body like ClickHouse's.
Skipped without pyarrow; the comparisons need chdb (scripts/make-venv.sh --bench).
"""

import datetime
import decimal
import io
import os
import random
import shutil
import sys
import tempfile
import unittest
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

try:
    import pyarrow
    import pyarrow.parquet
except ImportError:
    pyarrow = None

try:
    import chdb
except ImportError:
    chdb = None

STRUCTURE = ("k UInt32, i8 Int8, u8 UInt8, i16 Int16, u16 UInt16, u32 UInt32, i64 Int64, "
             "u64 UInt64, f32 Float32, f64 Nullable(Float64), s String, ns Nullable(String), "
             "fs FixedString(4), d Date, t3 DateTime64(3, 'UTC'), t6 DateTime64(6, 'UTC'), "
             "t9 DateTime64(9, 'UTC'), d9 Decimal(9, 2), d18 Decimal(18, 4), "
             "d38 Decimal(38, 10), b Bool, uu UUID, a Array(Int64), an Array(Nullable(String)), "
             "aa Array(Array(Int32)), cat String")
ROWS = 600


def sample_table(rows=ROWS, seed=7):
    """A pyarrow table of STRUCTURE's columns with edge values in the first rows."""
    rnd = random.Random(seed)
    edge_i64 = [0, -1, 1, -2**63, 2**63 - 1]
    edge_f = [0.0, -0.0, float("nan"), float("inf"), float("-inf"), 1e-300, 1.5]
    words = ["", "a", "ünïcödé", "tab\there", "x" * 300, "line\nbreak"]

    def pick(edges, make):
        return [edges[i] if i < len(edges) else make() for i in range(rows)]

    def maybe(value, p=0.2):
        return None if rnd.random() < p else value

    cols = {
        "k": pyarrow.array(range(rows), pyarrow.uint32()),
        "i8": pyarrow.array(pick([-128, 127, 0], lambda: rnd.randint(-128, 127)), pyarrow.int8()),
        "u8": pyarrow.array(pick([0, 255], lambda: rnd.randint(0, 255)), pyarrow.uint8()),
        "i16": pyarrow.array(pick([-32768, 32767], lambda: rnd.randint(-32768, 32767)),
                             pyarrow.int16()),
        "u16": pyarrow.array(pick([65535], lambda: rnd.randint(0, 65535)), pyarrow.uint16()),
        "u32": pyarrow.array(pick([2**32 - 1, 0], lambda: rnd.randint(0, 2**32 - 1)),
                             pyarrow.uint32()),
        "i64": pyarrow.array(pick(edge_i64, lambda: rnd.randint(-2**40, 2**40)), pyarrow.int64()),
        "u64": pyarrow.array(pick([2**64 - 1, 0], lambda: rnd.randint(0, 2**64 - 1)),
                             pyarrow.uint64()),
        "f32": pyarrow.array(pick(edge_f, lambda: rnd.uniform(-1e6, 1e6)), pyarrow.float32()),
        "f64": pyarrow.array(pick(edge_f + [None], lambda: maybe(rnd.uniform(-1e9, 1e9))),
                             pyarrow.float64()),
        "s": pyarrow.array(pick(words, lambda: rnd.choice(words) + str(rnd.randint(0, 99)))),
        "ns": pyarrow.array(pick([None] + words, lambda: maybe(rnd.choice(words)))),
        "fs": pyarrow.array(pick([b"\0\0\0\0", b"abcd"], lambda: bytes(rnd.randrange(256)
                                                                      for _ in range(4))),
                            pyarrow.binary(4)),
        "d": pyarrow.array(pick([datetime.date(1970, 1, 1), datetime.date(2149, 6, 6)],
                                lambda: datetime.date(1970, 1, 1) +
                                datetime.timedelta(days=rnd.randint(0, 60000))),
                           pyarrow.date32()),
        "t3": pyarrow.array(pick([0], lambda: rnd.randint(0, 4 * 10**12)), pyarrow.timestamp("ms")),
        "t6": pyarrow.array(pick([0, 1], lambda: rnd.randint(0, 4 * 10**15)),
                            pyarrow.timestamp("us", tz="UTC")),
        "t9": pyarrow.array(pick([0, 999999999], lambda: rnd.randint(0, 4 * 10**18)),
                            pyarrow.timestamp("ns")),
        "d9": pyarrow.array(pick([decimal.Decimal("9999999.99"), decimal.Decimal("-0.01")],
                                 lambda: decimal.Decimal(rnd.randint(-10**9 + 1, 10**9 - 1))
                                 .scaleb(-2)), pyarrow.decimal128(9, 2)),
        "d18": pyarrow.array(pick([decimal.Decimal("-99999999999999.9999")],
                                  lambda: decimal.Decimal(rnd.randint(-10**17, 10**17)).scaleb(-4)),
                             pyarrow.decimal128(18, 4)),
        "d38": pyarrow.array(pick([decimal.Decimal(10**28 - 1).scaleb(-10)],
                                  lambda: decimal.Decimal(rnd.randint(-10**37, 10**37))
                                  .scaleb(-10)),
                             pyarrow.decimal128(38, 10)),
        "b": pyarrow.array(pick([True, False], lambda: rnd.random() < 0.5)),
        "uu": pyarrow.array(pick([b"\0" * 16, bytes(range(16))],
                                 lambda: bytes(rnd.randrange(256) for _ in range(16))),
                            pyarrow.uuid()),
        "a": pyarrow.array(pick([[], None, [2**63 - 1, -2**63]],
                                lambda: [rnd.randint(-9, 9) for _ in range(rnd.randint(0, 4))]),
                           pyarrow.list_(pyarrow.int64())),
        "an": pyarrow.array(pick([[None], [], ["", None, "z"]],
                                 lambda: [maybe(rnd.choice(words))
                                          for _ in range(rnd.randint(0, 3))]),
                            pyarrow.list_(pyarrow.string())),
        "aa": pyarrow.array(pick([[[]], [], [[1], [], [2, 3]], None],
                                 lambda: [[rnd.randint(0, 5) for _ in range(rnd.randint(0, 2))]
                                          for _ in range(rnd.randint(0, 3))]),
                            pyarrow.list_(pyarrow.list_(pyarrow.int32()))),
        "cat": pyarrow.array(pick([], lambda: rnd.choice(["red", "green", "blue"])))
        .dictionary_encode(),
    }
    return pyarrow.table(cols)


def write(table, **options):
    sink = io.BytesIO()
    pyarrow.parquet.write_table(table, sink, **options)
    return sink.getvalue()


DELTA = {"k": "DELTA_BINARY_PACKED", "i64": "DELTA_BINARY_PACKED", "u32": "DELTA_BINARY_PACKED",
         "s": "DELTA_BYTE_ARRAY", "ns": "DELTA_LENGTH_BYTE_ARRAY", "f32": "BYTE_STREAM_SPLIT",
         "f64": "BYTE_STREAM_SPLIT"}

WRITERS = [
    ("pyarrow default (snappy, dictionary, v1)", {}),
    ("no compression, v2", {"compression": "none", "data_page_version": "2.0"}),
    ("gzip", {"compression": "gzip"}),
    ("brotli, v2", {"compression": "brotli", "data_page_version": "2.0"}),
    ("zstd, no dictionary", {"compression": "zstd", "use_dictionary": False}),
    ("lz4, v2, no dictionary", {"compression": "lz4", "data_page_version": "2.0",
                                "use_dictionary": False}),
    ("delta and byte-stream-split encodings", {"use_dictionary": False, "column_encoding": DELTA,
                                               "data_page_version": "2.0"}),
    ("tiny pages and row groups", {"data_page_size": 64, "row_group_size": 37,
                                   "write_batch_size": 10}),
    ("INT96 timestamps", {"use_deprecated_int96_timestamps": True}),
    ("decimals stored as integers", {"store_decimal_as_integer": True}),
]


class ParquetInputTest(unittest.TestCase):
    workers = 1

    @classmethod
    def setUpClass(cls):
        if pyarrow is None:
            raise unittest.SkipTest("pyarrow is not in the venv (scripts/make-venv.sh)")
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=cls.workers).start()
        cls.client = cls.cluster.client(timeout=120)
        cls.tmp = tempfile.mkdtemp(prefix="parquet-input-")
        cls.table = sample_table()
        cls.client.query("CREATE TABLE every (%s) ENGINE = MergeTree ORDER BY k" % STRUCTURE)

    @classmethod
    def tearDownClass(cls):
        cls.cluster.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def insert(self, table, data, settings=None):
        self.client.query("TRUNCATE TABLE " + table)
        self.client.query("INSERT INTO %s FORMAT Parquet" % table, input_data=data,
                          settings=settings)

    def clickhouse_reads(self, data, structure=STRUCTURE, order="k"):
        path = os.path.join(self.tmp, "file.parquet")
        with open(path, "wb") as f:
            f.write(data)
        return chdb.query("SELECT * FROM file('%s', Parquet, '%s') ORDER BY %s"
                          % (path, structure.replace("'", "\\'"), order), "TSV").bytes()

    def assert_reads_as_clickhouse(self, data, what):
        self.insert("every", data)
        got = self.client.query("SELECT * FROM every ORDER BY k", format="TSV")
        self.assertEqual(got.count(b"\n"), ROWS, what)
        if chdb is None:
            return got
        want = self.clickhouse_reads(data)
        if got != want:
            for g, w in zip(got.split(b"\n"), want.split(b"\n")):
                self.assertEqual(g, w, what)
        self.assertEqual(got, want, what)
        return got

    def test_pyarrow_writers(self):
        for what, options in WRITERS:
            with self.subTest(what):
                self.assert_reads_as_clickhouse(write(self.table, **options), what)

    def test_clickhouse_duckdb_and_granite_writers(self):
        source = write(self.table)
        reference = self.assert_reads_as_clickhouse(source, "pyarrow")
        # granite's own Parquet output of the table, read back.
        mine = self.client.query("SELECT * FROM every ORDER BY k", format="Parquet")
        self.assertEqual(self.assert_reads_as_clickhouse(mine, "granite"), reference)
        path = os.path.join(self.tmp, "source.parquet")
        with open(path, "wb") as f:
            f.write(source)
        if chdb is not None:
            theirs = chdb.query("SELECT * FROM file('%s', Parquet, '%s')"
                                % (path, STRUCTURE.replace("'", "\\'")), "Parquet").bytes()
            self.assertEqual(self.assert_reads_as_clickhouse(theirs, "ClickHouse"), reference)
        try:
            import duckdb
        except ImportError:
            return
        duck_path = os.path.join(self.tmp, "duck.parquet")
        duckdb.connect().execute("COPY (SELECT * FROM read_parquet('%s')) TO '%s' (FORMAT PARQUET)"
                                 % (path, duck_path))
        with open(duck_path, "rb") as f:
            self.assertEqual(self.assert_reads_as_clickhouse(f.read(), "DuckDB"), reference)

    def test_many_row_groups(self):
        self.client.query("CREATE TABLE IF NOT EXISTS big (n UInt64, s String) "
                          "ENGINE = MergeTree ORDER BY n")
        n = 200_000
        table = pyarrow.table({"n": pyarrow.array(range(n), pyarrow.uint64()),
                               "s": pyarrow.array([str(i % 1000) for i in range(n)])})
        self.insert("big", write(table, row_group_size=7000))
        self.assertEqual(self.client.query("SELECT count(), sum(n), uniqExact(s) FROM big",
                                           format="TSV"),
                         b"%d\t%d\t1000\n" % (n, n * (n - 1) // 2))

    def test_columns_map_by_name(self):
        self.client.query("CREATE TABLE IF NOT EXISTS named (k UInt32, x String DEFAULT 'def', "
                          "y Nullable(Int64), z UInt8 DEFAULT k + 1) ENGINE = MergeTree ORDER BY k")
        table = pyarrow.table({
            "extra": pyarrow.array([{"p": 1}, {"p": 2}]),  # a struct the table lacks: skipped
            "y": pyarrow.array([None, 5]),
            "k": pyarrow.array([2, 1], pyarrow.int64())})
        self.insert("named", write(table))
        self.assertEqual(self.client.query("SELECT * FROM named ORDER BY k", format="TSV"),
                         b"1\tdef\t5\t2\n2\tdef\t\\N\t3\n")
        needed = pyarrow.table({"k": pyarrow.array([{"p": 1}])})
        with self.assertRaises(Exception) as failure:
            self.insert("named", write(needed))
        self.assertEqual(failure.exception.code, 70, failure.exception)  # CANNOT_CONVERT_TYPE
        self.assertIn("STRUCT", str(failure.exception))
        # insert() truncated the table first; the refused insert added nothing
        self.assertEqual(self.client.query("SELECT count() FROM named", format="TSV"), b"0\n")

    def test_structs_and_maps(self):
        # A required STRUCT group fills a Tuple column, a MAP group a Map column; pyarrow's,
        # ClickHouse's and granite's own files read the same.
        self.client.query("CREATE TABLE IF NOT EXISTS compound (k UInt32, "
                          "t Tuple(a UInt8, b Nullable(String)), m Map(String, Array(UInt64))) "
                          "ENGINE = MergeTree ORDER BY k")
        struct = pyarrow.struct([pyarrow.field("a", pyarrow.uint8(), False),
                                 ("b", pyarrow.string())])
        kind = pyarrow.map_(pyarrow.string(), pyarrow.list_(pyarrow.uint64()))
        table = pyarrow.table({
            "k": pyarrow.array([1, 2, 3], pyarrow.uint32()),
            "t": pyarrow.array([{"a": 1, "b": "x"}, {"a": 2, "b": None}, {"a": 3, "b": "it's"}],
                               struct),
            "m": pyarrow.array([[("p", [1, 2])], [], [("q", []), ("r", [3])]], kind)})
        table = table.cast(pyarrow.schema([table.schema.field("k"),
                                           pyarrow.field("t", struct, False),
                                           pyarrow.field("m", kind, False)]))
        want = (b"1\t(1,'x')\t{'p':[1,2]}\n2\t(2,NULL)\t{}\n"
                b"3\t(3,'it\\'s')\t{'q':[],'r':[3]}\n")
        self.insert("compound", write(table))
        self.assertEqual(self.client.query("SELECT * FROM compound ORDER BY k", format="TSV"),
                         want)
        mine = self.client.query("SELECT * FROM compound ORDER BY k", format="Parquet")
        self.insert("compound", mine)
        self.assertEqual(self.client.query("SELECT * FROM compound ORDER BY k", format="TSV"),
                         want)
        if chdb is not None:
            theirs = chdb.query("SELECT toUInt32(9) AS k, CAST((9, 'c') AS "
                                "Tuple(a UInt8, b Nullable(String))) AS t, "
                                "map('s', [9]) AS m", "Parquet").bytes()
            self.insert("compound", theirs)
            self.assertEqual(self.client.query("SELECT * FROM compound", format="TSV"),
                             b"9\t(9,'c')\t{'s':[9]}\n")

    def test_lists_of_structs(self):
        # A required LIST of required STRUCTs fills an Array(Tuple(...)) column; pyarrow's,
        # ClickHouse's and granite's own files read the same.
        self.client.query("CREATE TABLE IF NOT EXISTS tuple_lists (k UInt32, "
                          "c Array(Tuple(a UInt8, b Nullable(String)))) "
                          "ENGINE = MergeTree ORDER BY k")
        struct = pyarrow.struct([pyarrow.field("a", pyarrow.uint8(), False),
                                 ("b", pyarrow.string())])
        kind = pyarrow.list_(pyarrow.field("element", struct, False))
        table = pyarrow.table({
            "k": pyarrow.array([1, 2], pyarrow.uint32()),
            "c": pyarrow.array([[{"a": 1, "b": "x"}, {"a": 2, "b": None}], []], kind)})
        table = table.cast(pyarrow.schema([table.schema.field("k"),
                                           pyarrow.field("c", kind, False)]))
        want = b"1\t[(1,'x'),(2,NULL)]\n2\t[]\n"
        self.insert("tuple_lists", write(table))
        self.assertEqual(self.client.query("SELECT * FROM tuple_lists ORDER BY k", format="TSV"),
                         want)
        mine = self.client.query("SELECT * FROM tuple_lists ORDER BY k", format="Parquet")
        self.client.query("TRUNCATE TABLE tuple_lists")
        self.insert("tuple_lists", mine)
        self.assertEqual(self.client.query("SELECT * FROM tuple_lists ORDER BY k", format="TSV"),
                         want)
        if chdb is not None:
            theirs = chdb.query("SELECT toUInt32(9) AS k, CAST([(9, 'c')] AS "
                                "Array(Tuple(a UInt8, b Nullable(String)))) AS c",
                                "Parquet").bytes()
            self.insert("tuple_lists", theirs)
            self.assertEqual(self.client.query("SELECT c FROM tuple_lists WHERE k = 9",
                                               format="TSV"), b"[(9,'c')]\n")

    def test_optional_groups_read_as_clickhouse_reads_them(self):
        # pyarrow marks every field OPTIONAL: a NULL struct reads as its fields' defaults, a NULL
        # map as {}, a NULL list as [], a NULL struct in a list as defaults; NULL fields of a
        # non-Nullable element as their defaults. The rows equal chdb's reading of the file.
        self.client.query("CREATE TABLE IF NOT EXISTS optional_groups (k UInt32, "
                          "t Tuple(a UInt8, b Nullable(String)), m Map(String, UInt64), "
                          "c Array(Tuple(a UInt8, b Nullable(String)))) "
                          "ENGINE = MergeTree ORDER BY k")
        struct = pyarrow.struct([("a", pyarrow.uint8()), ("b", pyarrow.string())])
        table = pyarrow.table({
            "k": pyarrow.array([1, 2, 3], pyarrow.uint32()),
            "t": pyarrow.array([{"a": 1, "b": "x"}, None, {"a": None, "b": None}], struct),
            "m": pyarrow.array([[("p", 1)], None, []],
                               pyarrow.map_(pyarrow.string(), pyarrow.uint64())),
            "c": pyarrow.array([[{"a": 1, "b": "x"}, None], None, []], pyarrow.list_(struct))})
        data = write(table)
        want = (b"1\t(1,'x')\t{'p':1}\t[(1,'x'),(0,NULL)]\n2\t(0,NULL)\t{}\t[]\n"
                b"3\t(0,NULL)\t{}\t[]\n")
        self.insert("optional_groups", data)
        self.assertEqual(self.client.query("SELECT * FROM optional_groups ORDER BY k",
                                           format="TSV"), want)
        if chdb is not None:
            path = os.path.join(tempfile.mkdtemp(), "optional.parquet")
            with open(path, "wb") as f:
                f.write(data)
            theirs = chdb.query("SELECT * FROM file('%s', Parquet, 'k UInt32, t Tuple(a UInt8, "
                                "b Nullable(String)), m Map(String, UInt64), c Array(Tuple(a "
                                "UInt8, b Nullable(String)))') ORDER BY k" % path, "TSV").bytes()
            self.assertEqual(theirs, want)

    def test_null_into_ordinary_column(self):
        self.client.query("CREATE TABLE IF NOT EXISTS plain (k UInt32, v Int32) "
                          "ENGINE = MergeTree ORDER BY k")
        data = write(pyarrow.table({"k": [1, 2], "v": [None, 4]}))
        self.insert("plain", data)
        self.assertEqual(self.client.query("SELECT * FROM plain ORDER BY k", format="TSV"),
                         b"1\t0\n2\t4\n")
        with self.assertRaises(Exception) as failure:
            self.insert("plain", data, settings={"input_format_null_as_default": "0"})
        self.assertEqual(failure.exception.code, 349, failure.exception)

    def test_corrupt_files_insert_nothing(self):
        self.client.query("CREATE TABLE IF NOT EXISTS guarded (n Int64, s String) "
                          "ENGINE = MergeTree ORDER BY n")
        good = write(pyarrow.table({"n": list(range(1000)), "s": ["v%d" % i for i in range(1000)]}),
                     compression="snappy", row_group_size=300)
        self.insert("guarded", good)
        rnd = random.Random(3)
        cases = [("empty", b""), ("bad magic", b"PAR0" + good[4:]),
                 ("truncated", good[:len(good) // 2]), ("footer only", good[-200:]),
                 ("huge footer length", good[:-8] + b"\xff\xff\xff\x7fPAR1")]
        for i in range(40):  # damaged bytes inside pages and metadata
            damaged = bytearray(good)
            for _ in range(1 + i % 4):
                damaged[rnd.randrange(4, len(good) - 8)] ^= 1 << rnd.randrange(8)
            cases.append(("flipped bits %d" % i, bytes(damaged)))
        for what, data in cases:
            with self.subTest(what):
                try:
                    self.client.query("INSERT INTO guarded FORMAT Parquet", input_data=data)
                except Exception as failure:  # noqa: BLE001 - granite_client.GraniteError
                    self.assertIn(failure.code, (117, 271, 50, 349), "%s: %s" % (what, failure))
                    self.assertEqual(self.client.query("SELECT count() FROM guarded",
                                                       format="TSV"), b"1000\n", what)
                else:
                    # A flipped bit can land in a value: the insert is then well-formed.
                    self.client.query("TRUNCATE TABLE guarded")
                    self.client.query("INSERT INTO guarded FORMAT Parquet", input_data=good)

    def test_http_body(self):
        self.client.query("CREATE TABLE IF NOT EXISTS web (k UInt32, s String) "
                          "ENGINE = MergeTree ORDER BY k")
        data = write(pyarrow.table({"k": [3, 1], "s": ["c", "a"]}))
        url = "http://127.0.0.1:%d/?%s" % (self.cluster.http_port, urllib.parse.urlencode(
            {"query": "INSERT INTO web FORMAT Parquet"}))
        urllib.request.urlopen(urllib.request.Request(url, data=data, method="POST"),
                               timeout=60).read()
        self.assertEqual(self.client.query("SELECT * FROM web ORDER BY k", format="TSV"),
                         b"1\ta\n3\tc\n")


class ParquetInputThreeWorkersTest(ParquetInputTest):
    workers = 3


if __name__ == "__main__":
    testmain.main([ParquetInputTest, ParquetInputThreeWorkersTest])
