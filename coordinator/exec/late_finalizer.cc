#include "coordinator/exec/late_finalizer.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "coordinator/exec/final_stage.h"
#include "coordinator/exec/key_ref_grouper.h"
#include "core/aggregation/aggregator.h"
#include "core/block_sort.h"
#include "core/error.h"
#include "core/expression.h"
#include "core/hash.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

// Merge-side aggregators hold one bucket (as in bucketed_merger.cc).
absl::StatusOr<std::unique_ptr<core::Aggregator>> NewBucketAggregator(
    const std::vector<core::TypeId>& key_types, const std::vector<core::AggregateSpec>& specs) {
  core::AggregatorOptions options;
  options.sparse = true;
  return core::Aggregator::Create(key_types, specs, options);
}

// Adds the stage columns `expr` references to `columns`.
void CollectColumns(const core::plan::Expr& expr, std::vector<size_t>* columns) {
  if (expr.is_column()) columns->push_back(expr.column);
  for (const core::plan::Expr& arg : expr.args) CollectColumns(arg, columns);
}

// Rewrites the column references of `expr` through `remap` (stage column -> early block column).
void RemapColumns(const std::vector<int64_t>& remap, core::plan::Expr* expr) {
  if (expr->is_column()) expr->column = static_cast<uint32_t>(remap[expr->column]);
  for (core::plan::Expr& arg : expr->args) RemapColumns(remap, &arg);
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

// The same rows as TopIntegerRows for a large `keep` (ORDER BY count() LIMIT n OFFSET m with
// thousands of rows kept over many more groups): the keep-th best value is selected in linear
// time, the rows better than it and the first rows equal to it (row order, as the stable sort)
// are kept, and only those are sorted: O(rows + keep log keep) instead of O(rows log keep).
template <typename T>
std::vector<uint32_t> TopIntegerRowsBySelection(const core::Column& column, bool descending,
                                                size_t keep) {
  const T* values = column.Data<T>();
  const size_t rows = column.size();
  auto better = [descending](T x, T y) { return descending ? x > y : x < y; };
  std::vector<uint32_t> top;
  if (keep >= rows) {
    top.resize(rows);
    for (uint32_t row = 0; row < rows; ++row) top[row] = row;
  } else {
    std::vector<T> sorted(values, values + rows);
    std::nth_element(sorted.begin(), sorted.begin() + (keep - 1), sorted.end(), better);
    const T bound = sorted[keep - 1];  // the value of the last row kept
    size_t better_count = 0;
    for (size_t row = 0; row < rows; ++row) better_count += better(values[row], bound);
    size_t ties = keep - better_count;  // rows equal to `bound` kept, the earliest first
    top.reserve(keep);
    for (uint32_t row = 0; row < rows; ++row) {
      if (better(values[row], bound)) {
        top.push_back(row);
      } else if (ties > 0 && !better(bound, values[row])) {
        top.push_back(row);
        --ties;
      }
    }
  }
  std::stable_sort(top.begin(), top.end(),
                   [&](uint32_t x, uint32_t y) { return better(values[x], values[y]); });
  return top;
}

// SortPermutation(block, keys, keep), with a linear-time top for one integer column.
std::vector<uint32_t> TopRows(const core::Block& block, const std::vector<core::SortColumn>& keys,
                              size_t keep) {
  constexpr size_t kMaxOnePassKeep = 256;  // an insertion per better row: small tops only
  if (keys.size() != 1 || keep == 0) return core::SortPermutation(block, keys, keep);
  const core::Column& column = *block.columns[keys[0].column];
  if (!core::IsInteger(column.type()) || column.nullable()) {
    return core::SortPermutation(block, keys, keep);
  }
  return core::DispatchFixed(column.type(), [&](auto tag) {
    using T = typename decltype(tag)::Type;
    if constexpr (std::is_integral_v<T>) {
      return keep <= kMaxOnePassKeep
                 ? TopIntegerRows<T>(column, keys[0].descending, keep)
                 : TopIntegerRowsBySelection<T>(column, keys[0].descending, keep);
    } else {
      return core::SortPermutation(block, keys, keep);
    }
  });
}

// Test and A/B switch: late_aggregate_finalization_by_ref = 0 groups with an Aggregator.
bool GroupByRefOn(const QueryPlan& plan) {
  return plan.settings.late_aggregate_finalization_by_ref;
}

bool LateFinalizationOn(const QueryPlan& plan) {
  return plan.settings.late_aggregate_finalization;
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
  f.buckets_.resize(core::kBucketCount);
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
    core::plan::Expr expr = plan.final_exprs[order.column];
    RemapColumns(remap, &expr);
    RETURN_IF_ERROR(core::Expression::Compile(expr).status());  // fail at plan time, not per bucket
    f.order_exprs_.push_back(std::move(expr));
  }
  // Checks that the aggregators can be built.
  RETURN_IF_ERROR(NewBucketAggregator(f.key_types_, f.early_specs_).status());
  bool string_key = false;
  bool float_key = false;
  for (core::TypeId type : f.key_types_) {
    string_key = string_key || type == core::TypeId::kString;
    float_key = float_key || core::IsFloat(type);
  }
  f.group_by_ref_ = !order_keys && string_key && !float_key && GroupByRefOn(plan);
  if (f.group_by_ref_) {
    RETURN_IF_ERROR(NewBucketAggregator({core::TypeId::kUInt32}, f.early_specs_).status());
  }
  ASSIGN_OR_RETURN(auto full, NewBucketAggregator(f.key_types_, f.specs_));
  f.partial_types_ = full->PartialTypes();
  return finalizer;
}

absl::StatusOr<LateFinalizer::Candidates> LateFinalizer::MergeCandidates(
    const std::vector<core::Block>& inputs, size_t* groups) const {
  Candidates out;
  size_t rows = 0;
  for (const core::Block& input : inputs) rows += input.rows();
  size_t keys = key_types_.size();
  size_t width = state_begin_.back() + state_count_.back();

  for (const core::Block& input : inputs) {
    if (input.rows() > 0 && (input.columns.size() != width || !TypesMatch(input))) {
      // Merge reports the mismatch.
      ASSIGN_OR_RETURN(auto full, NewBucketAggregator(key_types_, specs_));
      RETURN_IF_ERROR(full->Merge(input));
      return core::Error(core::ErrorCode::kLogicalError, "partial block of unexpected types");
    }
  }

  // 1. Keys and early aggregates of every input row, and each row's group. With string keys
  // and no key in the ORDER BY, rows are grouped by reference (KeyRefGrouper) and the early
  // states merged by group id: no key is serialized or copied.
  std::unique_ptr<core::Aggregator> early;
  std::vector<std::vector<uint32_t>> row_groups(inputs.size());
  if (group_by_ref_) {
    KeyRefGrouper grouper(keys);
    row_groups = grouper.Assign(inputs);
    *groups = grouper.groups();
    ASSIGN_OR_RETURN(early, NewBucketAggregator({core::TypeId::kUInt32}, early_specs_));
    early->Reserve(*groups);
  } else {
    ASSIGN_OR_RETURN(early, NewBucketAggregator(key_types_, early_specs_));
    early->Reserve(rows);
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const core::Block& input = inputs[i];
    if (input.rows() == 0) continue;
    core::Block narrow;
    narrow.rows_without_columns = input.rows();
    if (group_by_ref_) {
      auto ids = std::make_shared<core::Column>(core::TypeId::kUInt32);
      ids->ResizeUninitialized(input.rows());
      std::memcpy(ids->Data<uint32_t>(), row_groups[i].data(),
                  input.rows() * sizeof(uint32_t));
      narrow.columns.push_back(std::move(ids));
    } else {
      narrow.columns.assign(input.columns.begin(), input.columns.begin() + keys);
    }
    for (size_t a : early_) {
      for (size_t s = 0; s < state_count_[a]; ++s) {
        narrow.columns.push_back(input.columns[state_begin_[a] + s]);
      }
    }
    RETURN_IF_ERROR(early->Merge(narrow));
    if (!group_by_ref_) {
      const std::vector<uint32_t>& merged = early->merged_groups();
      row_groups[i].assign(merged.begin(), merged.begin() + input.rows());
    }
  }
  // By reference: the id-keyed aggregator numbers groups by first appearance too, so its ids
  // are the grouper's.
  if (!group_by_ref_) *groups = early->size();
  if (*groups == 0) return out;

  // 2. The bucket's candidates by the ORDER BY, as CutPiece picks them.
  ASSIGN_OR_RETURN(core::Block finalized, early->Finalize(/*with_keys=*/order_keys_));
  early.reset();
  core::Block order_block;
  order_block.rows_without_columns = finalized.rows();
  std::vector<core::SortColumn> sort_keys;
  for (size_t k = 0; k < order_exprs_.size(); ++k) {
    ASSIGN_OR_RETURN(auto expr, core::Expression::Compile(order_exprs_[k]));
    ASSIGN_OR_RETURN(core::ColumnPtr column, expr->Evaluate(finalized));
    order_block.columns.push_back(std::move(column));
    sort_keys.push_back({k, plan_.order[k].descending, plan_.order[k].nulls_first});
  }
  finalized = core::Block();
  if (*groups <= keep_) {
    // Every group is a candidate, in group order (CutPiece keeps such a piece unsorted).
    out.groups.resize(*groups);
    for (uint32_t g = 0; g < *groups; ++g) out.groups[g] = g;
    out.order = std::move(order_block);
  } else {
    out.groups = TopRows(order_block, sort_keys, keep_);
    out.order = core::TakeRows(order_block, out.groups);
  }

  // 3. A small bucket keeps its inputs (shared columns); a large one copies its candidates' rows.
  if (rows <= 4 * keep_) {
    out.inputs = inputs;
    out.row_groups = std::move(row_groups);
    return out;
  }
  constexpr uint32_t kNone = ~uint32_t{0};
  std::vector<uint32_t> candidate_of(*groups, kNone);
  for (uint32_t c = 0; c < out.groups.size(); ++c) candidate_of[out.groups[c]] = c;
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> rows_of(out.groups.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::vector<uint32_t>& of_row = row_groups[i];
    for (size_t row = 0; row < of_row.size(); ++row) {
      uint32_t c = candidate_of[of_row[row]];
      if (c != kNone) rows_of[c].emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(row));
    }
  }
  core::Block gathered;
  std::vector<uint32_t> gathered_groups;
  for (uint32_t c = 0; c < rows_of.size(); ++c) {
    gathered_groups.insert(gathered_groups.end(), rows_of[c].size(), c);
  }
  gathered.rows_without_columns = gathered_groups.size();
  for (size_t col = 0; col < width; ++col) {
    const core::Column* type_of = nullptr;
    for (const core::Block& input : inputs) {
      if (input.rows() > 0) type_of = input.columns[col].get();
    }
    auto column = std::make_shared<core::Column>(type_of->logical_type());
    column->Reserve(gathered_groups.size());
    for (const auto& list : rows_of) {
      for (const auto& [input, row] : list) column->AppendRange(*inputs[input].columns[col], row, 1);
    }
    gathered.columns.push_back(std::move(column));
  }
  for (uint32_t c = 0; c < out.groups.size(); ++c) out.groups[c] = c;
  out.inputs.push_back(std::move(gathered));
  out.row_groups.push_back(std::move(gathered_groups));
  return out;
}

bool LateFinalizer::TypesMatch(const core::Block& input) const {
  for (size_t c = 0; c < partial_types_.size(); ++c) {
    if (input.columns[c]->type() != core::RemoveNullable(partial_types_[c])) return false;
  }
  return true;
}

absl::StatusOr<core::Block> LateFinalizer::CombineCandidates(
    const std::vector<const Candidates*>& buckets) const {
  // 4. The top candidates over all buckets: (bucket, candidate) pairs in final order.
  std::vector<size_t> starts;  // first global candidate of each bucket
  size_t total = 0;
  for (const Candidates* bucket : buckets) {
    starts.push_back(total);
    total += bucket->groups.size();
  }
  std::vector<uint32_t> chosen;  // global candidate positions, in final order
  if (total <= keep_) {
    chosen.resize(total);
    for (uint32_t p = 0; p < total; ++p) chosen[p] = p;
  } else {
    std::vector<core::Block> orders;
    for (const Candidates* bucket : buckets) orders.push_back(bucket->order);
    std::vector<core::SortColumn> sort_keys;
    for (size_t k = 0; k < plan_.order.size(); ++k) {
      sort_keys.push_back({k, plan_.order[k].descending, plan_.order[k].nulls_first});
    }
    chosen = TopRows(core::ConcatBlocks(orders), sort_keys, keep_);
  }

  // 5. The chosen groups' input rows, rank by rank (input order within a group), merged in full.
  // Ranks index dense arrays (a rank per bucket group, rows counted per rank), so the rows are
  // put in rank order by a counting sort; thousands of ranks (a large OFFSET) cost linear time.
  struct Row {
    uint32_t bucket;
    uint32_t input;
    uint32_t row;
  };
  constexpr uint32_t kNotChosen = ~uint32_t{0};
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> chosen_of(buckets.size());  // (group, rank)
  for (uint32_t r = 0; r < chosen.size(); ++r) {
    size_t b = static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), chosen[r]) -
                                   starts.begin()) - 1;
    chosen_of[b].emplace_back(buckets[b]->groups[chosen[r] - starts[b]], r);
  }
  // Pass 1: rows per rank; pass 2 places each row after the rows of the ranks before it.
  std::vector<std::vector<uint32_t>> rank_of(buckets.size());  // bucket group -> rank
  std::vector<uint32_t> rank_end(chosen.size() + 1, 0);
  for (uint32_t b = 0; b < buckets.size(); ++b) {
    if (chosen_of[b].empty()) continue;
    uint32_t max_group = 0;
    for (const auto& [group, rank] : chosen_of[b]) max_group = std::max(max_group, group);
    rank_of[b].assign(max_group + 1, kNotChosen);
    for (const auto& [group, rank] : chosen_of[b]) rank_of[b][group] = rank;
    for (const std::vector<uint32_t>& of_row : buckets[b]->row_groups) {
      for (uint32_t g : of_row) {
        if (g <= max_group && rank_of[b][g] != kNotChosen) ++rank_end[rank_of[b][g] + 1];
      }
    }
  }
  for (size_t r = 1; r < rank_end.size(); ++r) rank_end[r] += rank_end[r - 1];
  std::vector<Row> rows(rank_end.back());
  for (uint32_t b = 0; b < buckets.size(); ++b) {
    if (chosen_of[b].empty()) continue;
    const std::vector<uint32_t>& ranks = rank_of[b];
    const Candidates& bucket = *buckets[b];
    for (uint32_t i = 0; i < bucket.row_groups.size(); ++i) {
      const std::vector<uint32_t>& of_row = bucket.row_groups[i];
      for (uint32_t row = 0; row < of_row.size(); ++row) {
        uint32_t g = of_row[row];
        if (g < ranks.size() && ranks[g] != kNotChosen) rows[rank_end[ranks[g]]++] = {b, i, row};
      }
    }
  }
  ASSIGN_OR_RETURN(auto full, NewBucketAggregator(key_types_, specs_));
  if (!rows.empty()) {
    const core::Block& first = buckets[rows[0].bucket]->inputs[rows[0].input];
    core::Block survivors;
    survivors.rows_without_columns = rows.size();
    for (size_t c = 0; c < first.columns.size(); ++c) {
      auto column = std::make_shared<core::Column>(first.columns[c]->logical_type());
      column->Reserve(rows.size());
      for (const Row& row : rows) {
        column->AppendRange(*buckets[row.bucket]->inputs[row.input].columns[c], row.row, 1);
      }
      survivors.columns.push_back(std::move(column));
    }
    full->Reserve(chosen.size());
    RETURN_IF_ERROR(full->Merge(survivors));
  }
  // Group ids follow first appearance, which is rank order: the rows are in final order.
  ASSIGN_OR_RETURN(core::Block stage, full->Finalize());
  return ComputeFinalColumns(plan_, stage);
}

absl::StatusOr<core::Block> LateFinalizer::MergeAndCut(const std::vector<core::Block>& inputs,
                                                       size_t* groups) const {
  ASSIGN_OR_RETURN(Candidates candidates, MergeCandidates(inputs, groups));
  return CombineCandidates({&candidates});
}

absl::StatusOr<size_t> LateFinalizer::MergeBucket(uint32_t bucket,
                                                  const std::vector<core::Block>& inputs,
                                                  size_t* groups) {
  if (bucket >= buckets_.size()) {
    return core::Error(core::ErrorCode::kLogicalError,
                       "late finalization: bucket " + std::to_string(bucket) + " out of range");
  }
  ASSIGN_OR_RETURN(Candidates candidates, MergeCandidates(inputs, groups));
  size_t count = candidates.groups.size();
  if (count > 0) buckets_[bucket] = std::move(candidates);
  return count;
}

void LateFinalizer::Attach(BucketedMerger* merger) {
  merger->SetBucketMerge([this](uint32_t bucket, const std::vector<core::Block>& inputs,
                                size_t* groups) -> absl::StatusOr<core::Block> {
    ASSIGN_OR_RETURN(size_t candidates, MergeBucket(bucket, inputs, groups));
    core::Block stand_in;  // no columns; non-empty when it has candidates: Finish combines
    stand_in.rows_without_columns = candidates;
    return stand_in;
  });
  merger->SetPieceCombine([this](std::vector<core::Block>) { return Combine(); });
}

absl::StatusOr<core::Block> LateFinalizer::Combine() {
  std::vector<const Candidates*> buckets;
  for (const std::optional<Candidates>& bucket : buckets_) {
    if (bucket) buckets.push_back(&*bucket);
  }
  absl::StatusOr<core::Block> result = CombineCandidates(buckets);
  for (std::optional<Candidates>& bucket : buckets_) bucket.reset();
  return result;
}

}  // namespace granite::coordinator
