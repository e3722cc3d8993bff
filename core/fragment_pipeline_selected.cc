// FragmentPipeline::ConsumeSelected (and the key/argument evaluation it shares with Consume): a
// WHERE filter feeding an aggregation through a selection vector (Aggregator::AddSelected) instead
// of filtered copies of the columns the aggregation reads.
// Filter() copies every kept String value of a key or argument column (three passes over the mask
// per column); here the mask is read once into row indices, String keys are hashed (or
// serialized) in place, and only the arguments and fixed-width-only keys are gathered.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/fragment_pipeline.h"
#include "core/shared_arguments.h"
#include "core/status_macros.h"

namespace granite::core {

absl::Status FragmentPipeline::ConsumeSelected(LocalState& state, const Block& input) const {
  ASSIGN_OR_RETURN(ColumnPtr mask_column, filter_->Evaluate(input));
  const uint8_t* mask = mask_column->Data<uint8_t>();
  const size_t rows = input.rows();
  // Branch-free: every row is written, the count advances only past kept ones.
  state.selection.resize(rows);
  uint32_t* selection = state.selection.data();
  size_t kept = 0;
  for (size_t i = 0; i < rows; ++i) {
    selection[kept] = static_cast<uint32_t>(i);
    kept += mask[i] != 0;
  }
  state.rows_filtered += rows;
  state.rows_passed += kept;
  if (kept == 0) return absl::OkStatus();
  // Plain key and argument columns (aggregate_selected_) are read in place, uncopied. Arithmetic
  // over columns (aggregate_selected_dense_, IsRowWiseArithmetic) evaluated over every row costs
  // the dropped rows' arithmetic, a filtered copy a copy of every column it reads: the copy is
  // kept for filters that drop more than a quarter of the rows. A kernel error over the whole
  // block (a Decimal overflow in a row the filter drops) is not the query's: those rows are then
  // dropped first, so only the kept rows' errors surface, as without this path.
  if (aggregate_selected_ || kept * 4 >= rows * 3) {
    absl::StatusOr<std::vector<ColumnPtr>> keys = EvaluateKeys(input);
    absl::StatusOr<std::vector<std::vector<ColumnPtr>>> args;
    if (keys.ok()) args = EvaluateArgs(input);
    if (keys.ok() && args.ok()) {
      PresizeOnce(state);
      if (kept == rows) return state.aggregator->Add(*keys, *args, rows);
      return state.aggregator->AddSelected(*keys, *args, selection, kept);
    }
    if (aggregate_selected_) return keys.ok() ? args.status() : keys.status();
  }
  if (kept == rows) return ConsumeOutput(state, input);
  return ConsumeOutput(state, FilterRows(input, mask, kept, selection));
}

absl::StatusOr<std::vector<ColumnPtr>> FragmentPipeline::EvaluateKeys(const Block& block) const {
  std::vector<ColumnPtr> keys;
  keys.reserve(keys_.size());
  for (const auto& key : keys_) {
    ASSIGN_OR_RETURN(ColumnPtr column, key->Evaluate(block));
    keys.push_back(std::move(column));
  }
  return keys;
}

absl::StatusOr<std::vector<std::vector<ColumnPtr>>> FragmentPipeline::EvaluateArgs(
    const Block& block) const {
  // The shared calls become columns of a copy of the block's column list (its columns past the
  // arguments' own are never read by them, so they may be overwritten in the copy).
  const Block* input = &block;
  Block extended;
  if (!shared_args_.empty()) {
    extended = block;
    extended.columns.resize(std::max(extended.columns.size(), shared_base_ + shared_args_.size()));
    for (size_t k = 0; k < shared_args_.size(); ++k) {
      ASSIGN_OR_RETURN(extended.columns[shared_base_ + k], shared_args_[k]->Evaluate(block));
    }
    input = &extended;
  }
  std::vector<std::vector<ColumnPtr>> args(aggregate_args_.size());
  for (size_t a = 0; a < aggregate_args_.size(); ++a) {
    for (const auto& arg : aggregate_args_[a]) {
      ASSIGN_OR_RETURN(ColumnPtr column, arg->Evaluate(*input));
      args[a].push_back(std::move(column));
    }
  }
  return args;
}

void FragmentPipeline::PresizeOnce(LocalState& state) {
  if (state.presize_groups == 0) return;
  state.aggregator->Presize(state.presize_groups);
  state.presize_groups = 0;
}

}  // namespace granite::core
