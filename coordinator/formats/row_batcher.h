// Regroups result blocks into blocks of exactly N rows (the last one shorter), for output formats
// whose framing must not depend on how the rows arrived (a streamed result's block boundaries
// follow the workers' timing): Native's blocks, Parquet's row groups.
#pragma once

#include <cstddef>
#include <vector>

#include "core/block.h"
#include "core/block_sort.h"

namespace granite::coordinator {

// Holds fewer than `rows` rows between calls.
// Thread-safety: none.
class RowBatcher {
 public:
  // REQUIRES: rows > 0.
  explicit RowBatcher(size_t rows) : rows_(rows) {}

  // Adds `block`; calls emit(const core::Block&) for each batch of `rows` rows it completes.
  template <typename Emit>
  void Add(const core::Block& block, Emit emit) {
    if (block.rows() == 0) return;
    held_.push_back(block);
    held_rows_ += block.rows();
    if (held_rows_ < rows_) return;
    core::Block all = core::ConcatBlocks(held_);
    held_.clear();
    size_t at = 0;
    for (; at + rows_ <= all.rows(); at += rows_) emit(core::SliceRows(all, at, rows_));
    held_rows_ = all.rows() - at;
    if (held_rows_ > 0) held_.push_back(core::SliceRows(all, at, held_rows_));
  }

  // Calls emit for the rows held, if any, and holds none after.
  template <typename Emit>
  void Flush(Emit emit) {
    if (held_rows_ > 0) emit(core::ConcatBlocks(held_));
    held_.clear();
    held_rows_ = 0;
  }

 private:
  const size_t rows_;
  std::vector<core::Block> held_;
  size_t held_rows_ = 0;
};

}  // namespace granite::coordinator
