#!/usr/bin/env python3
"""Issue 24 (formats): Arrow, ArrowStream and Parquet as ClickHouse writes and reads them.

- A result with every granite type and NULLs (integers, floats, String, FixedString, Date,
  DateTime, DateTime64 of several precisions and zones, Decimal32/64/128, Bool, UUID,
  Nullable(T), Array(T), NULL) in ArrowStream, Arrow and Parquet decodes with pyarrow to the
  same table (schema and values) as ClickHouse's output of the same query (chdb), on 1 and 3
  workers; so do the compressed variants and the binary-string setting.
- INSERT ... FORMAT ArrowStream / Arrow of ClickHouse's own Arrow bytes, and of pyarrow's and
  pandas' tables (int64 into UInt32, large_string, timestamp[ns]), round-trips.
- clickhouse-connect's query_arrow, query_arrow_stream, query_df_arrow, insert_arrow and
  insert_df_arrow work over the HTTP interface unchanged.
- Dictionary-encoded columns (pandas' categorical; int8 / int32 indexes, NULLs, replacement and
  delta dictionaries) insert as their values.
- An Arrow column of a type granite lacks (struct) is UNKNOWN_TYPE (50), as in ClickHouse.
Skipped without pyarrow; the chdb comparisons need chdb (scripts/make-venv.sh --bench).
"""

import io
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import grpc_case  # noqa: E402
import testmain  # noqa: E402

try:
    import pyarrow
    import pyarrow.compute
    import pyarrow.ipc
    import pyarrow.parquet
except ImportError:
    pyarrow = None

COLUMNS = ", ".join([
    "toUInt8(number) AS u8", "toUInt16(number * 1000) AS u16", "toUInt32(number) AS u32",
    "toUInt64(number) * 1000000000000 AS u64", "toInt8(-number) AS i8", "toInt16(-300) AS i16",
    "toInt32(number - 1) AS i32", "toInt64(number) - 5 AS i64", "toFloat32(number / 4) AS f32",
    "toFloat64(number) / 3 AS f64", "concat('s', toString(number)) AS s",
    "toFixedString(toString(number), 3) AS fs", "toDate('2020-01-02') + number AS d",
    "toDateTime('2020-01-02 03:04:05', 'UTC') + number AS dt",
    "toDateTime64('2020-01-02 03:04:05.123', 3, 'UTC') AS t3",
    "toDateTime64('2020-01-02 03:04:05.123456', 6, 'Europe/Moscow') AS t6",
    "toDateTime64('2020-01-02 03:04:05', 0, 'UTC') AS t0",
    "toDateTime64('2020-01-02 03:04:05.1234567', 7, 'Asia/Tokyo') AS t7",
    "toDecimal32(number, 2) / 4 AS d32", "toDecimal64(-2.5, 4) AS d64",
    "toDecimal128(number, 10) / 3 AS d128", "toBool(number % 2) AS b",
    "toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0') AS uu",
    "if(number = 1, NULL, toInt32(number)) AS ni",
    "if(number = 0, NULL, toString(number)) AS ns",
    "if(number = 2, NULL, toDate('2021-05-06')) AS nd",
    "range(number) AS a", "[range(number), [7]] AS aa",
    "['x', if(number = 1, NULL, 'y')] AS an", "CAST([], 'Array(String)') AS ae",
    "NULL AS nn"])
SAMPLE = "SELECT %s FROM numbers(3) ORDER BY u32" % COLUMNS

TABLE = ("CREATE TABLE every (u8 UInt8, u16 UInt16, u32 UInt32, u64 UInt64, i8 Int8, i16 Int16, "
         "i32 Int32, i64 Int64, f32 Float32, f64 Float64, s String, fs FixedString(3), d Date, "
         "dt DateTime('UTC'), t3 DateTime64(3, 'UTC'), t6 DateTime64(6, 'Europe/Moscow'), "
         "t0 DateTime64(0, 'UTC'), t7 DateTime64(7, 'Asia/Tokyo'), d32 Decimal(9, 2), "
         "d64 Decimal(18, 4), d128 Decimal(38, 10), b Bool, uu UUID, ni Nullable(Int32), "
         "ns Nullable(String), nd Nullable(Date), a Array(UInt64), aa Array(Array(UInt64)), "
         "an Array(Nullable(String)), ae Array(String)) ENGINE = MergeTree ORDER BY u32")
TABLE_SAMPLE = "SELECT * FROM every ORDER BY u32"


def read_arrow(data, fmt):
    if fmt == "Arrow":
        return pyarrow.ipc.open_file(pyarrow.BufferReader(data)).read_all()
    if fmt == "Parquet":
        return pyarrow.parquet.read_table(io.BytesIO(data))
    return pyarrow.ipc.open_stream(data).read_all()


def without(table, name):
    return table.drop_columns([name])


class ArrowFormatsTest(grpc_case.FormatsCase):
    workers = 1
    TABLES = (TABLE,)

    @classmethod
    def setUpClass(cls):
        if pyarrow is None:
            raise unittest.SkipTest("pyarrow is not in the venv (scripts/make-venv.sh)")
        super().setUpClass()

    def granite_table(self, fmt, query=SAMPLE, settings=None):
        return read_arrow(self.client.query(query, format=fmt, settings=settings), fmt)

    def assert_tables_equal(self, got, want, what):
        self.assertEqual(got.schema, want.schema, what)
        self.assertEqual(got.to_pylist(), want.to_pylist(), what)

    def assert_binary_strings_match(self, fmt, query):
        """With the *_string_as_string and *_fixed_string_as_fixed_byte_array settings off, String
        and FixedString are binary, as in ClickHouse's output (when chdb is there)."""
        prefix = "output_format_%s_" % ("parquet" if fmt == "Parquet" else "arrow")
        settings = {prefix + "string_as_string": "0",
                    prefix + "fixed_string_as_fixed_byte_array": "0"}
        binary = self.granite_table(fmt, query, settings=settings)
        self.assertEqual(binary.schema.field("s").type, pyarrow.binary())
        self.assertEqual(binary.schema.field("fs").type, pyarrow.binary())
        want = grpc_case.chdb_bytes(query + " SETTINGS " + ", ".join(
            "%s = %s" % kv for kv in settings.items()), fmt)
        if want is not None:
            self.assert_tables_equal(binary, read_arrow(want, fmt), fmt + " binary strings")

    def test_output_matches_clickhouse(self):
        for fmt in ("ArrowStream", "Arrow"):
            got = self.granite_table(fmt)
            self.assertEqual(got.num_rows, 3)
            want = grpc_case.chdb_bytes(SAMPLE, fmt)
            if want is not None:
                self.assert_tables_equal(got, read_arrow(want, fmt), fmt)

    def test_tuples_and_maps_match_clickhouse(self):
        # A Tuple is a Struct of its elements (named as the tuple names them, else "1", "2"), a
        # Map Arrow's Map of "entries" structs of "key" and "value"; in Parquet a group of the
        # elements, and a MAP group of repeated key_value groups.
        query = ("SELECT (number, toString(number)) AS t, "
                 "CAST((number, if(number = 1, NULL, 'x')) AS Tuple(a UInt64, b Nullable(String))) "
                 "AS nt, map('k', number, 'l', number * 2) AS m, "
                 "mapFromArrays(range(number), arrayMap(x -> [x], range(number))) AS ma, "
                 "CAST(mapFromArrays(['a'], [if(number = 1, NULL, number)]) "
                 "AS Map(String, Nullable(UInt64))) AS mn "
                 "FROM numbers(3) ORDER BY number")
        for fmt in ("ArrowStream", "Arrow", "Parquet"):
            got = self.granite_table(fmt, query)
            self.assertEqual(got.to_pylist()[2]["nt"], {"a": 2, "b": "x"})
            self.assertEqual(got.to_pylist()[2]["ma"], [(0, [0]), (1, [1])])
            want = grpc_case.chdb_bytes(query, fmt)
            if want is not None:
                self.assert_tables_equal(got, read_arrow(want, fmt), fmt)

    def test_arrays_of_tuples_match_clickhouse(self):
        # An Array(Tuple(...)) is a List of "item" Structs (Arrow), a LIST of element groups
        # (Parquet).
        query = ("SELECT arrayZip(range(number), arrayMap(x -> toString(x), range(number))) AS u, "
                 "CAST(arrayZip(range(number), arrayMap(x -> [x], range(number))) "
                 "AS Array(Tuple(a UInt64, b Array(UInt64)))) AS n "
                 "FROM numbers(3) ORDER BY number")
        for fmt in ("ArrowStream", "Arrow", "Parquet"):
            got = self.granite_table(fmt, query)
            self.assertEqual(got.to_pylist()[2]["n"], [{"a": 0, "b": [0]}, {"a": 1, "b": [1]}])
            want = grpc_case.chdb_bytes(query, fmt)
            if want is not None:
                self.assert_tables_equal(got, read_arrow(want, fmt), fmt)

    def test_insert_structs_and_maps(self):
        # A Struct goes into a Tuple column, a Map into a Map column (null ones as defaults); the
        # table's own Arrow output reads back the same.
        self.client.query("CREATE TABLE compound_in (id UInt32, t Tuple(a UInt8, b Nullable(String)), "
                          "m Map(String, Array(UInt64))) ENGINE = MergeTree ORDER BY id")
        table = pyarrow.table({
            "id": pyarrow.array([1, 2, 3], pyarrow.uint32()),
            "t": pyarrow.array([{"a": 1, "b": "x"}, {"a": 2, "b": None}, {"a": 3, "b": "it's"}],
                               pyarrow.struct([("a", pyarrow.uint8()), ("b", pyarrow.string())])),
            "m": pyarrow.array([[("k", [1, 2])], [], None],
                               pyarrow.map_(pyarrow.string(), pyarrow.list_(pyarrow.uint64())))})
        sink = pyarrow.BufferOutputStream()
        with pyarrow.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        self.client.query("INSERT INTO compound_in FORMAT ArrowStream",
                          input_data=sink.getvalue().to_pybytes())
        got = self.client.query("SELECT * FROM compound_in ORDER BY id").decode()
        self.assertEqual(got, "1\t(1,'x')\t{'k':[1,2]}\n2\t(2,NULL)\t{}\n3\t(3,'it\\'s')\t{}\n")
        data = self.client.query("SELECT id + 10 AS id, t, m FROM compound_in", format="ArrowStream")
        self.client.query("INSERT INTO compound_in FORMAT ArrowStream", input_data=data)
        again = self.client.query("SELECT id - 10, t, m FROM compound_in WHERE id > 10 ORDER BY id")
        self.assertEqual(again.decode(), got)

    def test_insert_lists_of_structs(self):
        # A List of Structs goes into an Array(Tuple(...)) column (a null list as []); the
        # table's own Arrow output and ClickHouse's read back the same.
        self.client.query("CREATE TABLE tuple_lists (id UInt32, c Array(Tuple(a UInt8, "
                          "b Nullable(String)))) ENGINE = MergeTree ORDER BY id")
        struct = pyarrow.struct([("a", pyarrow.uint8()), ("b", pyarrow.string())])
        table = pyarrow.table({
            "id": pyarrow.array([1, 2, 3], pyarrow.uint32()),
            "c": pyarrow.array([[{"a": 1, "b": "x"}, {"a": 2, "b": None}], [], None],
                               pyarrow.list_(struct))})
        sink = pyarrow.BufferOutputStream()
        with pyarrow.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        self.client.query("INSERT INTO tuple_lists FORMAT ArrowStream",
                          input_data=sink.getvalue().to_pybytes())
        got = self.client.query("SELECT * FROM tuple_lists ORDER BY id").decode()
        self.assertEqual(got, "1\t[(1,'x'),(2,NULL)]\n2\t[]\n3\t[]\n")
        data = self.client.query("SELECT id + 10 AS id, c FROM tuple_lists", format="Arrow")
        self.client.query("INSERT INTO tuple_lists FORMAT Arrow", input_data=data)
        again = self.client.query("SELECT id - 10, c FROM tuple_lists WHERE id > 10 ORDER BY id")
        self.assertEqual(again.decode(), got)
        theirs = grpc_case.chdb_bytes("SELECT toUInt32(20) AS id, [(7, 'c')] AS c", "ArrowStream")
        if theirs is not None:
            self.client.query("INSERT INTO tuple_lists FORMAT ArrowStream", input_data=theirs)
            self.assertEqual(self.client.query("SELECT c FROM tuple_lists WHERE id = 20").decode(),
                             "[(7,'c')]\n")

    def test_output_settings(self):
        plain = self.granite_table(
            "ArrowStream", settings={"output_format_arrow_compression_method": "none"})
        self.assert_tables_equal(self.granite_table("ArrowStream"), plain, "default (lz4_frame)")
        for codec in ("lz4_frame", "zstd"):
            packed = self.granite_table(
                "ArrowStream", settings={"output_format_arrow_compression_method": codec})
            self.assert_tables_equal(packed, plain, codec)
        self.assert_binary_strings_match("Arrow", SAMPLE)

    def test_parquet_matches_clickhouse(self):
        sample = SAMPLE.replace(", NULL AS nn", "")
        got = self.granite_table("Parquet", sample)
        self.assertEqual(got.num_rows, 3)
        want = grpc_case.chdb_bytes(sample, "Parquet")
        if want is not None:
            self.assert_tables_equal(got, read_arrow(want, "Parquet"), "Parquet")
        plain = self.granite_table("Parquet", sample,
                                   {"output_format_parquet_compression_method": "none"})
        self.assert_tables_equal(plain, got, "uncompressed")
        self.assert_binary_strings_match("Parquet", sample)

    def test_parquet_row_groups(self):
        data = self.client.query("SELECT number, [number, 1] AS a, if(number % 3 = 0, NULL, "
                                 "toString(number)) AS s FROM numbers(10)", format="Parquet",
                                 settings={"output_format_parquet_row_group_size": "4"})
        parquet = pyarrow.parquet.ParquetFile(io.BytesIO(data))
        self.assertEqual([parquet.metadata.row_group(i).num_rows
                          for i in range(parquet.num_row_groups)], [4, 4, 2])
        table = parquet.read()
        self.assertEqual(table.column("number").to_pylist(), list(range(10)))
        self.assertEqual(table.column("a").to_pylist(), [[n, 1] for n in range(10)])
        self.assertEqual(table.column("s").to_pylist(),
                         [None if n % 3 == 0 else str(n) for n in range(10)])

    def test_parquet_refuses_nothing(self):
        from granite_client import GraniteError
        with self.assertRaises(GraniteError) as failure:
            self.client.query("SELECT 1 AS x, NULL AS nn", format="Parquet")
        self.assertEqual(failure.exception.code, 50, failure.exception)
        self.assertIn("Internal type 'Nothing' of column 'nn' is not supported", str(failure.exception))

    def test_empty_result_is_a_schema(self):
        for fmt in ("ArrowStream", "Arrow", "Parquet"):
            got = self.granite_table(fmt, "SELECT number FROM numbers(10) WHERE number > 100")
            self.assertEqual(got.num_rows, 0)
            self.assertEqual(got.schema, pyarrow.schema([pyarrow.field("number", pyarrow.uint64(),
                                                                       False)]))

    def test_many_blocks(self):
        got = self.granite_table("ArrowStream", "SELECT number, toString(number) AS s "
                                 "FROM numbers(300000)")
        self.assertEqual(got.num_rows, 300000)
        self.assertEqual(pyarrow.compute.sum(got.column("number")).as_py(), 299999 * 150000)

    def test_insert_round_trips(self):
        expected = self.granite_table("ArrowStream")
        for fmt in ("ArrowStream", "Arrow"):
            data = grpc_case.chdb_bytes(SAMPLE, fmt) or self.client.query(SAMPLE, format=fmt)
            self.client.query("TRUNCATE TABLE every")
            self.client.query("INSERT INTO every FORMAT " + fmt, input_data=data)
            self.assert_tables_equal(self.granite_table("ArrowStream", TABLE_SAMPLE),
                                     without(expected, "nn"), "insert " + fmt)

    def test_insert_converts_pyarrow_types(self):
        self.client.query("CREATE TABLE conv (k UInt32, s String, fs FixedString(2), "
                          "t DateTime64(3), d Date, n Nullable(Float64), m UInt8 DEFAULT 7) "
                          "ENGINE = MergeTree ORDER BY k")
        table = pyarrow.table({
            "k": pyarrow.array([2, 1], pyarrow.int64()),
            "s": pyarrow.array(["b", None], pyarrow.large_string()),
            "fs": pyarrow.array(["ab", "c"]),
            "t": pyarrow.array([1_600_000_000_123_456_789, 0], pyarrow.timestamp("ns")),
            "d": pyarrow.array([18000, 1], pyarrow.date32()),
            "n": pyarrow.array([None, 1.5]),
            "extra": pyarrow.array([1, 2])})
        sink = pyarrow.BufferOutputStream()
        with pyarrow.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        self.client.query("INSERT INTO conv FORMAT ArrowStream", input_data=sink.getvalue().to_pybytes())
        self.assertEqual(self.client.query("SELECT * FROM conv ORDER BY k", format="TSV"),
                         b"1\t\tc\\0\t1970-01-01 00:00:00.000\t1970-01-02\t1.5\t7\n"
                         b"2\tb\tab\t2020-09-13 12:26:40.123\t2019-04-14\t\\N\t7\n")

    def test_insert_dictionary_columns(self):
        """Dictionary-encoded columns (pandas' categorical) read as their values: int8 and
        int32 indexes, NULL indexes, a dictionary sent again between batches (a replacement)
        and as deltas, stream and file."""
        self.client.query("CREATE TABLE cats (k UInt32, c String, n Nullable(String), "
                          "v Float64) ENGINE = MergeTree ORDER BY k")
        colours = pyarrow.array(["red", "green", "blue"])
        first = pyarrow.table({
            "k": pyarrow.array([1, 2, 3], pyarrow.uint32()),
            "c": pyarrow.DictionaryArray.from_arrays(pyarrow.array([2, 0, 0], pyarrow.int8()),
                                                      colours),
            "n": pyarrow.array(["x", None, "y"]).dictionary_encode(),
            "v": pyarrow.array([0.5, 1.5, 2.5]).dictionary_encode()})
        second = pyarrow.table({
            "k": pyarrow.array([4, 5], pyarrow.uint32()),
            "c": pyarrow.DictionaryArray.from_arrays(pyarrow.array([3, 1], pyarrow.int8()),
                                                      pyarrow.array(["red", "green", "blue",
                                                                     "cyan"])),
            "n": pyarrow.array([None, "x"]).dictionary_encode(),
            "v": pyarrow.array([7.0, 0.5]).dictionary_encode()})
        want = (b"1\tblue\tx\t0.5\n2\tred\t\\N\t1.5\n3\tred\ty\t2.5\n"
                b"4\tcyan\t\\N\t7\n5\tgreen\tx\t0.5\n")
        # (format, delta dictionaries, tables): a file holds one dictionary per field.
        cases = [("ArrowStream", False, (first, second)), ("ArrowStream", True, (first, second)),
                 ("Arrow", False, (first,))]
        for fmt, deltas, tables in cases:
            sink = pyarrow.BufferOutputStream()
            options = pyarrow.ipc.IpcWriteOptions(emit_dictionary_deltas=deltas)
            opener = pyarrow.ipc.new_file if fmt == "Arrow" else pyarrow.ipc.new_stream
            with opener(sink, first.schema, options=options) as writer:
                for table in tables:
                    writer.write_table(table)
            self.client.query("TRUNCATE TABLE cats")
            self.client.query("INSERT INTO cats FORMAT " + fmt,
                              input_data=sink.getvalue().to_pybytes())
            expected = want if len(tables) == 2 else b"".join(want.splitlines(True)[:3])
            self.assertEqual(self.client.query("SELECT * FROM cats ORDER BY k", format="TSV"),
                             expected, "%s deltas=%s" % (fmt, deltas))
        # An index past its dictionary is refused.
        bad = pyarrow.table({"k": pyarrow.array([1], pyarrow.uint32()),
                             "c": pyarrow.DictionaryArray.from_arrays(
                                 pyarrow.array([5], pyarrow.int8()), colours, safe=False)})
        sink = pyarrow.BufferOutputStream()
        with pyarrow.ipc.new_stream(sink, bad.schema) as writer:
            writer.write_table(bad)
        from granite_client import GraniteError
        with self.assertRaises(GraniteError) as failure:
            self.client.query("INSERT INTO cats FORMAT ArrowStream",
                              input_data=sink.getvalue().to_pybytes())
        self.assertEqual(failure.exception.code, 117, failure.exception)

    def test_unsupported_type_is_unknown_type(self):
        import numpy
        table = pyarrow.table({"u32": pyarrow.array(numpy.array([1.5], dtype=numpy.float16))})
        sink = pyarrow.BufferOutputStream()
        with pyarrow.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        from granite_client import GraniteError
        with self.assertRaises(GraniteError) as failure:
            self.client.query("INSERT INTO every FORMAT ArrowStream", input_data=sink.getvalue().to_pybytes())
        self.assertEqual(failure.exception.code, 50, failure.exception)
        self.assertIn("Unsupported Arrow type 'HalfFloat'", str(failure.exception))


class ArrowFormatsThreeWorkersTest(ArrowFormatsTest):
    workers = 3


class ClickHouseConnectArrowTest(unittest.TestCase):
    """clickhouse-connect's Arrow methods over the HTTP interface."""

    @classmethod
    def setUpClass(cls):
        try:
            import clickhouse_connect
        except ImportError:
            raise unittest.SkipTest("clickhouse-connect is not in the venv (scripts/make-venv.sh)")
        if pyarrow is None:
            raise unittest.SkipTest("pyarrow is not in the venv (scripts/make-venv.sh)")
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=1).start()
        cls.client = clickhouse_connect.get_client(host=cls.cluster.host,
                                                   port=cls.cluster.http_port)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.stop()

    def test_query_and_insert_arrow(self):
        client = self.client
        client.command(TABLE)
        expected = read_arrow(grpc_case.chdb_bytes(SAMPLE, "Arrow") or
                              client.raw_query(SAMPLE, fmt="Arrow"), "Arrow")
        got = client.query_arrow(SAMPLE)
        self.assertEqual(got.schema, expected.schema)
        self.assertEqual(got.to_pylist(), expected.to_pylist())
        with client.query_arrow_stream(SAMPLE) as stream:
            batches = list(stream)
        self.assertEqual(sum(b.num_rows for b in batches), 3)
        frame = client.query_df_arrow("SELECT u32, s, ni FROM every ORDER BY u32")
        self.assertEqual(len(frame), 0)
        summary = client.insert_arrow("every", without(expected, "nn"))
        self.assertEqual(summary.written_rows, 3)
        back = client.query_arrow(TABLE_SAMPLE)
        self.assertEqual(back.to_pylist(), without(expected, "nn").to_pylist())
        frame = client.query_df_arrow("SELECT u32, s, ni FROM every ORDER BY u32")
        self.assertEqual(list(frame["u32"]), [0, 1, 2])
        self.assertEqual(list(frame["s"]), ["s0", "s1", "s2"])
        self.assertEqual(frame["ni"].isna().tolist(), [False, True, False])
        # A pandas frame with Arrow dtypes goes in as Arrow, and comes back alike.
        client.command("CREATE TABLE frames (k UInt32, name String, v Nullable(Float64)) "
                       "ENGINE = MergeTree ORDER BY k")
        client.insert_df_arrow("frames", frame.rename(columns={"u32": "k", "s": "name",
                                                                "ni": "v"}))
        back = client.query_df_arrow("SELECT k, name, v FROM frames ORDER BY k")
        self.assertEqual(back["name"].tolist(), ["s0", "s1", "s2"])
        self.assertEqual(back["v"].isna().tolist(), [False, True, False])
        self.assertEqual(client.query_df("SELECT k, name FROM frames ORDER BY k")["name"].tolist(),
                         ["s0", "s1", "s2"])
        # A categorical column travels dictionary-encoded.
        import pandas
        client.command("TRUNCATE TABLE frames")
        categorical = pandas.ArrowDtype(pyarrow.dictionary(pyarrow.int8(), pyarrow.string()))
        client.insert_df_arrow("frames", pandas.DataFrame({
            "k": pandas.Series([7, 8, 9], dtype="uint32[pyarrow]"),
            "name": pandas.Series(pyarrow.array(["b", "a", "b"]).dictionary_encode()
                                  .cast(categorical.pyarrow_dtype), dtype=categorical),
            "v": pandas.Series([1.0, None, 3.0], dtype="float64[pyarrow]")}))
        self.assertEqual(client.query_df("SELECT k, name FROM frames ORDER BY k")["name"].tolist(),
                         ["b", "a", "b"])


if __name__ == "__main__":
    testmain.main([ArrowFormatsTest, ArrowFormatsThreeWorkersTest, ClickHouseConnectArrowTest])
