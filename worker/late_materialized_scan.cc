#include "worker/late_materialized_scan.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/block_sort.h"
#include "core/error.h"
#include "core/functions/expr_builder.h"
#include "core/plan/expr_remap.h"
#include "core/status_macros.h"

namespace granite::worker {

namespace {

// A locator is the part's index in the snapshot above this bit and the row in the part below it.
constexpr int kPartShift = 40;

// Marks the source columns `expr` reads; returns false when it reads one past `used`.
bool CollectColumns(const core::plan::Expr& expr, std::vector<bool>* used) {
  if (expr.is_column()) {
    if (expr.column >= used->size()) return false;
    (*used)[expr.column] = true;
    return true;
  }
  for (const core::plan::Expr& arg : expr.args) {
    if (!CollectColumns(arg, used)) return false;
  }
  return true;
}

// Returns the granule of `part` that holds part-relative row `row`. REQUIRES: row < part.rows().
size_t GranuleOf(const storage::Part& part, uint64_t row) {
  size_t lo = 0, hi = part.granule_count();  // granule_first_row(lo) <= row < first_row(hi)
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (part.granule_first_row(mid) <= row) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// One phase-2 read: granules [morsel.begin, morsel.end) of a part and the rows wanted from them
// (relative to the first row of morsel.begin).
struct GranuleRead {
  Morsel morsel;
  std::vector<uint32_t> rows;
};

}  // namespace

absl::StatusOr<std::unique_ptr<LateMaterializedScan>> LateMaterializedScan::Plan(
    const core::plan::Fragment& fragment) {
  if (!fragment.late_materialization || !fragment.scan.is_table() || fragment.aggregating() ||
      fragment.limit == 0) {
    return nullptr;
  }
  size_t source_columns = fragment.scan.columns.size();
  std::vector<bool> used(source_columns, false);
  if (fragment.filter && !CollectColumns(*fragment.filter, &used)) return nullptr;
  for (const core::plan::SortKey& key : fragment.order_by) {
    if (key.column >= fragment.projections.size()) return nullptr;
    if (!CollectColumns(fragment.projections[key.column], &used)) return nullptr;
  }
  for (const core::plan::Expr& projection : fragment.projections) {
    std::vector<bool> any(source_columns, false);
    if (!CollectColumns(projection, &any)) return nullptr;  // the ordinary path reports it
  }
  std::unique_ptr<LateMaterializedScan> scan(new LateMaterializedScan());
  std::vector<uint32_t> map(source_columns, 0);
  for (size_t c = 0; c < source_columns; ++c) {
    if (!used[c]) continue;
    map[c] = scan->early_positions_.size();
    scan->early_positions_.push_back(c);
  }
  if (scan->early_positions_.size() == source_columns) return nullptr;  // nothing to defer

  core::plan::Fragment early;
  early.query_id = fragment.query_id;
  early.worker_index = fragment.worker_index;
  early.worker_count = fragment.worker_count;
  early.settings = fragment.settings;
  early.scan = fragment.scan;
  early.limit = fragment.limit;
  if (fragment.filter) {
    early.filter = fragment.filter;
    core::plan::RemapColumns(map, &*early.filter);
  }
  for (size_t k = 0; k < fragment.order_by.size(); ++k) {
    const core::plan::SortKey& key = fragment.order_by[k];
    core::plan::Expr projection = fragment.projections[key.column];
    core::plan::RemapColumns(map, &projection);
    early.projections.push_back(std::move(projection));
    early.order_by.push_back(
        core::plan::SortKey{static_cast<uint32_t>(k), key.descending, key.nulls_first});
  }
  early.projections.push_back(
      core::Col(static_cast<uint32_t>(scan->early_positions_.size()), core::TypeId::kUInt64));
  ASSIGN_OR_RETURN(scan->early_, core::FragmentPipeline::Compile(early));

  core::plan::Fragment late = fragment;
  late.filter.reset();
  ASSIGN_OR_RETURN(scan->late_, core::FragmentPipeline::Compile(late));
  return scan;
}

absl::StatusOr<core::Block> LateMaterializedScan::ReadEarly(const MorselSource& source,
                                                            const Morsel& morsel) const {
  ASSIGN_OR_RETURN(core::Block block, source.ReadColumns(morsel, early_positions_));
  size_t rows = block.rows();
  auto locator = std::make_shared<core::Column>(core::TypeId::kUInt64);
  locator->ResizeUninitialized(rows);
  uint64_t* data = locator->Data<uint64_t>();
  uint64_t base =
      (uint64_t{morsel.part} << kPartShift) | morsel.data->granule_first_row(morsel.begin);
  for (size_t i = 0; i < rows; ++i) data[i] = base + i;
  block.columns.push_back(std::move(locator));
  return block;
}

absl::StatusOr<core::Block> LateMaterializedScan::Materialize(const MorselSource& source,
                                                              LocalStates states,
                                                              core::ThreadPool* pool) const {
  ASSIGN_OR_RETURN(core::Block top, early_->FinishRows(std::move(states)));
  LocalStates late_states;
  if (top.rows() == 0) return late_->FinishRows(std::move(late_states));

  std::unordered_map<size_t, const storage::Part*> parts;
  for (const Morsel& morsel : source.table_morsels()) parts.emplace(morsel.part, morsel.data);
  const uint64_t* locators = top.columns.back()->Data<uint64_t>();
  std::vector<uint64_t> wanted(locators, locators + top.rows());
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());

  // Groups the rows by granule; adjacent granules of a part share one read.
  std::vector<GranuleRead> reads;
  for (uint64_t locator : wanted) {
    size_t part_index = locator >> kPartShift;
    uint64_t row = locator & ((uint64_t{1} << kPartShift) - 1);
    auto it = parts.find(part_index);
    if (it == parts.end() || row >= it->second->rows()) {
      return core::Error(
          core::ErrorCode::kLogicalError,
          absl::StrCat("Late materialization lost row ", row, " of part ", part_index));
    }
    const storage::Part* part = it->second;
    size_t granule = GranuleOf(*part, row);
    if (reads.empty() || reads.back().morsel.part != part_index ||
        granule > reads.back().morsel.end) {
      reads.push_back(GranuleRead{Morsel{part_index, granule, granule + 1, part}, {}});
    }
    GranuleRead& read = reads.back();
    read.morsel.end = std::max(read.morsel.end, granule + 1);
    read.rows.push_back(static_cast<uint32_t>(row - part->granule_first_row(read.morsel.begin)));
  }

  std::vector<absl::StatusOr<core::Block>> blocks(reads.size(), core::Block());
  auto read_one = [&](size_t i) {
    absl::StatusOr<core::Block> block = source.Read(reads[i].morsel);
    if (block.ok()) {
      blocks[i] = core::TakeRows(*block, reads[i].rows);
    } else {
      blocks[i] = block.status();
    }
  };
  if (pool != nullptr) {
    pool->ParallelFor(reads.size(), read_one);
  } else {
    for (size_t i = 0; i < reads.size(); ++i) read_one(i);
  }
  std::vector<core::Block> rows;
  for (auto& block : blocks) {
    RETURN_IF_ERROR(block.status());
    rows.push_back(*std::move(block));
  }
  ASSIGN_OR_RETURN(auto state, late_->NewLocalState());
  RETURN_IF_ERROR(late_->Consume(*state, core::ConcatBlocks(rows)));
  late_states.push_back(std::move(state));
  return late_->FinishRows(std::move(late_states));
}

}  // namespace granite::worker
