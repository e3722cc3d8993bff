#include "coordinator/late_finalizer.h"

#include <algorithm>
#include <type_traits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "coordinator/final_stage.h"
#include "core/aggregation/aggregator.h"
#include "core/block_sort.h"
#include "core/expression.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

namespace pb = granite::worker::v1;

// Merge-side aggregators hold one bucket (as in bucketed_merger.cc).
absl::StatusOr<std::unique_ptr<core::Aggregator>> NewBucketAggregator(
    const std::vector<core::TypeId>& key_types, const std::vector<core::AggregateSpec>& specs) {
  core::AggregatorOptions options;
  options.sparse = true;
  return core::Aggregator::Create(key_types, specs, options);
}

// Adds the stage columns `expr` references to `columns`.
void CollectColumns(const pb::Expr& expr, std::vector<size_t>* columns) {
  if (expr.node_case() == pb::Expr::kColumn) columns->push_back(expr.column());
  if (expr.node_case() == pb::Expr::kCall) {
    for (const pb::Expr& arg : expr.call().args()) CollectColumns(arg, columns);
  }
}

// Rewrites the column references of `expr` through `remap` (stage column -> early block column).
void RemapColumns(const std::vector<int64_t>& remap, pb::Expr* expr) {
  if (expr->node_case() == pb::Expr::kColumn) expr->set_column(remap[expr->column()]);
  if (expr->node_case() == pb::Expr::kCall) {
    for (pb::Expr& arg : *expr->mutable_call()->mutable_args()) RemapColumns(remap, &arg);
  }
}

// The first `keep` rows of SortPermutation({column}, {0, descending}, keep) for an integer column,
// in one pass: a row enters the top only with a strictly better value than the worst kept one
// (a tie loses to the earlier row, as in the stable sort), so most rows cost one comparison.
template <typename T>
std::vector<uint32_t> TopIntegerRows(const core::Column& column, bool descending, size_t keep) {
  const T* values = column.Data<T>();
  auto better = [descending](T x, T y) { return descending ? x > y : x < y; };
  std::vector<uint32_t> top;  // best first; ties in row order
  top.reserve(keep + 1);
  for (uint32_t row = 0; row < column.size(); ++row) {
    T value = values[row];
    if (top.size() == keep && !better(value, values[top.back()])) continue;
    // After the last kept row at least as good: ties keep row order.
    auto at = std::upper_bound(top.begin(), top.end(), value,
                               [&](T v, uint32_t kept) { return better(v, values[kept]); });
    top.insert(at, row);
    if (top.size() > keep) top.pop_back();
  }
  return top;
}

// SortPermutation(block, keys, keep), with the one-pass top for one integer column.
std::vector<uint32_t> TopRows(const core::Block& block, const std::vector<core::SortColumn>& keys,
                              size_t keep) {
  constexpr size_t kMaxOnePassKeep = 256;  // an insertion per better row: small tops only
  if (keys.size() != 1 || keep == 0 || keep > kMaxOnePassKeep) {
    return core::SortPermutation(block, keys, keep);
  }
  const core::Column& column = *block.columns[keys[0].column];
  if (!core::IsInteger(column.type())) return core::SortPermutation(block, keys, keep);
  return core::DispatchFixed(column.type(), [&](auto tag) {
    using T = typename decltype(tag)::Type;
    if constexpr (std::is_integral_v<T>) {
      return TopIntegerRows<T>(column, keys[0].descending, keep);
    } else {
      return core::SortPermutation(block, keys, keep);
    }
  });
}

bool LateFinalizationOn(const QueryPlan& plan) {
  auto setting = plan.fragment.settings().find(kLateAggregateFinalizationSetting);
  return setting == plan.fragment.settings().end() || setting->second != "0";
}

}  // namespace

absl::StatusOr<std::unique_ptr<LateFinalizer>> LateFinalizer::Create(
    const QueryPlan& plan, std::vector<core::TypeId> key_types,
    std::vector<core::AggregateSpec> specs) {
  if (!CanCutByPiece(plan) || plan.has_having || key_types.empty() || specs.empty() ||
      !LateFinalizationOn(plan)) {
    return nullptr;
  }
  size_t keys = key_types.size();
  size_t stage_columns = keys + specs.size();
  std::vector<size_t> referenced;
  for (const core::SortColumn& order : plan.order) {
    if (order.column >= plan.final_exprs.size()) return nullptr;
    CollectColumns(plan.final_exprs[order.column], &referenced);
  }
  std::vector<bool> early(specs.size(), false);
  bool order_keys = false;
  for (size_t column : referenced) {
    if (column >= stage_columns) return nullptr;  // not a stage column: leave it to CutPiece
    if (column >= keys) early[column - keys] = true;
    if (column < keys) order_keys = true;
  }
  // Every aggregate early and the ORDER BY on keys too: nothing to leave for the survivors.
  if (order_keys && std::all_of(early.begin(), early.end(), [](bool e) { return e; })) {
    return nullptr;
  }

  std::unique_ptr<LateFinalizer> finalizer(
      new LateFinalizer(plan, std::move(key_types), std::move(specs)));
  LateFinalizer& f = *finalizer;
  f.keep_ = plan.limit + plan.offset;
  f.order_keys_ = order_keys;
  // Without key references the early block is the early aggregates' results alone.
  size_t early_keys = order_keys ? keys : 0;
  std::vector<int64_t> remap(stage_columns, -1);
  for (size_t k = 0; k < keys; ++k) remap[k] = static_cast<int64_t>(k);
  size_t state = keys;
  for (size_t a = 0; a < f.specs_.size(); ++a) {
    // The state layout of one aggregate: that of a one-aggregate aggregator after its keys.
    ASSIGN_OR_RETURN(auto single, NewBucketAggregator(f.key_types_, {f.specs_[a]}));
    f.state_begin_.push_back(state);
    f.state_count_.push_back(single->PartialTypes().size() - keys);
    state += f.state_count_.back();
    if (early[a]) {
      remap[keys + a] = static_cast<int64_t>(early_keys + f.early_.size());
      f.early_.push_back(a);
      f.early_specs_.push_back(f.specs_[a]);
    }
  }
  for (const core::SortColumn& order : plan.order) {
    pb::Expr expr = plan.final_exprs[order.column];
    RemapColumns(remap, &expr);
    RETURN_IF_ERROR(core::Expression::FromProto(expr).status());  // fail at plan time, not per bucket
    f.order_exprs_.push_back(std::move(expr));
  }
  // Checks that the aggregators can be built.
  RETURN_IF_ERROR(NewBucketAggregator(f.key_types_, f.early_specs_).status());
  return finalizer;
}

absl::StatusOr<core::Block> LateFinalizer::MergeAllAndCut(const std::vector<core::Block>& inputs,
                                                          size_t* groups) const {
  ASSIGN_OR_RETURN(auto aggregator, NewBucketAggregator(key_types_, specs_));
  size_t rows = 0;
  for (const core::Block& input : inputs) rows += input.rows();
  aggregator->Reserve(rows);
  for (const core::Block& input : inputs) {
    if (input.rows() > 0) RETURN_IF_ERROR(aggregator->Merge(input));
  }
  ASSIGN_OR_RETURN(core::Block finalized, aggregator->Finalize());
  *groups = finalized.rows();
  return CutPiece(plan_, finalized);
}

absl::StatusOr<core::Block> LateFinalizer::MergeAndCut(const std::vector<core::Block>& inputs,
                                                       size_t* groups) const {
  size_t rows = 0;
  for (const core::Block& input : inputs) rows += input.rows();
  if (rows <= 4 * keep_) return MergeAllAndCut(inputs, groups);
  size_t keys = key_types_.size();

  // 1. Keys and early aggregates of every input row, and each row's group.
  ASSIGN_OR_RETURN(auto early, NewBucketAggregator(key_types_, early_specs_));
  early->Reserve(rows);
  std::vector<std::vector<uint32_t>> row_groups(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const core::Block& input = inputs[i];
    if (input.rows() == 0) continue;
    if (input.columns.size() != state_begin_.back() + state_count_.back()) {
      return MergeAllAndCut(inputs, groups);  // Merge reports the mismatch
    }
    core::Block narrow;
    narrow.rows_without_columns = input.rows();
    narrow.columns.assign(input.columns.begin(), input.columns.begin() + keys);
    for (size_t a : early_) {
      for (size_t s = 0; s < state_count_[a]; ++s) {
        narrow.columns.push_back(input.columns[state_begin_[a] + s]);
      }
    }
    RETURN_IF_ERROR(early->Merge(narrow));
    const std::vector<uint32_t>& merged = early->merged_groups();
    row_groups[i].assign(merged.begin(), merged.begin() + input.rows());
  }
  *groups = early->size();

  // 2. The top groups by the ORDER BY, as CutPiece picks them.
  ASSIGN_OR_RETURN(core::Block finalized, early->Finalize(/*with_keys=*/order_keys_));
  early.reset();
  core::Block order_block;
  order_block.rows_without_columns = finalized.rows();
  std::vector<core::SortColumn> sort_keys;
  for (size_t k = 0; k < order_exprs_.size(); ++k) {
    ASSIGN_OR_RETURN(auto expr, core::Expression::FromProto(order_exprs_[k]));
    ASSIGN_OR_RETURN(core::ColumnPtr column, expr->Evaluate(finalized));
    order_block.columns.push_back(std::move(column));
    sort_keys.push_back({k, plan_.order[k].descending});
  }
  finalized = core::Block();
  std::vector<uint32_t> chosen = TopRows(order_block, sort_keys, keep_);

  // 3. The chosen groups' input rows, rank by rank, merged in full.
  absl::flat_hash_map<uint32_t, uint32_t> rank_of;
  std::vector<uint64_t> is_chosen((*groups + 63) / 64, 0);
  for (uint32_t r = 0; r < chosen.size(); ++r) {
    rank_of[chosen[r]] = r;
    is_chosen[chosen[r] / 64] |= uint64_t{1} << (chosen[r] % 64);
  }
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> rows_of(chosen.size());  // (input, row)
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::vector<uint32_t>& of_row = row_groups[i];
    for (size_t row = 0; row < of_row.size(); ++row) {
      uint32_t g = of_row[row];
      if ((is_chosen[g / 64] >> (g % 64)) & 1) {
        rows_of[rank_of[g]].emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(row));
      }
    }
  }
  core::Block survivors;
  size_t survivor_rows = 0;
  for (const auto& list : rows_of) survivor_rows += list.size();
  survivors.rows_without_columns = survivor_rows;
  const core::Block* first = nullptr;
  for (const core::Block& input : inputs) {
    if (input.rows() > 0) first = &input;
  }
  for (size_t c = 0; first != nullptr && c < first->columns.size(); ++c) {
    auto column = std::make_shared<core::Column>(first->columns[c]->type());
    column->Reserve(survivor_rows);
    for (const auto& list : rows_of) {
      for (const auto& [input, row] : list) column->AppendRange(*inputs[input].columns[c], row, 1);
    }
    survivors.columns.push_back(std::move(column));
  }
  ASSIGN_OR_RETURN(auto full, NewBucketAggregator(key_types_, specs_));
  if (survivor_rows > 0) RETURN_IF_ERROR(full->Merge(survivors));
  // Group ids follow first appearance, which is rank order: the rows are in ORDER BY order.
  ASSIGN_OR_RETURN(core::Block stage, full->Finalize());
  return ComputeFinalColumns(plan_, stage);
}

}  // namespace granite::coordinator
