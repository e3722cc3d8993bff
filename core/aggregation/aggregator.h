// Aggregator: hash aggregation of GROUP BY keys, the hot core of `SELECT keys, aggs ... GROUP BY`.
//
// Data flow: each worker thread feeds its morsels to its own Aggregator (Add). At the end every
// thread's groups are split into core::kBucketCount buckets by the key hash (PartialByBucket);
// bucket b of all threads is merged in a fresh Aggregator (Merge, in parallel over b) and emitted
// again (Partial) to the coordinator, which merges bucket b of every worker the same way and calls
// Finalize. Partial blocks are ordinary columns (key columns, then each aggregate's state columns,
// see AggregateFunction::StateTypes) encoded with core::EncodeBlock.
//
// The key hash (key_hash.h) is a pure function of key values and types, so a key falls in the same
// bucket in every Aggregator of every process.
//
// Key layouts, chosen once in Create; the per-row loop of each is a template, and each aggregate
// gets one virtual AddBatch call per batch:
//   kNoKeys      no GROUP BY keys: one group (created on first use; Finalize always returns a row).
//   kDirect16    one key of 1 or 2 bytes (UInt8, Int8, UInt16, Int16, Date): a direct-indexed array
//                of group ids, tracking the lowest and highest used index.
//   kFixed64     one other fixed-width key (<= 8 bytes): IntHashMap over the widened key.
//   kString      one String key: StringHashMap (bytes in an arena, saved hash).
//   kSerialized  anything else: keys serialized into bytes (fixed widths raw, strings with a 4-byte
//                length prefix) in a StringHashMap keyed by the combined key hash.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/aggregation/aggregate_function.h"
#include "core/aggregation/int_hash_map.h"
#include "core/aggregation/string_hash_map.h"
#include "core/block.h"
#include "core/column.h"

namespace granite::core {

// Groups rows by key and keeps every aggregate's state per group.
// Thread-safety: none; one thread per Aggregator (they are per-thread and per-bucket by design).
// Invariants: every function holds size() states; key column k holds size() values.
class Aggregator {
 public:
  enum class KeyLayout { kNoKeys, kDirect16, kFixed64, kString, kSerialized };

  // Creates an aggregator. Each spec must resolve (see ResolveAggregate); fails like it otherwise.
  static absl::StatusOr<std::unique_ptr<Aggregator>> Create(std::vector<TypeId> key_types,
                                                            std::vector<AggregateSpec> aggregates);

  // Adds `rows` input rows: the key columns and, per aggregate, its argument columns.
  // Fails with LOGICAL_ERROR if column counts or types do not match Create's (nothing is added).
  absl::Status Add(const std::vector<ColumnPtr>& keys,
                   const std::vector<std::vector<ColumnPtr>>& args, size_t rows);

  // Merges a partial block (key columns then state columns, PartialTypes()) produced by Partial or
  // PartialByBucket of an Aggregator with the same key types and specs, possibly in another
  // process. Fails with LOGICAL_ERROR on a column mismatch, CORRUPTED_DATA on malformed states.
  absl::Status Merge(const Block& partial);

  // Returns the key types then every aggregate's state column types.
  std::vector<TypeId> PartialTypes() const;
  // Returns the key types then every aggregate's result type (the columns of Finalize).
  std::vector<TypeId> ResultTypes() const;

  // Moves every group's key and states out as one block; the aggregator is empty afterwards.
  Block Partial();
  // Moves every group out split into kBucketCount blocks by BucketOf(key hash); empty buckets are
  // blocks of empty columns of PartialTypes(). The aggregator is empty afterwards.
  std::vector<Block> PartialByBucket();
  // Returns the key columns then one result column per aggregate, and empties the aggregator.
  // With no keys it returns exactly one row even if nothing was added (count() = 0, sum = 0,
  // avg = nan, min/max/any = the type's default), like ClickHouse.
  absl::StatusOr<Block> Finalize();

  // Returns the number of groups.
  size_t size() const { return groups_; }
  KeyLayout layout() const { return layout_; }

 private:
  Aggregator(std::vector<TypeId> key_types, std::vector<AggregateSpec> specs,
             std::vector<std::unique_ptr<AggregateFunction>> functions);

  // Checks that `keys` match key_types_ and hold at least `rows` rows.
  absl::Status CheckKeys(const std::vector<ColumnPtr>& keys, size_t rows) const;
  // Sets group_ids_[0 .. rows) to the groups of the key rows, creating groups (and appending
  // their keys) as needed, then resizes every function to the new group count.
  void AssignGroups(const std::vector<ColumnPtr>& keys, size_t rows);
  template <typename T>
  void AssignDirect(const Column& key, size_t rows);
  template <typename T, bool kPrefetch>
  void AssignFixed(const Column& key, size_t rows);
  template <bool kPrefetch>
  void AssignString(const Column& key, size_t rows);
  template <bool kPrefetch>
  void AssignSerialized(const std::vector<ColumnPtr>& keys, size_t rows);
  // Writes the serialized keys of rows [0, rows) to serialized_ / serialized_offsets_.
  void SerializeKeys(const std::vector<ColumnPtr>& keys, size_t rows);

  // Returns a block of the keys of `groups` (taken from the key columns) and their states.
  Block EmitGroups(const uint32_t* groups, size_t count) const;
  // Returns empty state columns of every aggregate, in PartialTypes() order after the keys.
  std::vector<MutableColumnPtr> NewStateColumns() const;
  // Drops every group and state; keeps the layout.
  void Clear();
  void ResetKeyColumns();

  // Constant after construction.
  const std::vector<TypeId> key_types_;
  const std::vector<AggregateSpec> specs_;
  std::vector<std::unique_ptr<AggregateFunction>> functions_;
  std::vector<std::vector<TypeId>> state_types_;  // per aggregate
  KeyLayout layout_ = KeyLayout::kNoKeys;

  // Groups.
  size_t groups_ = 0;
  std::vector<MutableColumnPtr> key_columns_;
  std::vector<uint32_t> direct_;  // kDirect16: group id per key index, IntHashMap::kEmpty if none
  uint32_t direct_min_ = UINT32_MAX;
  uint32_t direct_max_ = 0;
  IntHashMap int_map_;        // kFixed64
  StringHashMap string_map_;  // kString, kSerialized

  // Scratch buffers of the current batch.
  std::vector<uint32_t> group_ids_;
  std::vector<uint64_t> hashes_;
  std::string serialized_;
  std::vector<size_t> serialized_offsets_;
};

}  // namespace granite::core
