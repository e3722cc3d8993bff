// The one list of granite's query and table settings: each is declared here once, with its type,
// default, allowed values and description, and nowhere else. core/settings/settings.h turns the
// list into typed structs (Settings, TableSettings) with parsing, validation and system.settings
// rows. Adding a setting is one line here plus the code that reads its field.
//
// M(TYPE, NAME, DEFAULT, ALLOWED, DESCRIPTION)
//   TYPE     Bool (accepts 0, 1, true, false), UInt64, or String
//   ALLOWED  for String: the accepted values separated by '|', matched case-insensitively and
//            stored lower-cased ("" = any text); ignored for the other types
#pragma once

// Query settings: SETTINGS of a SELECT, QueryInfo.settings, SET within a session.
#define GRANITE_QUERY_SETTINGS(M)                                                                 \
  M(Bool, use_pruning, true, "",                                                                  \
    "Skips parts and granules whose key ranges cannot match the WHERE filter")                    \
  M(Bool, use_parts_snapshot, true, "",                                                           \
    "Shares the table's cached parts snapshot; 0 builds a private one per query (benchmarks)")    \
  M(Bool, use_uncompressed_cache, true, "",                                                       \
    "Reads and fills the worker's cache of decompressed granules")                                \
  M(Bool, use_query_condition_cache, true, "",                                                    \
    "Remembers per part and filter the granules that matched nothing, and skips them next time")  \
  M(Bool, use_part_bounds_for_min_max, true, "",                                                  \
    "Answers min/max of integer and date columns without WHERE or GROUP BY from part bounds")     \
  M(Bool, use_value_ranges, true, "",                                                             \
    "Uses column value ranges: bounded-range aggregation, DISTINCT and key-operand folding")      \
  M(Bool, optimize_arithmetic_operations_in_aggregate_functions, true, "",                        \
    "Rewrites sum(x + c) and its kin into sum(x) and count(x) for integer x and constant c")      \
  M(Bool, optimize_group_by_function_keys, true, "",                                              \
    "Drops GROUP BY keys that are functions of other keys")                                       \
  M(Bool, aggregate_selected_filter, true, "",                                                    \
    "Aggregates filtered rows through a selection vector instead of filtered copies")             \
  M(Bool, collect_hash_table_stats_during_aggregation, true, "",                                  \
    "Remembers GROUP BY result sizes to preallocate hash tables on the next run")                 \
  M(Bool, worker_finalize_in_place, true, "",                                                     \
    "Finalizes shard-local groups in the merged tables instead of via partial buckets")           \
  M(Bool, shard_local_aggregation, true, "",                                                      \
    "Finalizes groups on the workers when every group lives on one worker (sharding-key keys)")   \
  M(Bool, optimize_skip_unused_shards, true, "",                                                  \
    "Sends a fragment only to the shards whose sharding key values the WHERE allows")            \
  M(Bool, optimize_aggregation_below_joins, true, "",                                             \
    "GROUP BY over a dimension's columns: pre-aggregates the joined tables by the join key first")\
  M(Bool, shard_local_top_n, true, "",                                                            \
    "With shard-local aggregation, applies HAVING and ORDER BY ... LIMIT on each worker")         \
  M(Bool, merge_group_limit, true, "",                                                            \
    "GROUP BY ... LIMIT n without ORDER BY: the coordinator's merge stops at n complete groups")   \
  M(Bool, top_n_piece_cut, true, "",                                                              \
    "ORDER BY ... LIMIT n over groups: each merged bucket is cut to its top n rows")              \
  M(Bool, optimize_functions_to_subcolumns, true, "",                                             \
    "Reads String columns used only through length/empty/= '' as their sizes")                    \
  M(Bool, late_aggregate_finalization, true, "",                                                  \
    "With ORDER BY ... LIMIT over groups, finalizes aggregates not in ORDER BY for the top rows") \
  M(Bool, late_aggregate_finalization_by_ref, true, "",                                           \
    "Late finalization keeps references to merged states instead of copying them")               \
  M(UInt64, group_by_limit_hash_filter, 100000, "",                                               \
    "GROUP BY ... LIMIT n without ORDER BY: workers keep the n smallest key hashes, up to this n "\
    "(0 = off)")                                                                                  \
  M(Bool, enable_group_by_top_k_optimization, true, "",                                           \
    "GROUP BY ... ORDER BY key LIMIT n: workers aggregate only rows whose key can be in the top n")\
  M(UInt64, query_plan_max_limit_for_top_k_optimization, 1000, "",                                \
    "The largest LIMIT + OFFSET enable_group_by_top_k_optimization applies to (0 = no cap)")      \
  M(UInt64, group_by_two_level_threshold, 4000000, "",                                            \
    "Groups at which a hash table becomes two-level (0 = never); when set, also the size at "     \
    "which the thread-local merge goes parallel")                                                 \
  M(UInt64, group_by_two_level_threshold_bytes, 268435456, "",                                    \
    "Bytes of a hash table at which it becomes two-level")                                        \
  M(UInt64, group_by_single_block_threshold, 4096, "",                                            \
    "A worker result with fewer groups is sent as one block instead of 256 buckets")              \
  M(String, group_by_worker_merge, "auto", "auto|always|never|1|0",                               \
    "Whether a worker merges its threads' tables before sending buckets (1 = always, 0 = never)") \
  M(UInt64, late_materialization_max_limit, 1000, "",                                             \
    "LIMIT up to which a non-aggregating query reads its other columns only for surviving rows")  \
  M(String, network_compression_method, "lz4", "lz4|none",                                        \
    "Compression of result and insert blocks to and from workers (unchanged: none on loopback)") \
  M(String, load_balancing, "random", "random|in_order|nearest_hostname|first_or_random",        \
    "Which replica of a shard a query reads first; the others are its failover order")           \
  M(UInt64, max_replica_delay_for_distributed_queries, 0, "",                                     \
    "Blocks a replica may lag behind its shard's most advanced one and still be read first")      \
  M(String, insert_quorum, "auto", "",                                                            \
    "Replicas per shard that must have an INSERT's block durable (auto = a majority; 0 = one)")  \
  M(Bool, insert_deduplicate, true, "",                                                           \
    "With replicas: a block already inserted (same contents or token) is not applied again")     \
  M(String, insert_deduplication_token, "", "",                                                   \
    "With replicas: deduplicates INSERTs by this token instead of by their blocks' contents")    \
  M(String, session_timezone, "", "",                                                             \
    "The zone of DateTime values without one (their text, calendar functions, timezone()); "      \
    "empty = the server's, UTC")                                                                  \
  M(UInt64, queue_max_wait_ms, 0, "",                                                             \
    "Longest wait for a SELECT slot before TOO_MANY_SIMULTANEOUS_QUERIES (0 = no limit)")         \
  M(UInt64, input_chunk_rows, 1048576, "", "Rows of insert input sent to the workers per chunk") \
  M(UInt64, input_chunk_bytes, 67108864, "",                                                      \
    "Bytes of insert input text per chunk sent to the workers")                                   \
  M(Bool, input_format_parallel_parsing, true, "",                                                \
    "Text insert input (TSV, CSV, JSONEachRow) is parsed a chunk per coordinator thread at once")  \
  M(String, send_logs_level, "fatal", "none|fatal|error|warning|information|debug|trace|test",    \
    "Server log entries sent to the client with the result (debug: the pruning summary)")        \
  M(Bool, allow_drop_detached, false, "",                                                         \
    "Allows ALTER TABLE ... DROP DETACHED PART, which deletes a part's files for good")           \
  M(Bool, check_query_single_value_result, true, "",                                              \
    "CHECK TABLE returns one row `result`; 0 returns one row per part with its state")            \
  M(Bool, output_format_json_quote_64bit_integers, false, "",                                     \
    "JSON formats write UInt64 and Int64 as strings (JavaScript loses precision past 2^53)")      \
  M(Bool, output_format_write_statistics, true, "",                                               \
    "JSON and JSONCompact end with a statistics object: elapsed seconds, rows and bytes read")    \
  M(Bool, output_format_arrow_string_as_string, true, "",                                        \
    "Arrow formats write String as Arrow utf8 (string); 0 writes binary")                         \
  M(Bool, output_format_arrow_fixed_string_as_fixed_byte_array, true, "",                         \
    "Arrow formats write FixedString(N) as fixed_size_binary(N); 0 writes it like String")        \
  M(String, output_format_arrow_compression_method, "lz4_frame", "lz4_frame|zstd|none",           \
    "Compression of Arrow record batch buffers, as ClickHouse's")                                \
  M(Bool, output_format_parquet_string_as_string, true, "",                                      \
    "Parquet writes String as BYTE_ARRAY annotated as a UTF-8 string; 0 leaves it binary")        \
  M(Bool, output_format_parquet_fixed_string_as_fixed_byte_array, true, "",                       \
    "Parquet writes FixedString(N) as FIXED_LEN_BYTE_ARRAY(N); 0 writes it like String")          \
  M(String, output_format_parquet_compression_method, "zstd", "zstd|none",                        \
    "Compression of Parquet data pages")                                                          \
  M(UInt64, output_format_parquet_row_group_size, 1000000, "",                                    \
    "Rows per Parquet row group")                                                                 \
  M(Bool, extremes, false, "",                                                                    \
    "Adds the result's extremes (each column's min, then max, as two rows) to the output"       \
    " and to Result.extremes")                                                                   \
  M(UInt64, readonly, 0, "",                                                                      \
    "0: any query; 1: reads only, no setting may change; 2: reads and setting changes")          \
  M(UInt64, max_execution_time, 0, "",                                                            \
    "Seconds a query may run before TIMEOUT_EXCEEDED, its worker streams cancelled (0 = none)")  \
  M(UInt64, max_rows_to_read, 0, "",                                                              \
    "Rows a query may read from tables and table functions before TOO_MANY_ROWS (0 = none)")     \
  M(UInt64, max_bytes_to_read, 0, "",                                                             \
    "Uncompressed bytes a query may read before TOO_MANY_BYTES (0 = none)")                      \
  M(UInt64, max_result_rows, 0, "",                                                               \
    "Rows of a result; beyond, result_overflow_mode decides (0 = none)")                         \
  M(UInt64, max_result_bytes, 0, "",                                                              \
    "Uncompressed bytes of a result; beyond, result_overflow_mode decides (0 = none)")           \
  M(String, result_overflow_mode, "throw", "throw|break",                                         \
    "Over max_result_rows/bytes: throw (TOO_MANY_ROWS_OR_BYTES) or break (cut the result)")     \
  M(UInt64, max_query_size, 262144, "",                                                           \
    "Bytes of query text (without an INSERT's inline data) before SYNTAX_ERROR (0 = none)")     \
  M(UInt64, max_concurrent_queries_for_user, 0, "",                                               \
    "Queries one user may run at once before TOO_MANY_SIMULTANEOUS_QUERIES (0 = no limit)")     \
  M(UInt64, max_threads, 0, "",                                                                   \
    "Threads one query's scan uses on each worker (0 = all of the worker's threads)")            \
  M(UInt64, max_memory_usage, 0, "",                                                              \
    "Bytes a query may hold in one process (coordinator, each worker) before "                  \
    "MEMORY_LIMIT_EXCEEDED (0 = none)")                                                           \
  M(UInt64, max_rows_in_join, 0, "",                                                              \
    "Coordinator joins: rows a JOIN's result may have before TOO_MANY_ROWS (0 = a cap of 200 "   \
    "million); worker joins: rows of the build side's hash table (0 = none; see join_algorithm)") \
  M(UInt64, max_bytes_in_join, 0, "",                                                             \
    "Bytes of a worker join's build side (0 = none): a spilling join_algorithm spills past it, "  \
    "hash / parallel_hash apply join_overflow_mode")                                              \
  M(String, join_overflow_mode, "throw", "throw|break",                                           \
    "A non-spilling join's build over max_rows_in_join / max_bytes_in_join: throw "             \
    "(SET_SIZE_LIMIT_EXCEEDED) or break (the build keeps the rows up to the limit)")             \
  M(String, join_algorithm, "default",                                                            \
    "default|auto|hash|parallel_hash|grace_hash|partial_merge|full_sorting_merge|"               \
    "prefer_partial_merge",                                                                       \
    "Worker hash joins: hash / parallel_hash keep the build in memory; grace_hash spills it to "  \
    "disk in buckets past max_bytes_in_join / max_rows_in_join or a quarter of max_memory_usage " \
    "(and an eighth of the server's limit); default, auto and the merge names spill the same "    \
    "way (unlike ClickHouse's default, which never spills)")                                      \
  M(UInt64, grace_hash_join_initial_buckets, 1, "",                                               \
    "Buckets a spilling join starts with once it spills (rounded up to a power of two, >= 2)")   \
  M(UInt64, grace_hash_join_max_buckets, 1024, "",                                                \
    "Buckets a spilling join may split into; a bucket still too large then fails with "          \
    "MEMORY_LIMIT_EXCEEDED")                                                                      \
  M(String, distributed_join_mode, "auto", "auto|broadcast|shuffle|coordinator",                  \
    "Where joins run: auto (co-located where both tables are sharded by the join key or the "   \
    "cluster has one shard: each worker reads both sides from its own shard; else broadcast "   \
    "when the smaller sides times max(1, workers - 1) hold at most the largest table's rows "   \
    "that pass its own filter; else a shuffle of the largest table and its largest partner), "  \
    "broadcast (the smaller sides sent to the workers that read the largest table), shuffle "   \
    "(the largest table and its largest partner repartitioned between the workers by the join " \
    "key unless co-located, the others sent), coordinator (every side gathered)")              \
  M(UInt64, max_joined_block_size_rows, 65409, "",                                                \
    "Joined rows a hash join hands on at a time: a probe block whose keys match many build rows " \
    "is joined in parts of about this many rows (0 = the whole block at once)")                 \
  M(Bool, join_use_nulls, false, "",                                                              \
    "1: rows without a partner get NULLs (their columns become Nullable)")                      \
  M(Bool, input_format_null_as_default, true, "",                                                \
    "NULL inserted into a column that is not Nullable becomes its default (0: an error)")       \
  M(Bool, allow_experimental_correlated_subqueries, true, "",                                    \
    "0: correlated subqueries fail with UNSUPPORTED_METHOD (ClickHouse's older name)")          \
  M(Bool, allow_correlated_subqueries, true, "",                                                  \
    "0: correlated subqueries fail with UNSUPPORTED_METHOD instead of being decorrelated")

// Table settings: CREATE TABLE ... SETTINGS and ALTER TABLE ... MODIFY SETTING.
#define GRANITE_TABLE_SETTINGS(M)                                                                 \
  M(UInt64, index_granularity, 8192, "", "Rows per granule (a mark in ClickHouse)")              \
  M(String, ratio_of_defaults_for_sparse_serialization, "0.9375", "",                             \
    "A column of a part with a larger share of default values (0, '', NULL) is stored sparse: "  \
    "only its other values and their rows (a number from 0 to 1; 1 turns it off)")               \
  M(String, sharding_key, "", "",                                                                 \
    "Columns whose hash chooses the worker of a row (empty: round-robin)")                        \
  M(UInt64, max_bytes_to_merge_at_max_space_in_pool, 0, "",                                       \
    "Largest uncompressed size of one background merge's result (0 = the server's default)")     \
  M(UInt64, max_parts_to_merge_at_once, 0, "",                                                    \
    "Most parts that one background merge takes (0 = the server's default)")                        \
  M(UInt64, replicated_deduplication_window, 1000, "",                                             \
    "With replicas and etcd: the most recent block ids per shard kept in etcd's shard log")      \
  M(Bool, fsync_after_insert, true, "",                                                           \
    "Accepted as in ClickHouse; granite always syncs a new part before it becomes visible")      \
  M(UInt64, min_bytes_for_wide_part, 10485760, "",                                                \
    "A part with fewer uncompressed bytes is written compact (all columns in one data file and " \
    "one marks file) instead of wide (two files per column)")                                   \
  M(UInt64, min_rows_for_wide_part, 0, "",                                                        \
    "A part with fewer rows is written compact (all columns in one data file and one marks "     \
    "file) instead of wide (two files per column)")                                             \
  M(String, auto_statistics_types, "", "",                                                        \
    "Accepted as in ClickHouse; granite writes no per-part statistics files")
