// plan::Fragment: what one worker runs for a query, as a short pipeline of typed operators —
//   Scan (a table or table function, the columns read and how) -> Filter (optional)
//   -> BroadcastJoin* (build sides sent along by the coordinator) -> join filter (optional)
//   -> Project (rows) or Aggregate (partial states by bucket, or groups finalized on the worker)
//   -> TopN (projecting fragments: ORDER BY keys and a LIMIT, cut on every worker).
// The coordinator's binder builds it and the planner rules (coordinator/planner/rules/) set the
// operators' fields; the worker compiles it (core/fragment_pipeline.h, worker/fragment_executor.h).
// Only core/wire/plan_codec.h converts it to and from the wire message. Plain data: copyable.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/block.h"
#include "core/plan/expr.h"
#include "core/settings/settings.h"
#include "core/types.h"

namespace granite::core::plan {

// FROM f(args): a table function of core/table_functions/table_function.h, arguments bound.
struct TableFunctionCall {
  std::string name;            // canonical name, e.g. "numbers_mt"
  std::vector<uint64_t> args;  // TableFunction::Bind's arguments
  friend bool operator==(const TableFunctionCall&, const TableFunctionCall&) = default;
};

// Reads the source: a table's shard or a table function's rows on this worker.
struct Scan {
  std::string table;                          // a table, when `function` is unset
  std::optional<TableFunctionCall> function;  // a table function
  std::vector<std::string> columns;           // columns read, in input-block order
  // Per column (empty = none): a String column read as its values' sizes (UInt64), because the
  // fragment only asks how long its values are (rules/string_size_reads.h).
  std::vector<bool> string_sizes;
  // The filter before the string_sizes rewrite (which compares sizes): what pruning reads.
  std::optional<Expr> prune_filter;
  bool is_table() const { return !function.has_value(); }
  // Whether column `i` is read as sizes.
  bool reads_sizes(size_t i) const { return i < string_sizes.size() && string_sizes[i]; }
  friend bool operator==(const Scan&, const Scan&) = default;
};

struct Fragment;

// A hash join of the rows read (after Fragment::filter) with build rows: either rows the
// coordinator sends in the plan (a broadcast build side, so every worker joins its own rows with
// the same build rows and the big side is never gathered), or, with `local_build`, rows each
// worker reads from its own shard of another table (co-located: both tables were sharded by the
// join key for this worker count, so a row's partners all live on its worker). The joined block is the rows read, then each join's `build`
// columns in join order (Fragment::joins); later operators' column references index it.
//   kInner: a row per matching pair; kLeft: also unmatched rows, with default build values;
//   kSemi: a row per probe row with a match (the first one); kAnti: probe rows without a match
//   (default build values); kRight / kFull: kInner's / kLeft's rows, then each build row that no
//   probe row matched, with default probe values (FragmentPipeline::ConsumeUnmatched) — only as
//   the first join, built from a local_build whose rows live on one worker each (shuffled, or
//   the cluster's only worker). A NULL key matches nothing.
struct BroadcastJoin {
  enum class Kind : uint8_t { kInner, kLeft, kSemi, kAnti, kRight, kFull };
  Kind kind = Kind::kInner;
  std::vector<Expr> probe_keys;      // over the joined block so far
  std::vector<uint32_t> build_keys;  // columns of `build`, pairwise with probe_keys
  Block build;                       // REQUIRES: row_keys.h KeysComparable for each key pair
  std::vector<std::string> names;    // of the build columns, for EXPLAIN (not sent to workers)
  // Co-located: a projecting fragment (no joins, no aggregate, no top-N) over this worker's
  // shard whose rows become `build` on the worker; `build` is then empty in the plan.
  std::shared_ptr<const Fragment> local_build;
  // Shuffle (with local_build, the first join only): neither table is sharded by the key, so
  // every worker sends each row of its shard's build, and each probe row that passed the
  // filter, to the worker that owns the row's key hash (worker/exchange.h); each worker then
  // joins the rows it received. Fragment::exchange_peers names the workers.
  bool shuffle = false;
  // join_use_nulls = 1 (kLeft, kSemi, kAnti): the build's columns come out Nullable, NULL for
  // probe rows without a partner (core/join/gather_rows.h), as ClickHouse's LEFT joins give them.
  bool use_nulls = false;
};

// One aggregate function call of an Aggregate.
struct AggregateCall {
  std::string name;
  std::vector<Expr> args;
  TypeId result_type = TypeId::kUInt64;
  // uniqExact of an integer argument whose values all lie in [bitmap_base, bitmap_base +
  // bitmap_bits) (the minimum's bit pattern widened to 64 bits): a bitmap per group instead of a
  // hash set (core/aggregation/distinct_bitmap_function.cc). 0 bits = hash set.
  uint64_t bitmap_base = 0;
  uint64_t bitmap_bits = 0;
  // uniq / uniqExact whose argument values on different workers are disjoint: workers send
  // per-group counts that the coordinator adds up.
  bool disjoint_across_workers = false;
  friend bool operator==(const AggregateCall&, const AggregateCall&) = default;
};

// The groups a worker ships when it finalizes its own groups (Aggregate::finalize_on_worker):
// those for which `having` holds (when set), then with limit > 0 the first `limit` of them in the
// order of `order` (expressions over the block of keys then finalized aggregates; ties keep group
// order). Exact because every group lives on one worker.
struct LocalCut {
  std::optional<Expr> having;
  std::vector<Expr> order;
  std::vector<bool> descending;  // one per `order` expression
  std::vector<bool> nulls_first;  // one per `order` expression, or empty: every key NULLS LAST
  uint64_t limit = 0;            // 0 = every group that passes `having`
  bool active() const { return having.has_value() || limit > 0; }
  friend bool operator==(const LocalCut&, const LocalCut&) = default;
};

// GROUP BY keys and aggregate calls over the filtered rows.
struct Aggregate {
  std::vector<Expr> keys;
  std::vector<AggregateCall> calls;
  // false: the worker sends partial states by hash bucket for the coordinator's bucketed merge.
  // true: every group lives on one worker (the table is sharded by the keys), so the worker
  // finalizes its groups and sends blocks of keys then results; the coordinator concatenates.
  bool finalize_on_worker = false;
  // One integer key whose widened values v all satisfy v - direct_key_base < 65536 (unsigned):
  // group with a direct-indexed array instead of a hash table.
  bool direct_key = false;
  uint64_t direct_key_base = 0;
  // GROUP BY ... LIMIT without ORDER BY / HAVING: L = limit + offset > 0 makes every thread
  // aggregate only rows whose key hash may be among the L smallest
  // (core/aggregation/hash_limit_filter.h). 0 = off.
  uint64_t hash_limit = 0;
  // GROUP BY ... ORDER BY k LIMIT without HAVING, k = keys[order_key] the first ORDER BY key:
  // L = limit + offset > 0 makes every thread aggregate only rows whose k may be among the L
  // first distinct values in that order (hash_limit_filter.h, ByKeyOrder). 0 = off.
  uint64_t order_limit = 0;
  uint32_t order_key = 0;
  bool order_descending = false;
  LocalCut local_cut;  // with finalize_on_worker only
  friend bool operator==(const Aggregate&, const Aggregate&) = default;
};

// One ORDER BY key of a TopN: an output column of the fragment.
struct SortKey {
  uint32_t column = 0;
  bool descending = false;
  bool nulls_first = false;  // NULLs (and NaN) before the values; ClickHouse's default is last
  friend bool operator==(const SortKey&, const SortKey&) = default;
};

// The fragment: operators in pipeline order, plus the query's identity and settings.
struct Fragment {
  std::string query_id;
  uint32_t worker_index = 0;
  uint32_t worker_count = 1;

  Scan scan;
  std::optional<Expr> filter;  // over the rows read
  std::vector<BroadcastJoin> joins;
  std::optional<Expr> join_filter;  // over the joined block, after the last join
  // Without `aggregate`: the output columns.
  std::vector<Expr> projections;
  std::optional<Aggregate> aggregate;
  // Projecting fragments: a partial top-N — sort by these output columns, keep `limit` rows
  // (no keys: the first `limit` rows). limit 0 = no limit.
  std::vector<SortKey> order_by;
  uint64_t limit = 0;
  // A projecting fragment with a small limit reads the columns neither the filter nor the ORDER
  // BY keys read only for rows that can reach the top-N (worker/late_materialized_scan.h).
  bool late_materialization = false;
  // EXPLAIN indexes = 1: the worker opens the scan (pruning parts and granules), reports
  // FragmentStats and reads nothing.
  bool explain_only = false;

  // The query's settings; the wire carries only the changed ones.
  Settings settings;

  // A fragment with a shuffled join: the query's exchange, unique per fan-out, and the address of
  // the worker that runs shard i, for i < worker_count. Set by the coordinator's fan-out.
  uint64_t exchange_id = 0;
  std::vector<std::string> exchange_peers;

  // The coordinator's choice of shards to run on, in increasing order; empty = every shard. Set
  // when the filter fixes the sharding key (rules/skip_unused_shards.h); not sent to workers.
  std::vector<uint32_t> shards;

  bool aggregating() const { return aggregate.has_value(); }
  bool joining() const { return !joins.empty(); }
  bool shuffling() const { return !joins.empty() && joins[0].shuffle; }
  // Whether the first join also emits the build rows no probe row matched (RIGHT / FULL).
  bool emits_unmatched() const {
    return !joins.empty() && (joins[0].kind == BroadcastJoin::Kind::kRight ||
                              joins[0].kind == BroadcastJoin::Kind::kFull);
  }
};

}  // namespace granite::core::plan
