// FragmentPipeline: the per-row part of a plan fragment — filter, then projection or partial
// aggregation, then partial top-N — compiled once and run by many threads over input blocks.
// Workers run it over morsels of their parts; the coordinator runs the same pipeline over the
// in-memory blocks of system tables, so both paths share one implementation.
//
// Data flow: Consume(state, block) per morsel on each thread (thread-local state: an Aggregator or
// a list of projected blocks), then one Finish* call merges the thread-local states: rows are
// concatenated and cut to the top-N; aggregators are merged in memory by LocalMerger into
// kBucketCount partial blocks (in parallel over buckets or key ranges when the result is big).
//
// Settings read from Fragment::settings: group_by_two_level_threshold (groups:
// tables convert to two-level, and the thread-local merge goes parallel, past it; default 4M for
// the conversion, 100000 for the merge), group_by_two_level_threshold_bytes (default 256 MiB for
// the conversion; the merge also goes parallel past min(16 MiB, this) of tables and states),
// group_by_single_block_threshold (groups, default 4096, 0 = never: below it a result whose
// tables stayed single-level is sent as one block instead of buckets, see LocalMerger),
// group_by_worker_merge ('auto' default, 'always', 'never': whether the parallel thread-local
// merge may send threads' groups unmerged when merging would not reduce them, see LocalMerger),
// worker_finalize_in_place (1 default, 0 = the old path through partial buckets, for A/B: see
// LocalFinalizer::Finalize), collect_hash_table_stats_during_aggregation (1 default, 0 = off:
// each thread's table starts at the size the largest thread table of the same fragment shape
// reached last time in this process, see hash_table_stats.h), aggregate_selected_filter (1 default, 0 = off: a filter
// feeding an aggregation of plain columns, or of arithmetic over columns when it keeps most rows,
// passes a selection vector, see ConsumeSelected).
// A fragment sent to a single worker (worker_count <= 1) writes final-only states: the coordinator
// then finalizes each group from its only partial state (uniq sends its estimate, not its hashes).
// So does a fragment with finalize_on_worker, finalized by FinishFinalized on the worker itself.
// Fragment::joins (broadcast hash joins) run after the filter: each appends its build columns to
// the filtered rows (fragment_pipeline_join.cc), then join_filter drops joined rows.
// Aggregate::hash_limit = L > 0 puts a HashLimitFilter (hash_limit_filter.h) in front
// of each thread's Aggregator: only rows whose key hash may be among the L smallest are added;
// Aggregate::order_limit = L > 0 does the same with the order of one key (ORDER BY k LIMIT).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/aggregation/aggregator.h"
#include "core/aggregation/hash_limit_filter.h"
#include "core/aggregation/local_merger.h"
#include "core/block.h"
#include "core/block_sort.h"
#include "core/expression.h"
#include "core/filter_counter.h"
#include "core/join/grace_hash_join.h"
#include "core/join/join_table.h"
#include "core/thread_pool.h"
#include "core/top_n_threshold.h"
#include "core/plan/fragment.h"

namespace granite::core {

// Runs one fragment's filter / projection / aggregation over blocks.
// Thread-safety: const methods may run concurrently, each thread with its own LocalState.
class FragmentPipeline {
 public:
  // Holds one thread's partial result.
  struct LocalState {
    std::unique_ptr<Aggregator> aggregator;  // aggregating fragments
    std::unique_ptr<HashLimitFilter> hash_filter;  // Aggregate::hash_limit or order_limit > 0
    std::vector<Block> blocks;               // projecting fragments
    size_t rows = 0;
    uint64_t rows_read = 0;
    uint64_t bytes_read = 0;
    uint64_t rows_filtered = 0;  // rows that went through the filter (or would have, without one)
    uint64_t rows_passed = 0;    // rows of those that passed it
    TopNThreshold::Bound top_n_bound;  // ORDER BY ... LIMIT: this thread's bound, once it has one
    size_t presize_groups = 0;  // hash_table_stats.h: Aggregator::Presize on the first rows
    std::vector<uint32_t> selection;  // scratch of ConsumeSelected: the rows the filter kept
  };

  // What a worker gives its joins besides the plan: where they may spill, and builds already
  // split into buckets while they were read (co-located and shuffled builds).
  struct JoinInputs {
    std::string spill_dir;  // empty: joins never spill (the coordinator's local pipelines)
    // By join index: the build partitioned as it was read, whose BroadcastJoin::build holds
    // bucket 0 only; null (or missing): the plan's build is the whole build.
    std::vector<std::shared_ptr<GraceHashJoin>> prepared;
  };

  static absl::StatusOr<std::unique_ptr<FragmentPipeline>> Compile(
      const plan::Fragment& fragment, JoinInputs inputs = {});

  // Returns a GraceHashJoin for `join` (build columns as `build_shape`, no rows) spilling into
  // `spill_dir` under `settings`' budget (core/join/join_budget.h), or null when the query's
  // join_algorithm does not spill.
  static std::shared_ptr<GraceHashJoin> NewGraceJoin(const plan::BroadcastJoin& join,
                                                     const Block& build_shape,
                                                     const Settings& settings,
                                                     const std::string& spill_dir);

  absl::StatusOr<std::unique_ptr<LocalState>> NewLocalState() const;

  // Filters `input` and projects or aggregates it into `state`.
  absl::Status Consume(LocalState& state, const Block& input) const;

  // RIGHT / FULL first join (plan::BroadcastJoin::kRight, kFull): after every thread's rows were
  // consumed, adds the build rows no probe row matched — with the probe's columns at their
  // default values, typed as `probe_shape`'s columns (the fragment's input block, any rows) —
  // through the later joins, the join filter and the aggregation or projection, into `state`.
  // No-op for other fragments. REQUIRES: no Consume running.
  absl::Status ConsumeUnmatched(LocalState& state, const Block& probe_shape) const;

  // Spilled joins (grace hash join, core/join/grace_hash_join.h): after every thread's rows were
  // consumed, joins each spilled bucket's build and probe rows in turn, join by join, into
  // `state` — with the build rows no probe row matched when `unmatched_shape` is given (RIGHT /
  // FULL first join; the probe's columns as in ConsumeUnmatched). `drain` (may be empty) runs
  // after each bucket (a row streamer sends the rows). Stops with QUERY_WAS_CANCELLED once
  // `cancelled` is raised. No-op when nothing spilled. REQUIRES: no Consume running.
  absl::Status ConsumeSpilled(LocalState& state, const Block* unmatched_shape,
                              const std::atomic<bool>& cancelled,
                              const std::function<absl::Status(LocalState&)>& drain) const;
  // True when some join spilled its build.
  bool spilled() const;

  // Returns true once a LIMIT without ORDER BY is satisfied by `state`: the scan may stop.
  bool Satisfied(const LocalState& state) const;

  // Projecting fragments: concatenates all states' rows, applies the top-N / limit.
  absl::StatusOr<Block> FinishRows(std::vector<std::unique_ptr<LocalState>> states) const;

  // Aggregating fragments: returns kBucketCount partial-state blocks (keys, then states), bucket b
  // merged from every state. Buckets are merged in parallel on `pool` when there is enough work.
  absl::StatusOr<std::vector<Block>> FinishBuckets(std::vector<std::unique_ptr<LocalState>> states,
                                                   ThreadPool* pool) const;
  // Aggregating fragments: returns what is sent to the coordinator — one block with every group
  // for a small result, else the non-empty buckets (LocalMerger::MergeToPartial).
  absl::StatusOr<LocalMerger::PartialResult> FinishPartial(
      std::vector<std::unique_ptr<LocalState>> states, ThreadPool* pool) const;
  // Aggregating fragments with finalize_on_worker (this worker holds every row of its groups):
  // returns the finalized groups — keys, then aggregate results — like the coordinator's merge
  // (LocalFinalizer: each group hashed once after the scan, each bucket finalized in place).
  // With `cut_bucket`, each bucket's finalized groups (keys already widened) are passed through it
  // before the buckets are concatenated, in parallel on `pool` (a group lives in one bucket, so a
  // per-bucket HAVING or top-L keeps every group a cut of the whole result would keep).
  using BucketCut = std::function<absl::StatusOr<Block>(Block)>;
  absl::StatusOr<Block> FinishFinalized(std::vector<std::unique_ptr<LocalState>> states,
                                        ThreadPool* pool, const BucketCut& cut_bucket = {}) const;

  // Per input column: true when this pipeline reads the column only through dictionary codes
  // (core/dictionary_codes.h) — in a filter or key that is an expression of that column alone,
  // or as the only, String, GROUP BY key aggregated in place — so a scan may hand it over as codes
  // with empty strings (storage::Part::ReadColumn, codes_only). Only aggregations without joins
  // or key filters qualify. Empty when none does.
  const std::vector<bool>& codes_only_columns() const { return codes_only_columns_; }

  bool aggregating() const { return aggregating_; }
  // The running top-N bound of an ORDER BY ... LIMIT fragment (top_n_threshold.h), when it applies.
  const std::optional<TopNThreshold>& top_n_threshold() const { return top_n_threshold_; }
  std::vector<TypeId> key_types() const { return key_types_; }
  const std::vector<AggregateSpec>& aggregate_specs() const { return specs_; }
  const AggregatorOptions& aggregator_options() const { return aggregator_options_; }

 private:
  FragmentPipeline() = default;
  // Applies the filter; returns the input unchanged when there is none. Only the columns that
  // keys, aggregate arguments or projections read are filtered (and column 0, which gives the
  // block its row count); the others become empty placeholders, so a column that only the filter
  // reads (count() WHERE x <> 0) is never copied.
  absl::StatusOr<Block> Filter(const Block& input) const;
  // The copy Filter makes of the rows whose mask byte is non-zero (`kept` of them, < rows).
  // `selection` (optional): the kept rows' indices; when few rows are kept, the read columns
  // take those rows (work per kept row) instead of a pass over every row's mask byte.
  Block FilterRows(const Block& input, const uint8_t* mask, size_t kept,
                   const uint32_t* selection = nullptr) const;
  // Joins `block` (the filtered rows, joined up to join j) with Fragment::joins from j on, then
  // applies join_filter and consumes the rows (ConsumeOutput), in parts of about
  // max_joined_block_size_rows rows (fragment_pipeline_join.cc).
  absl::Status JoinFrom(LocalState& state, Block block, size_t j) const;
  // Joins `block`, whose join j keys are `keys`, with `table` (join j's build or one spilled
  // bucket of it), then continues with join j + 1 (JoinFrom).
  absl::Status ProbeInto(LocalState& state, const Block& block,
                         const std::vector<const Column*>& keys, size_t j,
                         const JoinTable& table) const;
  // Whether Consume may join the first join straight from the scanned block and the filter's
  // mask (JoinSelected).
  bool joins_selected() const;
  // The first join (INNER or SEMI, keys plain columns) probed with the key columns of the rows
  // `mask` keeps (`kept` of them), the other columns gathered from `input` for the joined rows
  // only: a join that drops most rows never copies them (fragment_pipeline_join.cc).
  absl::Status JoinSelected(LocalState& state, const Block& input, const uint8_t* mask,
                            size_t kept) const;
  // Appends the build columns of `table` (join j's) for the joined rows `build_rows` to `out`:
  // a column nothing after the join reads (read_after_filter_: a build key equal to its probe
  // key, a dimension column joined only to filter) stays an empty placeholder, not gathered.
  void AppendBuildColumns(const JoinTable& table, const std::vector<int64_t>& build_rows,
                          bool use_nulls, Block* out) const;
  // Evaluates join j's probe keys over `block`.
  absl::StatusOr<std::vector<ColumnPtr>> ProbeKeys(const Block& block, size_t j) const;
  // Adds the build rows of `table` (the first join's) no probe row matched (ConsumeUnmatched).
  absl::Status AddUnmatched(LocalState& state, const Block& probe_shape,
                            const JoinTable& table) const;
  // join_filter over joined rows.
  absl::StatusOr<Block> FilterJoined(Block block) const;
  // The end of Consume: aggregates or projects the rows `block` into `state`.
  absl::Status ConsumeOutput(LocalState& state, Block block) const;
  // Filters and aggregates `input` without filtered copies: the kept rows become a selection
  // vector that Aggregator::AddSelected reads the (plain column) keys and arguments through
  // (fragment_pipeline_selected.cc). With aggregate_selected_dense_, keys and arguments are
  // evaluated over every input row when the filter keeps most of them (else, or when that
  // evaluation fails, over a filtered copy as Consume does).
  // REQUIRES: aggregate_selected_ or aggregate_selected_dense_.
  absl::Status ConsumeSelected(LocalState& state, const Block& input) const;
  // Evaluates the group keys, then the aggregate arguments, over `block`.
  absl::StatusOr<std::vector<ColumnPtr>> EvaluateKeys(const Block& block) const;
  absl::StatusOr<std::vector<std::vector<ColumnPtr>>> EvaluateArgs(const Block& block) const;
  // Presizes the thread's aggregator on its first rows (hash_table_stats.h), once.
  static void PresizeOnce(LocalState& state);
  // Cuts accumulated rows down to the top-N when they grow past twice the limit.
  absl::Status Compact(LocalState& state) const;
  // Casts key columns grouped narrower than their type (`0 + e`) to their type.
  absl::Status WidenKeys(Block* block) const;
  // Returns the thread-local merge options of this fragment.
  LocalMerger::Options MergeOptions() const;
  // Records the largest thread table of `states` in HashTableStats (when collecting stats).
  void RecordTableSizes(const std::vector<std::unique_ptr<LocalState>>& states) const;

  // One compiled BroadcastJoin: the probe key expressions and the hashed build side.
  struct CompiledJoin {
    JoinTable::Kind kind;
    std::vector<std::unique_ptr<Expression>> probe_keys;
    JoinTable table;  // bucket 0's when `grace`
    // A spilled build: bucket 0 is `table`, the other buckets wait in their files.
    std::shared_ptr<GraceHashJoin> grace;
    std::vector<uint32_t> build_keys;
    std::vector<TypeId> probe_types;
    bool use_nulls = false;  // plan::BroadcastJoin::use_nulls: build columns come out Nullable
    // Every probe key is a column of the scanned block (its index); empty otherwise.
    std::vector<uint32_t> probe_columns;
  };
  // Compiles Fragment::joins and join_filter into joins_ / join_filter_.
  absl::Status CompileJoins(const plan::Fragment& fragment, JoinInputs inputs);

  // Constant after construction.
  std::unique_ptr<Expression> filter_;
  std::vector<CompiledJoin> joins_;
  std::unique_ptr<Expression> join_filter_;
  // Counts the kept rows of a count-only filter without its mask (filter_counter.h).
  std::optional<FilterCounter> filter_counter_;
  std::vector<std::unique_ptr<Expression>> projections_;
  bool aggregating_ = false;
  std::vector<std::unique_ptr<Expression>> keys_;
  std::vector<TypeId> key_types_;          // the keys' types as emitted
  std::vector<TypeId> grouped_key_types_;  // as grouped: narrower for `0 + e` (IdentityOperand)
  std::vector<std::vector<std::unique_ptr<Expression>>> aggregate_args_;
  // Calls several arguments repeat, evaluated first and read by aggregate_args_ as input
  // columns shared_base_, shared_base_ + 1, ... (core/shared_arguments.h).
  std::vector<std::unique_ptr<Expression>> shared_args_;
  uint32_t shared_base_ = 0;
  std::vector<AggregateSpec> specs_;
  AggregatorOptions aggregator_options_;
  size_t max_joined_rows_ = 65409;  // max_joined_block_size_rows (0 = unbounded)
  size_t parallel_merge_threshold_ = 100000;
  size_t single_block_threshold_ = LocalMerger::Options().single_threshold;
  LocalMerger::Options::WorkerMerge worker_merge_ = LocalMerger::Options::WorkerMerge::kAuto;
  bool final_only_states_ = false;
  bool finalize_in_place_ = true;  // worker_finalize_in_place (LocalFinalizer::Finalize)
  bool any_disjoint_ = false;  // some aggregate writes disjoint counts (AggregateSpec::disjoint)
  std::vector<SortColumn> order_;
  size_t limit_ = 0;
  std::optional<TopNThreshold> top_n_threshold_;
  size_t hash_limit_ = 0;  // Aggregate::hash_limit
  size_t order_limit_ = 0;  // Aggregate::order_limit, when its key's type has order codes
  size_t order_key_ = 0;
  bool order_descending_ = false;
  // Some rows are dropped between the key expressions and the aggregator (hash_filter).
  bool limit_filter() const { return hash_limit_ > 0 || order_limit_ > 0; }
  // collect_hash_table_stats_during_aggregation (default on): thread tables are presized from,
  // and report their size to, HashTableStats::Global() under this hash of the fragment's shape.
  bool collect_table_stats_ = true;
  uint64_t table_shape_ = 0;
  std::vector<bool> read_after_filter_;  // by input column: read by keys, arguments, projections
  // Whether a filtered or joined block carries column c (column 0 always: it carries the rows,
  // Block::rows()); the others are empty placeholders.
  bool ReadAfterFilter(size_t c) const {
    return c == 0 || (c < read_after_filter_.size() && read_after_filter_[c]);
  }
  bool any_read_after_filter_ = false;
  // Aggregating with a filter whose keys and arguments are all plain columns, no key-hash
  // filter, and aggregate_selected_filter on (default 1): Consume runs ConsumeSelected.
  bool aggregate_selected_ = false;
  // The same with some key or argument an expression, every one IsRowWiseArithmetic (a sum of
  // a product of columns): Consume runs ConsumeSelected, which evaluates them over the whole
  // block when the filter keeps most rows. (Not codes-only: PlanCodesOnlyColumns.)
  bool aggregate_selected_dense_ = false;
  std::vector<bool> codes_only_columns_;  // see codes_only_columns()
  // Sets codes_only_columns_ (at the end of Compile).
  void PlanCodesOnlyColumns(const plan::Fragment& fragment);
};

}  // namespace granite::core
