#include "coordinator/formats/extremes.h"

#include "core/block_sort.h"

namespace granite::coordinator {

namespace {

// Each column's min row and max row of `block`, as a two-row block.
core::Block MinMaxRows(const core::Block& block) {
  core::Block out;
  out.rows_without_columns = 2;
  for (const core::ColumnPtr& column : block.columns) {
    core::Block single;
    single.rows_without_columns = block.rows();
    single.columns.push_back(column);
    const uint32_t min = core::SortPermutation(single, {{0, false}}, 1)[0];
    const uint32_t max = core::SortPermutation(single, {{0, true}}, 1)[0];
    out.columns.push_back(core::TakeRows(single, {min, max}).columns[0]);
  }
  return out;
}

}  // namespace

void Extremes::Add(const core::Block& block) {
  if (block.rows() == 0) return;
  core::Block these = MinMaxRows(block);
  rows_ = rows_ ? MinMaxRows(core::ConcatBlocks({*rows_, these})) : std::move(these);
}

}  // namespace granite::coordinator
