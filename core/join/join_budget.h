// JoinBudget: how much of its build side a worker's hash join may keep in memory, read once from
// the query's settings (join_algorithm, max_bytes_in_join, max_rows_in_join, join_overflow_mode,
// grace_hash_join_initial_buckets / _max_buckets, max_memory_usage and the server's limit).
//
// A spilling algorithm (grace_hash, and in granite also default, auto and the merge names, see
// setting_list.h) keeps at most `max_bytes` / `max_rows` of build rows in memory at a time and
// spills the rest (core/join/grace_hash_join.h). Its byte budget is the smallest of
// max_bytes_in_join, a quarter of max_memory_usage and an eighth of the server's limit: the hash
// table, the probe blocks in flight and what follows the join (an aggregation) need the rest.
// Bytes are counted as ClickHouse counts a join's: the build's columns plus its hash table (an
// estimate per row, GraceHashJoin::kTableBytesPerRow).
// hash and parallel_hash never spill: a build over max_bytes_in_join / max_rows_in_join fails
// with SET_SIZE_LIMIT_EXCEEDED (join_overflow_mode = 'throw') or keeps its first rows up to the
// limit ('break'), as in ClickHouse; a build over memory fails with MEMORY_LIMIT_EXCEEDED.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "core/block.h"
#include "core/join/grace_hash_join.h"
#include "core/settings/settings.h"

namespace granite::core {

struct JoinBudget {
  bool spills = false;
  uint64_t max_bytes = 0;  // 0 = no bound
  uint64_t max_rows = 0;   // 0 = no bound
  bool overflow_break = false;
  size_t initial_buckets = 2;
  size_t max_buckets = 1024;

  // Reads the settings; `server_limit`: the process's max_server_memory_usage (0 = none).
  static JoinBudget FromSettings(const Settings& settings, int64_t server_limit);
  // The options of a GraceHashJoin spilling into `spill_dir`. REQUIRES: spills.
  GraceOptions Grace(std::string spill_dir) const;
  // A non-spilling join's build checked against its limits: `build` itself, its first rows
  // (break), or SET_SIZE_LIMIT_EXCEEDED (throw). Any build when `spills`.
  absl::StatusOr<Block> Limit(Block build) const;
};

}  // namespace granite::core
