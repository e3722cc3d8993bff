// Counts the rows a simple filter keeps without building its mask column: for a fragment whose
// filter is `column = constant` or `column <> constant` over an integer column (e.g.
// count() WHERE flag <> 0) and that reads no column after the filter, the compare and the
// count are one pass over the column, with no UInt8 mask to allocate, zero, write and re-read.
#pragma once

#include "core/plan/expr.h"

#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/block.h"
#include "core/types.h"


namespace granite::core {

// Thread-safety: immutable after Match; Count may run on many threads at once.
class FilterCounter {
 public:
  // Returns a counter for `filter` when it is equals/notEquals of an integer (or Date, DateTime)
  // column and a literal that has an exact value in the column's type (either order); nullopt
  // for any other shape, which keeps the general mask path.
  static std::optional<FilterCounter> Match(const plan::Expr& filter);

  // Returns the number of rows of `input` the filter keeps, or nullopt when the block's column
  // is missing or not of the planned type (the caller then evaluates the filter as usual).
  std::optional<size_t> Count(const Block& input) const;

 private:
  FilterCounter(uint32_t column, TypeId type, uint64_t constant_bits, bool not_equals)
      : column_(column), type_(type), constant_bits_(constant_bits), not_equals_(not_equals) {}

  uint32_t column_;
  TypeId type_;
  uint64_t constant_bits_;  // the constant, two's complement, truncated to the column's width
  bool not_equals_;
};

}  // namespace granite::core
