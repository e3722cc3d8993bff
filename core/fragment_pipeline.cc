#include "core/fragment_pipeline.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/aggregation/local_merger.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/status_macros.h"

namespace granite::core {

namespace pb = granite::worker::v1;

namespace {

// Reads a non-negative integer setting; absent leaves *value unchanged.
absl::Status ReadSizeSetting(const pb::Fragment& fragment, const std::string& name, size_t* value) {
  auto it = fragment.settings().find(name);
  if (it == fragment.settings().end()) return absl::OkStatus();
  uint64_t parsed = 0;
  if (!absl::SimpleAtoi(it->second, &parsed)) {
    return Error(ErrorCode::kCannotParseText,
                 absl::StrCat("Cannot parse \"", it->second, "\" as UInt64: setting ", name));
  }
  *value = parsed;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<FragmentPipeline>> FragmentPipeline::Compile(
    const pb::Fragment& fragment) {
  std::unique_ptr<FragmentPipeline> p(new FragmentPipeline());
  if (fragment.has_filter()) {
    ASSIGN_OR_RETURN(p->filter_, Expression::FromProto(fragment.filter()));
  }
  p->aggregating_ = fragment.aggregate();
  if (p->aggregating_) {
    for (const pb::Expr& key : fragment.group_keys()) {
      ASSIGN_OR_RETURN(auto expr, Expression::FromProto(key));
      p->key_types_.push_back(expr->type());
      p->keys_.push_back(std::move(expr));
    }
    for (const pb::AggregateCall& call : fragment.aggregates()) {
      AggregateSpec spec;
      spec.name = call.name();
      std::vector<std::unique_ptr<Expression>> args;
      for (const pb::Expr& arg : call.args()) {
        ASSIGN_OR_RETURN(auto expr, Expression::FromProto(arg));
        spec.arg_types.push_back(expr->type());
        args.push_back(std::move(expr));
      }
      p->specs_.push_back(std::move(spec));
      p->aggregate_args_.push_back(std::move(args));
    }
    // group_by_two_level_threshold sets both the conversion of tables and the size at which the
    // thread-local merge goes parallel (ClickHouse's meaning); without it they keep their own
    // defaults (late conversion, early parallel merge).
    size_t threshold = 0;
    if (fragment.settings().contains("group_by_two_level_threshold")) {
      RETURN_IF_ERROR(ReadSizeSetting(fragment, "group_by_two_level_threshold", &threshold));
      p->aggregator_options_.two_level_threshold = threshold;
      p->parallel_merge_threshold_ = threshold;
    }
    RETURN_IF_ERROR(ReadSizeSetting(fragment, "group_by_two_level_threshold_bytes",
                                    &p->aggregator_options_.two_level_threshold_bytes));
    RETURN_IF_ERROR(ReadSizeSetting(fragment, "group_by_single_block_threshold",
                                    &p->single_block_threshold_));
    p->final_only_states_ = fragment.worker_count() <= 1 || fragment.finalize_on_worker();
    // Fail at compile time, not per thread, if the aggregation cannot be built.
    RETURN_IF_ERROR(Aggregator::Create(p->key_types_, p->specs_, p->aggregator_options_).status());
  } else {
    for (const pb::Expr& projection : fragment.projections()) {
      ASSIGN_OR_RETURN(auto expr, Expression::FromProto(projection));
      p->projections_.push_back(std::move(expr));
    }
    for (const pb::SortKey& key : fragment.order_by()) {
      p->order_.push_back(SortColumn{key.column(), key.descending()});
    }
  }
  p->limit_ = fragment.limit();
  return p;
}

absl::StatusOr<std::unique_ptr<FragmentPipeline::LocalState>> FragmentPipeline::NewLocalState()
    const {
  auto state = std::make_unique<LocalState>();
  if (aggregating_) {
    ASSIGN_OR_RETURN(state->aggregator,
                     Aggregator::Create(key_types_, specs_, aggregator_options_));
  }
  return state;
}

absl::StatusOr<Block> FragmentPipeline::Filter(const Block& input) const {
  if (!filter_) return input;
  ASSIGN_OR_RETURN(ColumnPtr mask_column, filter_->Evaluate(input));
  // The filter's result is UInt8 (comparisons, logic); other integer types are normalised by the
  // planner with notEquals(x, 0).
  const uint8_t* mask = mask_column->Data<uint8_t>();
  size_t rows = input.rows();
  size_t kept = 0;
  for (size_t i = 0; i < rows; ++i) kept += mask[i] != 0;
  if (kept == rows) return input;
  Block out;
  out.rows_without_columns = kept;
  if (kept == 0) {
    for (const ColumnPtr& column : input.columns) {
      out.columns.push_back(std::make_shared<Column>(column->type()));
    }
    return out;
  }
  for (const ColumnPtr& column : input.columns) {
    out.columns.push_back(std::make_shared<Column>(column->Filter(mask)));
  }
  return out;
}

absl::Status FragmentPipeline::Consume(LocalState& state, const Block& input) const {
  ASSIGN_OR_RETURN(Block block, Filter(input));
  size_t rows = block.rows();
  if (rows == 0) return absl::OkStatus();
  if (aggregating_) {
    std::vector<ColumnPtr> keys;
    keys.reserve(keys_.size());
    for (const auto& key : keys_) {
      ASSIGN_OR_RETURN(ColumnPtr column, key->Evaluate(block));
      keys.push_back(std::move(column));
    }
    std::vector<std::vector<ColumnPtr>> args(aggregate_args_.size());
    for (size_t a = 0; a < aggregate_args_.size(); ++a) {
      for (const auto& arg : aggregate_args_[a]) {
        ASSIGN_OR_RETURN(ColumnPtr column, arg->Evaluate(block));
        args[a].push_back(std::move(column));
      }
    }
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
  return options;
}

absl::StatusOr<std::vector<Block>> FragmentPipeline::FinishBuckets(
    std::vector<std::unique_ptr<LocalState>> states, ThreadPool* pool) const {
  std::vector<std::unique_ptr<Aggregator>> aggregators;
  for (auto& state : states) aggregators.push_back(std::move(state->aggregator));
  return LocalMerger::Merge(std::move(aggregators), pool, MergeOptions());
}

absl::StatusOr<LocalMerger::PartialResult> FragmentPipeline::FinishPartial(
    std::vector<std::unique_ptr<LocalState>> states, ThreadPool* pool) const {
  std::vector<std::unique_ptr<Aggregator>> aggregators;
  for (auto& state : states) aggregators.push_back(std::move(state->aggregator));
  return LocalMerger::MergeToPartial(std::move(aggregators), pool, MergeOptions());
}

absl::StatusOr<Block> FragmentPipeline::FinishFinalized(
    std::vector<std::unique_ptr<LocalState>> states, ThreadPool* pool) const {
  ASSIGN_OR_RETURN(std::vector<Block> buckets, FinishBuckets(std::move(states), pool));
  // Buckets hold disjoint keys: each is merged into its own sparse aggregator and finalized.
  AggregatorOptions options;
  options.sparse = true;
  std::vector<absl::StatusOr<Block>> finalized(buckets.size(), Block());
  auto finalize = [&](size_t b) {
    if (buckets[b].rows() == 0) return;
    finalized[b] = [&]() -> absl::StatusOr<Block> {
      ASSIGN_OR_RETURN(auto aggregator, Aggregator::Create(key_types_, specs_, options));
      RETURN_IF_ERROR(aggregator->Merge(buckets[b]));
      return aggregator->Finalize();
    }();
  };
  if (pool != nullptr) {
    pool->ParallelFor(buckets.size(), finalize);
  } else {
    for (size_t b = 0; b < buckets.size(); ++b) finalize(b);
  }
  std::vector<Block> pieces;
  for (auto& block : finalized) {
    RETURN_IF_ERROR(block.status());
    if (block->rows() > 0) pieces.push_back(std::move(*block));
  }
  if (pieces.empty()) {
    // No groups: an empty block with the result's column types.
    ASSIGN_OR_RETURN(auto aggregator, Aggregator::Create(key_types_, specs_, options));
    return aggregator->Finalize();
  }
  return ConcatBlocks(pieces);
}

}  // namespace granite::core
