// LIMIT n [OFFSET m] BY exprs over a result that already has its ORDER BY applied: per distinct
// value of the BY columns, the rows after the first m and up to n of them, in order; then the
// statement's own LIMIT / OFFSET.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/block.h"

namespace granite::coordinator {

struct LimitByOptions {
  uint64_t limit_by = 0;
  uint64_t limit_by_offset = 0;
  std::optional<uint64_t> limit;  // LIMIT after LIMIT BY; unset: none
  uint64_t offset = 0;
};

// `block`'s columns from `visible` on are the BY values; the result keeps the first `visible`.
// REQUIRES: visible <= block.columns.size().
core::Block ApplyLimitBy(core::Block block, size_t visible, const LimitByOptions& options);

}  // namespace granite::coordinator
