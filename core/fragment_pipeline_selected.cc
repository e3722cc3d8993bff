// FragmentPipeline::ConsumeSelected (and the key/argument evaluation it shares with Consume): a
// WHERE filter feeding an aggregation through a selection vector (Aggregator::AddSelected) instead
// of filtered copies of the columns the aggregation reads.
// Filter() copies every kept String value of a key or argument column (three passes over the mask
// per column); here the mask is read once into row indices, String keys are hashed (or
// serialized) in place, and only the arguments and fixed-width-only keys are gathered.
#include <memory>
#include <vector>

#include "core/fragment_pipeline.h"
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
  PresizeOnce(state);
  // Keys and arguments are plain columns (aggregate_selected_): evaluating them on the whole
  // input returns its columns, uncopied.
  ASSIGN_OR_RETURN(std::vector<ColumnPtr> keys, EvaluateKeys(input));
  ASSIGN_OR_RETURN(auto args, EvaluateArgs(input));
  if (kept == rows) return state.aggregator->Add(keys, args, rows);
  return state.aggregator->AddSelected(keys, args, selection, kept);
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
  std::vector<std::vector<ColumnPtr>> args(aggregate_args_.size());
  for (size_t a = 0; a < aggregate_args_.size(); ++a) {
    for (const auto& arg : aggregate_args_[a]) {
      ASSIGN_OR_RETURN(ColumnPtr column, arg->Evaluate(block));
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
