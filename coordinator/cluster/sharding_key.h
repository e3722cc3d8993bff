// Sharding key: the columns an INSERT routes rows by. `CREATE TABLE ... SETTINGS sharding_key =
// 'a, b'` stores them in TableSchema.sharding_key together with the cluster's worker count at
// creation (shard_count); INSERT then sends each row to worker hash(a, b) % worker count, so
// rows with equal key values always land on the same worker. That is what lets an aggregation
// grouped by the key finalize on the workers (see shard_local_aggregation.h).
// Without a sharding key rows are split evenly in contiguous slices.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/block.h"
#include "core/table_schema.h"

namespace granite::coordinator {

// The SETTINGS name of the sharding key.
inline constexpr char kShardingKeySetting[] = "sharding_key";

// Parses the setting's text: one column name or a comma-separated list (spaces around names and
// `backquotes` allowed). Fails with BAD_ARGUMENTS on an empty list, an empty item, an item that is
// not a plain name (an expression) or a repeated column, and with UNKNOWN_IDENTIFIER on a name
// that is not a column of `schema`; messages name the item and its 1-based position in the list.
absl::StatusOr<std::vector<std::string>> ParseShardingKey(
    std::string_view text, const core::TableSchema& schema);

// Returns, for each row of `block`, the worker it belongs to: a hash of the key columns' values
// (core/hash.h, stable across processes) modulo `worker_count`. `key_columns` index into `block`.
// REQUIRES: worker_count > 0; every index is < block.columns.size().
std::vector<uint32_t> ShardOfRows(const core::Block& block, const std::vector<size_t>& key_columns,
                                  size_t worker_count);

// Splits `block` into `worker_count` blocks by ShardOfRows, keeping the rows' relative order.
// REQUIRES: as ShardOfRows.
std::vector<core::Block> SplitByShard(const core::Block& block,
                                      const std::vector<size_t>& key_columns, size_t worker_count);

// Splits `block` into `count` contiguous slices of (nearly) equal row counts; slice i becomes
// entry (first + i) % count, so the caller chooses which entry gets the first rows.
// REQUIRES: count > 0.
std::vector<core::Block> SplitEvenly(const core::Block& block, size_t count, size_t first);

// Returns the positions in schema.columns of the sharding key's columns, in key order.
std::vector<size_t> ShardingKeyColumns(const core::TableSchema& schema);

}  // namespace granite::coordinator
