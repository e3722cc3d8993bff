// Sorting and slicing of blocks: ORDER BY on the coordinator and partial top-N on workers share it.
#pragma once

#include <cstdint>
#include <vector>

#include "core/block.h"

namespace granite::core {

struct SortColumn {
  size_t column = 0;  // index into the block's columns
  bool descending = false;
  // Whatever the direction, as in ClickHouse: NULLS LAST (false, the default) puts the values,
  // then NaN, then NULL; NULLS FIRST puts NULL, then NaN, then the values.
  bool nulls_first = false;
};

// Returns the permutation of rows that orders `block` by `keys` (stable: ties keep input order).
// When `limit` > 0 only the first `limit` positions of the permutation are guaranteed to be sorted
// (partial sort) and the result holds just those.
std::vector<uint32_t> SortPermutation(const Block& block, const std::vector<SortColumn>& keys,
                                      size_t limit = 0);

// Returns the rows of `block` in the order of `permutation`.
Block TakeRows(const Block& block, const std::vector<uint32_t>& permutation);

// Returns rows [offset, offset + limit) of `block` (limit 0 = to the end).
Block SliceRows(const Block& block, size_t offset, size_t limit);

// Concatenates blocks of identical column types into one.
Block ConcatBlocks(const std::vector<Block>& blocks);

}  // namespace granite::core
