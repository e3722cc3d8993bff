#include "core/fragment_pipeline.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/aggregation/hash_table_stats.h"
#include "core/aggregation/key_order_code.h"
#include "core/aggregation/local_finalizer.h"
#include "core/aggregation/local_merger.h"
#include "core/dictionary_codes.h"
#include "core/error.h"
#include "core/functions/cast_column.h"
#include "core/hash.h"
#include "core/mask_count.h"
#include "core/plan/plan_text.h"
#include "core/shared_arguments.h"
#include "core/status_macros.h"

namespace granite::core {

namespace {

// True when every value of type `from` is a value of type `to` (plain integers only).
bool HoldsAll(TypeId to, TypeId from) {
  if (to == from) return true;
  if (IsDateOrDateTime(to) || IsDateOrDateTime(from) || !IsInteger(to) || !IsInteger(from)) {
    return false;
  }
  if (IsSignedInteger(from)) return IsSignedInteger(to) && ValueSize(to) >= ValueSize(from);
  return IsSignedInteger(to) ? ValueSize(to) > ValueSize(from) : ValueSize(to) >= ValueSize(from);
}

// Returns the operand e of an integer key `0 + e`, `e + 0`, `e - 0`, `e * 1` or `1 * e` (nested:
// the innermost) whose type holds every value of e's type, else null: grouping by e and widening
// the emitted keys gives the same groups without a pass over the rows.
const plan::Expr* IdentityOperand(const plan::Expr& key) {
  if (!key.is_call() || key.args.size() != 2) return nullptr;
  const std::string& name = key.function;
  if (name != "plus" && name != "minus" && name != "multiply") return nullptr;
  const uint64_t identity = name == "multiply" ? 1 : 0;
  for (int side = 0; side < 2; ++side) {
    if (name == "minus" && side == 0) continue;  // 0 - e is not e
    const plan::Expr& literal = key.args[side];
    const plan::Expr& operand = key.args[1 - side];
    if (!literal.is_literal()) continue;
    const uint64_t* u = std::get_if<uint64_t>(&literal.literal);
    const int64_t* i = std::get_if<int64_t>(&literal.literal);
    bool is_identity = (u != nullptr && *u == identity) ||
                       (i != nullptr && *i == static_cast<int64_t>(identity));
    if (!is_identity || !HoldsAll(key.type, operand.type)) continue;
    const plan::Expr* inner = IdentityOperand(operand);
    return inner != nullptr ? inner : &operand;
  }
  return nullptr;
}

// Returns the worker-merge mode of setting group_by_worker_merge (validated by the registry).
LocalMerger::Options::WorkerMerge WorkerMergeOf(const Settings& settings) {
  using WorkerMerge = LocalMerger::Options::WorkerMerge;
  const std::string& value = settings.group_by_worker_merge;
  if (value == "always" || value == "1") return WorkerMerge::kAlways;
  if (value == "never" || value == "0") return WorkerMerge::kNever;
  return WorkerMerge::kAuto;
}

// Returns the hash of what decides the size of a fragment's GROUP BY tables (HashTableStats):
// source table and columns, filter, keys, aggregates, the key-hash filter and the key range.
uint64_t TableShape(const plan::Fragment& fragment) {
  plan::Fragment shape;
  shape.scan = fragment.scan;
  shape.filter = fragment.filter;
  shape.aggregate = fragment.aggregate;
  if (shape.aggregate) shape.aggregate->local_cut = plan::LocalCut();
  std::string text;
  for (const std::string& line : plan::FragmentText(shape)) absl::StrAppend(&text, line, "\n");
  return HashBytes(text);
}

// Marks in *read every input column that `expr` references.
void MarkColumns(const plan::Expr& expr, std::vector<bool>* read) {
  if (expr.is_column()) {
    if (expr.column >= read->size()) read->resize(expr.column + 1, false);
    (*read)[expr.column] = true;
  } else if (expr.is_call()) {
    for (const plan::Expr& arg : expr.args) MarkColumns(arg, read);
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<FragmentPipeline>> FragmentPipeline::Compile(
    const plan::Fragment& fragment, JoinInputs inputs) {
  std::unique_ptr<FragmentPipeline> p(new FragmentPipeline());
  const Settings& settings = fragment.settings;
  p->max_joined_rows_ = settings.max_joined_block_size_rows;
  if (fragment.filter) {
    ASSIGN_OR_RETURN(p->filter_, Expression::Compile(*fragment.filter));
  }
  RETURN_IF_ERROR(p->CompileJoins(fragment, std::move(inputs)));
  p->aggregating_ = fragment.aggregating();
  if (p->aggregating_) {
    const plan::Aggregate& aggregate = *fragment.aggregate;
    for (const plan::Expr& key : aggregate.keys) {
      ASSIGN_OR_RETURN(auto expr, Expression::Compile(key));
      p->key_types_.push_back(expr->type());
      // `0 + e` groups by e and widens only the emitted keys (IdentityOperand). Not with the key
      // hash filter, whose per-row hashes are kept by the coordinator.
      bool fold = aggregate.hash_limit == 0 && settings.use_value_ranges;
      const plan::Expr* operand = fold ? IdentityOperand(key) : nullptr;
      if (operand != nullptr) {
        ASSIGN_OR_RETURN(expr, Expression::Compile(*operand));
      }
      p->grouped_key_types_.push_back(expr->type());
      p->keys_.push_back(std::move(expr));
    }
    // Arithmetic repeated across arguments runs once a batch (shared_arguments.h).
    std::vector<std::vector<plan::Expr>> arg_exprs;
    for (const plan::AggregateCall& call : aggregate.calls) arg_exprs.push_back(call.args);
    SharedArguments shared = ShareArithmetic(&arg_exprs);
    p->shared_base_ = shared.base;
    for (const plan::Expr& call : shared.calls) {
      ASSIGN_OR_RETURN(auto expr, Expression::Compile(call));
      p->shared_args_.push_back(std::move(expr));
    }
    for (size_t c = 0; c < aggregate.calls.size(); ++c) {
      const plan::AggregateCall& call = aggregate.calls[c];
      AggregateSpec spec;
      spec.name = call.name;
      spec.bitmap_base = call.bitmap_base;
      spec.bitmap_bits = call.bitmap_bits;
      spec.disjoint = call.disjoint_across_workers;
      p->any_disjoint_ = p->any_disjoint_ || spec.disjoint;
      std::vector<std::unique_ptr<Expression>> args;
      for (const plan::Expr& arg : arg_exprs[c]) {
        ASSIGN_OR_RETURN(auto expr, Expression::Compile(arg));
        spec.arg_types.push_back(expr->type());
        args.push_back(std::move(expr));
      }
      p->specs_.push_back(std::move(spec));
      p->aggregate_args_.push_back(std::move(args));
    }
    // group_by_two_level_threshold sets both the conversion of tables and the size at which the
    // thread-local merge goes parallel (ClickHouse's meaning); without it they keep their own
    // defaults (late conversion, early parallel merge).
    if (settings.IsChanged(&Settings::group_by_two_level_threshold)) {
      p->aggregator_options_.two_level_threshold = settings.group_by_two_level_threshold;
      p->parallel_merge_threshold_ = settings.group_by_two_level_threshold;
    }
    p->aggregator_options_.two_level_threshold_bytes = settings.group_by_two_level_threshold_bytes;
    p->single_block_threshold_ = settings.group_by_single_block_threshold;
    p->worker_merge_ = WorkerMergeOf(settings);
    p->collect_table_stats_ =
        settings.collect_hash_table_stats_during_aggregation && !aggregate.keys.empty();
    p->finalize_in_place_ = settings.worker_finalize_in_place;
    p->table_shape_ = TableShape(fragment);
    p->final_only_states_ = fragment.worker_count <= 1 || aggregate.finalize_on_worker;
    // Fail at compile time, not per thread, if the aggregation cannot be built.
    if (aggregate.direct_key && aggregate.keys.size() == 1) {
      p->aggregator_options_.direct_key = true;
      p->aggregator_options_.direct_key_base = aggregate.direct_key_base;
    }
    RETURN_IF_ERROR(
        Aggregator::Create(p->grouped_key_types_, p->specs_, p->aggregator_options_).status());
  } else {
    for (const plan::Expr& projection : fragment.projections) {
      ASSIGN_OR_RETURN(auto expr, Expression::Compile(projection));
      p->projections_.push_back(std::move(expr));
    }
    for (const plan::SortKey& key : fragment.order_by) {
      p->order_.push_back(SortColumn{key.column, key.descending, key.nulls_first});
    }
    // Its bound is on a column of the rows read; with joins, rows are cut after them instead.
    if (!fragment.joining()) p->top_n_threshold_ = TopNThreshold::For(fragment);
  }
  if (fragment.aggregate) {
    for (const plan::Expr& key : fragment.aggregate->keys) {
      MarkColumns(key, &p->read_after_filter_);
    }
    for (const plan::AggregateCall& call : fragment.aggregate->calls) {
      for (const plan::Expr& arg : call.args) MarkColumns(arg, &p->read_after_filter_);
    }
  } else {
    for (const plan::Expr& projection : fragment.projections) {
      MarkColumns(projection, &p->read_after_filter_);
    }
  }
  for (const plan::BroadcastJoin& join : fragment.joins) {
    for (const plan::Expr& key : join.probe_keys) MarkColumns(key, &p->read_after_filter_);
  }
  if (fragment.join_filter) MarkColumns(*fragment.join_filter, &p->read_after_filter_);
  for (bool read : p->read_after_filter_) p->any_read_after_filter_ |= read;
  p->limit_ = fragment.limit;
  if (p->aggregating_ && !p->key_types_.empty()) {
    const plan::Aggregate& aggregate = *fragment.aggregate;
    p->hash_limit_ = aggregate.hash_limit;
    // An order code exists for the key as grouped (a folded `0 + e` key sorts as e does); for
    // other types the filter is left out, which only costs time.
    if (aggregate.order_limit > 0 && aggregate.order_key < p->grouped_key_types_.size() &&
        HasOrderCode(p->grouped_key_types_[aggregate.order_key])) {
      p->order_limit_ = aggregate.order_limit;
      p->order_key_ = aggregate.order_key;
      p->order_descending_ = aggregate.order_descending;
    }
  }
  if (fragment.filter && !p->any_read_after_filter_ && !p->limit_filter()) {
    p->filter_counter_ = FilterCounter::Match(*fragment.filter);
  }
  // Something is read after the filter (else Filter() copies nothing: count() WHERE ...).
  if (p->aggregating_ && p->filter_ && p->any_read_after_filter_ && !p->limit_filter() &&
      !fragment.joining()) {
    auto is_column = [](const plan::Expr& expr) { return expr.is_column(); };
    const plan::Aggregate& aggregate = *fragment.aggregate;
    bool plain = std::all_of(aggregate.keys.begin(), aggregate.keys.end(), is_column);
    for (const plan::AggregateCall& call : aggregate.calls) {
      plain = plain && std::all_of(call.args.begin(), call.args.end(), is_column);
    }
    p->aggregate_selected_ = settings.aggregate_selected_filter && plain;
    bool row_wise = std::all_of(aggregate.keys.begin(), aggregate.keys.end(), IsRowWiseArithmetic);
    for (const plan::AggregateCall& call : aggregate.calls) {
      row_wise = row_wise && std::all_of(call.args.begin(), call.args.end(), IsRowWiseArithmetic);
    }
    p->aggregate_selected_dense_ = settings.aggregate_selected_filter && !plain && row_wise;
  }
  p->PlanCodesOnlyColumns(fragment);
  return p;
}

void FragmentPipeline::PlanCodesOnlyColumns(const plan::Fragment& fragment) {
  if (!aggregating_ || !fragment.aggregate || fragment.joining() || limit_filter()) return;
  // Filter() copies the columns keys and arguments read: only ConsumeSelected (or no filter)
  // leaves a key column as it was read.
  const bool keys_in_place = !filter_ || aggregate_selected_;
  std::vector<int> state;  // per input column: 0 unread, 1 read through codes, 2 read otherwise
  auto note = [&](const plan::Expr& expr, bool through_codes) {
    std::vector<bool> read;
    MarkColumns(expr, &read);
    if (read.size() > state.size()) state.resize(read.size(), 0);
    for (size_t c = 0; c < read.size(); ++c) {
      if (!read[c]) continue;
      state[c] = through_codes && state[c] != 2 ? 1 : 2;
    }
  };
  if (fragment.filter) {
    note(*fragment.filter, DictionaryColumnOf(*fragment.filter) >= 0);
  }
  const plan::Aggregate& aggregate = *fragment.aggregate;
  for (size_t k = 0; k < aggregate.keys.size(); ++k) {
    const plan::Expr& key = aggregate.keys[k];
    // The only key, a String column, is grouped by code (Aggregator::AssignByDictionary); a key
    // of one column's expression is evaluated per distinct value.
    const bool by_code = key.is_column() && aggregate.keys.size() == 1 &&
                         grouped_key_types_[0] == TypeId::kString;
    note(key, keys_in_place && (by_code || DictionaryColumnOf(key) >= 0));
  }
  for (const plan::AggregateCall& call : aggregate.calls) {
    for (const plan::Expr& arg : call.args) note(arg, false);
  }
  bool any = false;
  codes_only_columns_.assign(state.size(), false);
  for (size_t c = 0; c < state.size(); ++c) {
    codes_only_columns_[c] = state[c] == 1;
    any = any || state[c] == 1;
  }
  if (!any) codes_only_columns_.clear();
}

absl::StatusOr<std::unique_ptr<FragmentPipeline::LocalState>> FragmentPipeline::NewLocalState()
    const {
  auto state = std::make_unique<LocalState>();
  if (aggregating_) {
    ASSIGN_OR_RETURN(state->aggregator,
                     Aggregator::Create(grouped_key_types_, specs_, aggregator_options_));
    if (hash_limit_ > 0) state->hash_filter = std::make_unique<HashLimitFilter>(hash_limit_);
    if (order_limit_ > 0) {
      state->hash_filter = std::make_unique<HashLimitFilter>(
          HashLimitFilter::ByKeyOrder(order_limit_, order_key_, order_descending_));
    }
    // Applied by the thread itself on its first rows (Consume): the table's pages are then
    // zeroed on every thread at once, not one table after another here.
    if (collect_table_stats_) {
      state->presize_groups = HashTableStats::Global().Lookup(table_shape_).value_or(0);
    }
  }
  return state;
}

absl::StatusOr<Block> FragmentPipeline::Filter(const Block& input) const {
  if (!filter_) return input;
  if (filter_counter_) {  // count() WHERE x <> c: no mask, no column read after the filter
    if (std::optional<size_t> kept = filter_counter_->Count(input)) {
      if (*kept == input.rows()) return input;
      Block out;
      out.rows_without_columns = *kept;
      return out;
    }
  }
  ASSIGN_OR_RETURN(ColumnPtr mask_column, filter_->Evaluate(input));
  // The filter's result is UInt8 (comparisons, logic); other integer types are normalised by the
  // planner with notEquals(x, 0).
  const uint8_t* mask = mask_column->Data<uint8_t>();
  size_t rows = input.rows();
  size_t kept = CountNonZero(mask, rows);
  if (kept == rows) return input;
  // Below one kept row in 8, the kept rows' indices (one pass over the mask) let each column read
  // after the filter gather them instead of passing over every row again (FilterRows).
  if (kept > 0 && kept * 8 < rows && any_read_after_filter_) {
    std::vector<uint32_t> selection(kept);
    SelectNonZero(mask, rows, kept, selection.data());
    return FilterRows(input, mask, kept, selection.data());
  }
  return FilterRows(input, mask, kept);
}

Block FragmentPipeline::FilterRows(const Block& input, const uint8_t* mask, size_t kept,
                                   const uint32_t* selection) const {
  // Below one kept row in 8, a gather of the kept rows beats a filter's pass over the mask with
  // a branch per row (rows kept by a date range over a table sorted by another key).
  const bool take = selection != nullptr && kept * 8 < input.rows();
  Block out;
  out.rows_without_columns = kept;
  // The key-hash filter (hash_limit_filter.h) filters every column of the block again. (The
  // key-order filter keeps the columns left empty here empty.)
  const bool all_read = hash_limit_ > 0;
  if (!all_read && !any_read_after_filter_) return out;  // rows only, e.g. count() WHERE ...
  for (size_t c = 0; c < input.columns.size(); ++c) {
    const ColumnPtr& column = input.columns[c];
    const bool read = all_read || ReadAfterFilter(c);
    if (kept == 0 || !read) {
      out.columns.push_back(std::make_shared<Column>(column->logical_type()));
    } else {
      // (A column the fragment does not read may be left empty by the scan: Filter keeps it so.)
      const bool gather = take && column->size() == input.rows();
      out.columns.push_back(std::make_shared<Column>(gather ? column->Take(selection, kept)
                                                            : column->Filter(mask)));
    }
  }
  return out;
}

absl::Status FragmentPipeline::Consume(LocalState& state, const Block& input) const {
  const Block* source = &input;
  Block narrowed;
  const TopNThreshold* bound = top_n_threshold_ ? &*top_n_threshold_ : nullptr;
  if (bound != nullptr && state.top_n_bound.set && bound->input_column() < input.columns.size() &&
      input.columns[bound->input_column()]->type() == bound->type()) {
    // Rows whose first key cannot enter this thread's top-N skip the filter (top_n_threshold.h).
    std::vector<uint8_t> mask;
    const size_t kept =
        bound->Select(*input.columns[bound->input_column()], state.top_n_bound, &mask);
    if (kept == 0) return absl::OkStatus();
    if (kept < input.rows()) {
      narrowed.rows_without_columns = kept;
      for (const ColumnPtr& column : input.columns) {
        narrowed.columns.push_back(std::make_shared<Column>(column->Filter(mask.data())));
      }
      source = &narrowed;
    }
  }
  if (aggregate_selected_ || aggregate_selected_dense_) return ConsumeSelected(state, *source);
  if (joins_selected()) {
    // Only the first join's key columns are filtered; its joined rows are gathered from the
    // scanned block (JoinSelected).
    ASSIGN_OR_RETURN(ColumnPtr mask_column, filter_->Evaluate(*source));
    const uint8_t* mask = mask_column->Data<uint8_t>();
    const size_t kept = CountNonZero(mask, source->rows());
    state.rows_filtered += source->rows();
    state.rows_passed += kept;
    if (kept == 0) return absl::OkStatus();
    if (kept < source->rows()) return JoinSelected(state, *source, mask, kept);
    return JoinFrom(state, *source, 0);
  }
  ASSIGN_OR_RETURN(Block block, Filter(*source));
  size_t rows = block.rows();
  state.rows_filtered += source->rows();
  state.rows_passed += rows;
  if (rows == 0) return absl::OkStatus();
  if (!joins_.empty()) return JoinFrom(state, std::move(block), 0);
  return ConsumeOutput(state, std::move(block));
}

absl::Status FragmentPipeline::ConsumeOutput(LocalState& state, Block block) const {
  size_t rows = block.rows();
  if (aggregating_) {
    PresizeOnce(state);
    ASSIGN_OR_RETURN(std::vector<ColumnPtr> keys, EvaluateKeys(block));
    if (state.hash_filter) {
      // GROUP BY ... [ORDER BY k] LIMIT: skip the rows of keys that cannot be returned.
      rows = state.hash_filter->Apply(&block, &keys);
      if (rows == 0) return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(auto args, EvaluateArgs(block));
    return state.aggregator->Add(keys, args, rows);
  }
  Block projected;
  projected.rows_without_columns = rows;
  for (const auto& projection : projections_) {
    ASSIGN_OR_RETURN(ColumnPtr column, projection->Evaluate(block));
    projected.columns.push_back(std::move(column));
  }
  if (limit_ > 0 && order_.empty() && state.rows + rows > limit_) {
    projected = SliceRows(projected, 0, limit_ - state.rows);
    rows = projected.rows();
  }
  if (limit_ > 0 && !order_.empty() && rows > limit_) {
    // Only this block's own top-N can reach the result: keep just those rows, so the state never
    // copies and re-sorts a whole morsel's projected rows.
    projected = TakeRows(projected, SortPermutation(projected, order_, limit_));
    rows = projected.rows();
  }
  state.rows += rows;
  state.blocks.push_back(std::move(projected));
  if (top_n_threshold_ && state.rows >= limit_) {
    if (state.blocks.size() > 1) RETURN_IF_ERROR(Compact(state));
    top_n_threshold_->Tighten(
        *state.blocks.front().columns[top_n_threshold_->projected_column()], &state.top_n_bound);
  }
  if (limit_ > 0 && !order_.empty() && state.rows > 2 * limit_ + 65536) return Compact(state);
  return absl::OkStatus();
}

absl::Status FragmentPipeline::Compact(LocalState& state) const {
  Block all = ConcatBlocks(state.blocks);
  Block top = TakeRows(all, SortPermutation(all, order_, limit_));
  state.blocks.clear();
  state.rows = top.rows();
  state.blocks.push_back(std::move(top));
  return absl::OkStatus();
}

bool FragmentPipeline::Satisfied(const LocalState& state) const {
  return !aggregating_ && limit_ > 0 && order_.empty() && state.rows >= limit_;
}

absl::StatusOr<Block> FragmentPipeline::FinishRows(
    std::vector<std::unique_ptr<LocalState>> states) const {
  std::vector<Block> blocks;
  for (auto& state : states) {
    for (Block& block : state->blocks) {
      if (block.rows() > 0) blocks.push_back(std::move(block));
    }
  }
  if (blocks.empty()) {
    Block empty;
    for (const auto& projection : projections_) {
      empty.columns.push_back(std::make_shared<Column>(projection->type()));
    }
    return empty;
  }
  Block all = ConcatBlocks(blocks);
  if (!order_.empty()) return TakeRows(all, SortPermutation(all, order_, limit_));
  return SliceRows(all, 0, limit_);
}

LocalMerger::Options FragmentPipeline::MergeOptions() const {
  LocalMerger::Options options;
  options.parallel_threshold = parallel_merge_threshold_;
  if (aggregator_options_.two_level_threshold_bytes > 0) {
    options.parallel_threshold_bytes =
        std::min(options.parallel_threshold_bytes, aggregator_options_.two_level_threshold_bytes);
  }
  options.final_only = final_only_states_;
  options.single_threshold = single_block_threshold_;
  // Disjoint distinct counts (AggregateSpec::disjoint) need each group's only state per worker.
  options.worker_merge = any_disjoint_ ? LocalMerger::Options::WorkerMerge::kAlways : worker_merge_;
  return options;
}

void FragmentPipeline::RecordTableSizes(
    const std::vector<std::unique_ptr<LocalState>>& states) const {
  if (!collect_table_stats_) return;
  size_t largest = 0;
  for (const auto& state : states) {
    if (state->aggregator) largest = std::max(largest, state->aggregator->size());
  }
  HashTableStats::Global().Record(table_shape_, largest);
}

absl::StatusOr<std::vector<Block>> FragmentPipeline::FinishBuckets(
    std::vector<std::unique_ptr<LocalState>> states, ThreadPool* pool) const {
  RecordTableSizes(states);
  std::vector<std::unique_ptr<Aggregator>> aggregators;
  for (auto& state : states) aggregators.push_back(std::move(state->aggregator));
  return LocalMerger::Merge(std::move(aggregators), pool, MergeOptions());
}

absl::StatusOr<LocalMerger::PartialResult> FragmentPipeline::FinishPartial(
    std::vector<std::unique_ptr<LocalState>> states, ThreadPool* pool) const {
  RecordTableSizes(states);
  std::vector<std::unique_ptr<Aggregator>> aggregators;
  for (auto& state : states) aggregators.push_back(std::move(state->aggregator));
  LocalMerger::PartialResult result =
      LocalMerger::MergeToPartial(std::move(aggregators), pool, MergeOptions());
  for (Block& block : result.blocks) RETURN_IF_ERROR(WidenKeys(&block));
  return result;
}

absl::Status FragmentPipeline::WidenKeys(Block* block) const {
  for (size_t k = 0; k < key_types_.size() && k < block->columns.size(); ++k) {
    if (grouped_key_types_[k] == key_types_[k]) continue;
    ASSIGN_OR_RETURN(block->columns[k], CastColumn(block->columns[k], key_types_[k]));
  }
  return absl::OkStatus();
}

absl::StatusOr<Block> FragmentPipeline::FinishFinalized(
    std::vector<std::unique_ptr<LocalState>> states, ThreadPool* pool,
    const BucketCut& cut_bucket) const {
  RecordTableSizes(states);
  std::vector<std::unique_ptr<Aggregator>> aggregators;
  for (auto& state : states) aggregators.push_back(std::move(state->aggregator));
  // Each piece (a bucket, or everything when small) is widened and cut where it is finalized.
  auto finish = [&](Block groups) -> absl::StatusOr<Block> {
    RETURN_IF_ERROR(WidenKeys(&groups));
    if (!cut_bucket) return groups;
    return cut_bucket(std::move(groups));
  };
  ASSIGN_OR_RETURN(std::vector<Block> pieces,
                   LocalFinalizer::Finalize(std::move(aggregators), pool, MergeOptions(), finish,
                                            finalize_in_place_));
  if (pieces.empty()) {
    // No groups: an empty block with the result's column types.
    AggregatorOptions options;
    options.sparse = true;
    ASSIGN_OR_RETURN(auto aggregator, Aggregator::Create(grouped_key_types_, specs_, options));
    ASSIGN_OR_RETURN(Block empty, aggregator->Finalize());
    RETURN_IF_ERROR(WidenKeys(&empty));
    return empty;
  }
  return pieces.size() == 1 ? std::move(pieces[0]) : ConcatBlocks(pieces);
}

}  // namespace granite::core
