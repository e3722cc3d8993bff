#!/usr/bin/env python3
"""Every registered boolean query setting changes what granite does: flipping it from its default
changes the EXPLAIN of a probe query (the typed plan after the planner rules, with the operators'
modes) or the observable result of a probe statement. A boolean setting added to the registry
(core/settings/setting_list.h) without a probe here fails the test: a switch that changes nothing
is a bug, or a setting nobody needs."""

import os
import sys
import unittest
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

from granite_client import GraniteError  # noqa: E402

# A table sharded by k with small granules, so pruning and shard-local rules have work to do.
SETUP = [
    "CREATE TABLE b (k UInt64, s String, v Int64, d Date) ENGINE = MergeTree ORDER BY k "
    "SETTINGS index_granularity = 16, sharding_key = 'k'",
    "INSERT INTO b SELECT number, toString(number % 7), number * 3, toDate('2024-01-01') + number % 30 "
    "FROM numbers(2000)",
]

# Setting -> EXPLAIN probe (a SELECT; the setting is appended as its SETTINGS clause).
EXPLAIN_PROBES = {
    "use_pruning": "EXPLAIN indexes = 1 SELECT count() FROM b WHERE k < 100",
    "use_parts_snapshot": "EXPLAIN SELECT count() FROM b WHERE k < 100",
    "use_uncompressed_cache": "EXPLAIN SELECT sum(v) FROM b",
    "use_query_condition_cache": "EXPLAIN SELECT count() FROM b WHERE v = 9",
    "use_part_bounds_for_min_max": "EXPLAIN SELECT min(d), max(d) FROM b",
    "use_value_ranges": "EXPLAIN SELECT number % 10 AS x, count() FROM numbers(100) GROUP BY x",
    "optimize_arithmetic_operations_in_aggregate_functions":
        "EXPLAIN SELECT sum(v + 1), sum(v + 2) FROM b",
    "optimize_group_by_function_keys":
        "EXPLAIN SELECT k, k * 2 AS k2, count() FROM b GROUP BY k, k2",
    "aggregate_selected_filter": "EXPLAIN SELECT s, sum(v) FROM b WHERE k > 5 GROUP BY s",
    "collect_hash_table_stats_during_aggregation": "EXPLAIN SELECT s, count() FROM b GROUP BY s",
    "worker_finalize_in_place": "EXPLAIN SELECT k, count() FROM b GROUP BY k",
    "shard_local_aggregation": "EXPLAIN SELECT k, count() FROM b GROUP BY k",
    "shard_local_top_n": "EXPLAIN SELECT k, count() AS c FROM b GROUP BY k ORDER BY c DESC LIMIT 3",
    "optimize_skip_unused_shards": "EXPLAIN SELECT count() FROM b WHERE k = 17",
    "optimize_aggregation_below_joins":
        "EXPLAIN SELECT x.k, x.s, sum(y.v) FROM b AS x, b AS y WHERE x.k = y.k GROUP BY x.k, x.s",
    "enable_group_by_top_k_optimization":
        "EXPLAIN SELECT d, count() FROM b GROUP BY d ORDER BY d DESC LIMIT 3",
    "merge_group_limit": "EXPLAIN SELECT s, count() FROM b GROUP BY s LIMIT 3 "
                         "SETTINGS group_by_limit_hash_filter = 0",
    "top_n_piece_cut": "EXPLAIN SELECT s, count() AS c FROM b GROUP BY s ORDER BY c DESC LIMIT 3",
    "optimize_functions_to_subcolumns": "EXPLAIN SELECT avg(length(s)) FROM b",
    "late_aggregate_finalization":
        "EXPLAIN SELECT s, count() AS c, sum(v) FROM b GROUP BY s ORDER BY c DESC LIMIT 3",
    "late_aggregate_finalization_by_ref":
        "EXPLAIN SELECT s, count() AS c, sum(v) FROM b GROUP BY s ORDER BY c DESC LIMIT 3",
}


def with_setting(sql, name, value):
    joiner = ", " if " SETTINGS " in sql else " SETTINGS "
    return "%s%s%s = %s" % (sql, joiner, name, value)


class BooleanSettingsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=2, threads=1).start()
        cls.client = cls.cluster.client(timeout=60)
        for sql in SETUP:
            cls.client.query(sql)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.stop()
        if getattr(cls, "replica_cluster", None) is not None:
            cls.replica_cluster_client.close()
            cls.replica_cluster.stop()

    @classmethod
    def replica_client(cls):
        """A client of a 1-shard x 2-replica cluster, started on first use (for settings that act
        only with replicas)."""
        if getattr(cls, "replica_cluster", None) is None:
            cls.replica_cluster = cluster.SplitCluster(testmain.granite(), workers=2, threads=1,
                                                       replicas=2).start()
            cls.replica_cluster_client = cls.replica_cluster.client(timeout=60)
        return cls.replica_cluster_client

    def deduplicate_outcome(self, value):
        """Rows after the same INSERT is sent twice to a replicated table."""
        client = self.replica_client()
        table = "dedup_%s" % value
        client.query("CREATE TABLE %s (x UInt64) ENGINE = MergeTree ORDER BY x" % table)
        for _ in range(2):
            client.query_text("INSERT INTO %s VALUES (1), (2)" % table,
                              settings={"insert_deduplicate": value})
        return client.query_text("SELECT count() FROM %s" % table)

    def parallel_parsing_outcome(self, value):
        """Whether an INSERT of several chunks of TSV parsed some on the coordinator's pool (the
        rows stored are the same either way: insert_test.py compares them)."""
        self.client.query("CREATE TABLE IF NOT EXISTS pp (x UInt64) ENGINE = MergeTree ORDER BY x")
        event = "SELECT sum(value) FROM system.events WHERE event = 'ParallelParsedInputChunks'"
        before = int(self.text(event).strip() or 0)
        self.client.query("INSERT INTO pp FORMAT TSV", input_data=b"1\n2\n3\n4\n5\n",
                          settings={"input_chunk_rows": "1",
                                    "input_format_parallel_parsing": value})
        return int(self.text(event).strip() or 0) > before

    def text(self, sql):
        return self.client.query_text(sql)

    def outcome(self, sql):
        """The result text, or the error code and message: what a user sees."""
        try:
            return self.text(sql)
        except GraniteError as e:
            return "error %s %s" % (e.code, e)

    def bytes_outcome(self, sql):
        """The output bytes of a binary format."""
        return self.client.query(sql)

    def insert_outcome(self, sql, settings):
        """Like outcome(), for a statement whose settings travel in QueryInfo.settings."""
        try:
            return self.client.query_text(sql, settings=settings)
        except GraniteError as e:
            return "error %s %s" % (e.code, e)

    def behaviour_probes(self):
        """Setting -> function(value) returning what a statement shows with that value."""
        return {
            "allow_drop_detached": lambda value: self.outcome(
                "ALTER TABLE b DROP DETACHED PART 'all_9_9_0' SETTINGS allow_drop_detached = %s"
                % value),
            "check_query_single_value_result": lambda value: self.outcome(
                "CHECK TABLE b SETTINGS check_query_single_value_result = %s" % value),
            "output_format_json_quote_64bit_integers": lambda value: self.outcome(
                "SELECT toUInt64(7) AS x FORMAT JSONEachRow "
                "SETTINGS output_format_json_quote_64bit_integers = %s" % value),
            "join_use_nulls": lambda value: self.outcome(
                "SELECT o.k, toTypeName(o.k) FROM b LEFT JOIN (SELECT toUInt64(1) AS k) AS o "
                "ON b.k = o.k ORDER BY b.k LIMIT 1 SETTINGS join_use_nulls = %s" % value),
            "insert_deduplicate": self.deduplicate_outcome,
            "input_format_parallel_parsing": self.parallel_parsing_outcome,
            "input_format_null_as_default": lambda value: self.insert_outcome(
                "INSERT INTO b (k, s) VALUES (5000, NULL)",
                {"input_format_null_as_default": value}),
            "allow_correlated_subqueries": lambda value: self.outcome(
                "SELECT count() FROM b WHERE EXISTS (SELECT 1 FROM numbers(10) WHERE number = k) "
                "SETTINGS allow_correlated_subqueries = %s" % value),
            "allow_experimental_correlated_subqueries": lambda value: self.outcome(
                "SELECT count() FROM b WHERE EXISTS (SELECT 1 FROM numbers(10) WHERE number = k) "
                "SETTINGS allow_experimental_correlated_subqueries = %s" % value),
            "output_format_write_statistics": lambda value: self.outcome(
                "SELECT 1 AS x FORMAT JSON SETTINGS output_format_write_statistics = %s" % value),
            # The Arrow and Parquet schemas: String as utf8 or binary, FixedString as
            # fixed_size_binary or binary.
            "output_format_arrow_string_as_string": lambda value: self.bytes_outcome(
                "SELECT 'x' AS s FORMAT ArrowStream "
                "SETTINGS output_format_arrow_string_as_string = %s" % value),
            "output_format_arrow_fixed_string_as_fixed_byte_array": lambda value: self.bytes_outcome(
                "SELECT toFixedString('x', 2) AS f FORMAT ArrowStream "
                "SETTINGS output_format_arrow_fixed_string_as_fixed_byte_array = %s" % value),
            "output_format_parquet_string_as_string": lambda value: self.bytes_outcome(
                "SELECT 'x' AS s FORMAT Parquet "
                "SETTINGS output_format_parquet_string_as_string = %s" % value),
            "output_format_parquet_fixed_string_as_fixed_byte_array": lambda value: self.bytes_outcome(
                "SELECT toFixedString('x', 2) AS f FORMAT Parquet "
                "SETTINGS output_format_parquet_fixed_string_as_fixed_byte_array = %s" % value),
            # Over HTTP the extremes are in the output (over gRPC in Result.extremes).
            "extremes": lambda value: self.http_outcome(
                "SELECT number FROM numbers(3) SETTINGS extremes = %s" % value),
        }

    def http_outcome(self, sql):
        request = urllib.request.Request(
            "http://%s:%d/" % (self.cluster.host, self.cluster.http_port), data=sql.encode())
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.read()

    def boolean_settings(self):
        rows = self.text("SELECT name, value FROM system.settings WHERE type = 'Bool' "
                         "ORDER BY name").splitlines()
        return [tuple(row.split("\t")) for row in rows]

    def test_every_boolean_setting_has_a_probe(self):
        settings = self.boolean_settings()
        self.assertGreater(len(settings), 15)
        probes = set(EXPLAIN_PROBES) | set(self.behaviour_probes())
        missing = [name for name, _ in settings if name not in probes]
        self.assertEqual(missing, [], "boolean settings without a probe in this test")

    def test_flipping_each_boolean_setting_changes_the_plan_or_the_outcome(self):
        behaviour = self.behaviour_probes()
        unchanged = []
        for name, default in self.boolean_settings():
            flipped = "0" if default == "1" else "1"
            if name in EXPLAIN_PROBES:
                sql = EXPLAIN_PROBES[name]
                before = self.text(with_setting(sql, name, default))
                after = self.text(with_setting(sql, name, flipped))
            elif name in behaviour:
                before, after = behaviour[name](default), behaviour[name](flipped)
            else:
                continue  # reported by test_every_boolean_setting_has_a_probe
            if before == after:
                unchanged.append(name)
        self.assertEqual(unchanged, [], "flipping these settings changed nothing")

    def test_pruning_shows_in_explain_indexes(self):
        pruned = self.text(EXPLAIN_PROBES["use_pruning"])
        granules = [line for line in pruned.splitlines() if "Granules:" in line][0]
        selected, total = map(int, granules.split()[-1].split("/"))
        self.assertLess(selected, total)
        full = self.text(with_setting(EXPLAIN_PROBES["use_pruning"], "use_pruning", "0"))
        self.assertIn("Granules: %d/%d" % (total, total), full)


if __name__ == "__main__":
    testmain.main([BooleanSettingsTest])
