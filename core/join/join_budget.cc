#include "core/join/join_budget.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/block_sort.h"
#include "core/error.h"

namespace granite::core {
namespace {

// The smallest of the non-zero values (0 when all are 0).
uint64_t SmallestBound(std::initializer_list<uint64_t> values) {
  uint64_t out = 0;
  for (uint64_t v : values) {
    if (v > 0 && (out == 0 || v < out)) out = v;
  }
  return out;
}

}  // namespace

JoinBudget JoinBudget::FromSettings(const Settings& settings, int64_t server_limit) {
  JoinBudget budget;
  const std::string& algorithm = settings.join_algorithm;
  budget.spills = algorithm != "hash" && algorithm != "parallel_hash";
  budget.max_rows = settings.max_rows_in_join;
  budget.overflow_break = settings.join_overflow_mode == "break";
  budget.initial_buckets = static_cast<size_t>(std::max<uint64_t>(
      2, std::min<uint64_t>(settings.grace_hash_join_initial_buckets, size_t{1} << 20)));
  budget.max_buckets = static_cast<size_t>(std::max<uint64_t>(
      2, std::min<uint64_t>(settings.grace_hash_join_max_buckets, size_t{1} << 20)));
  if (budget.spills) {
    budget.max_bytes = SmallestBound({settings.max_bytes_in_join, settings.max_memory_usage / 4,
                                      static_cast<uint64_t>(std::max<int64_t>(0, server_limit)) / 8});
  } else {
    budget.max_bytes = settings.max_bytes_in_join;
  }
  return budget;
}

GraceOptions JoinBudget::Grace(std::string spill_dir) const {
  GraceOptions options;
  options.spill_dir = std::move(spill_dir);
  options.max_bytes = max_bytes;
  options.max_rows = max_rows;
  options.initial_buckets = initial_buckets;
  options.max_buckets = max_buckets;
  return options;
}

absl::StatusOr<Block> JoinBudget::Limit(Block build) const {
  if (spills) return build;
  const uint64_t rows = build.rows();
  uint64_t bytes = 0;
  for (const ColumnPtr& column : build.columns) bytes += column->ByteSize();
  bytes += rows * GraceHashJoin::kTableBytesPerRow;
  const bool over_rows = max_rows > 0 && rows > max_rows;
  const bool over_bytes = max_bytes > 0 && bytes > max_bytes;
  if (!over_rows && !over_bytes) return build;
  if (!overflow_break) {
    return Error(ErrorCode::kSetSizeLimitExceeded,
                 over_rows ? absl::StrCat("Limit for JOIN exceeded, max rows: ", max_rows,
                                          ", current rows: ", rows)
                           : absl::StrCat("Limit for JOIN exceeded, max bytes: ", max_bytes,
                                          ", current bytes: ", bytes));
  }
  uint64_t keep = over_rows ? max_rows : rows;
  if (over_bytes) keep = std::min<uint64_t>(keep, rows * max_bytes / bytes);
  return SliceRows(build, 0, keep);
}

}  // namespace granite::core
