// Aggregator: hash aggregation of GROUP BY keys, the hot core of `SELECT keys, aggs ... GROUP BY`.
//
// Data flow: each worker thread feeds its morsels to its own Aggregator (Add). At the end the
// threads' Aggregators are merged in memory by LocalMerger (local_merger.h) into kBucketCount
// partial blocks, bucket b holding the groups whose key hash has BucketOf(hash) == b; the
// coordinator merges bucket b of every worker (Merge) and calls Finalize. Partial blocks are
// ordinary columns (key columns, then each aggregate's state columns, AggregateFunction::
// StateTypes) encoded with core::EncodeBlock.
//
// The key hash is a pure function of the key values and the key layout (which is a function of the
// key types), so a key falls in the same bucket in every Aggregator of every process.
//
// Key layouts, chosen once in Create from the key types; the per-row loop of each is a template
// and each aggregate gets one virtual call per batch (cap: these seven, each measured in bench/):
//   kNoKeys      no GROUP BY keys: one group (Finalize always returns a row).
//   kDirect16    one key of 1 or 2 bytes (UInt8, Int8, UInt16, Int16, Date): FixedHashMap, a
//                direct-indexed array of group ids with a min/max occupied index; also a wider
//                integer key of a planned range of <= 65536 values, indexed by (value - min)
//                (AggregatorOptions::direct_key, coordinator/planner/rules/distinct_planner.h).
//   kFixed64     one other fixed-width key: IntHashMap over the widened key (hash HashIntKey), with
//                a FixedHashMap in front for values below 2^16, so small values of a wide type
//                cost what a UInt16 key costs.
//   kPacked64    several fixed-width keys of at most 8 bytes in total, packed (packed_keys.h) into
//                one uint64: the kFixed64 path over the packed value.
//   kPacked128   several fixed-width keys of at most 16 bytes: UInt128HashMap (hash HashUInt128).
//   kString      one String key: StringHashMap (saved hash, keys of <= 8 bytes inline, longer ones
//                in the aggregator's arena, stored once; hash HashBytes). A LowCardinality key
//                read with its dictionary codes (core/dictionary_codes.h) looks up each distinct
//                value of the batch once, then maps rows to groups by code (AssignByDictionary).
//   kSerialized  anything else: keys serialized into bytes (fixed widths raw, strings with a 4-byte
//                length prefix) in a StringHashMap keyed by the combined key hash (key_hash.h).
//                A few short String keys (with fixed-width ones, 16 bytes in all, short_keys.h)
//                find their group through a small packed-key cache in front of that table.
// Hashed layouts start with a single-level table and convert to a two-level one
// (two_level_hash_map.h) past options.two_level_threshold groups or two_level_threshold_bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/aggregation/aggregate_function.h"
#include "core/aggregation/arena.h"
#include "core/aggregation/fixed_hash_map.h"
#include "core/aggregation/int_hash_map.h"
#include "core/aggregation/short_keys.h"
#include "core/aggregation/string_hash_map.h"
#include "core/aggregation/two_level_hash_map.h"
#include "core/block.h"
#include "core/column.h"

namespace granite::core {

// Tuning of one Aggregator; query settings of the same names override the defaults.
// The defaults come from bench/results (hash_map_bench): a two-level table inserts 30-40% slower
// than a single-level one at 1e5-1e6 keys (one more dependent load a row) and as fast at 1e7,
// where it saves the transient old + new arrays of a huge rehash; so tables convert late. The
// parallel merge does not need two-level tables (LocalMerger indexes groups by bucket).
struct AggregatorOptions {
  // Convert to two-level past this many groups (group_by_two_level_threshold; 0 = never).
  size_t two_level_threshold = 4'000'000;
  // ... or past this many bytes of table, keys and hashes, the key arena of String keys not
  // counted (group_by_two_level_threshold_bytes).
  size_t two_level_threshold_bytes = size_t{256} << 20;
  // For aggregators that merge one bucket (few keys spread over the whole key range): use no
  // direct arrays (a 1-2 byte key gets the kFixed64 layout, with the same key hash), and never
  // convert to two-level (every key of one bucket would land in the same sub-table).
  bool sparse = false;
  // One integer key wider than 2 bytes whose widened values v all satisfy v - direct_key_base <
  // 65536 (unsigned; the planner's value range, Fragment.direct_key): kDirect16 indexed by
  // (v - direct_key_base), keys kept in their own type. A value outside fails Add with
  // LOGICAL_ERROR (a planner bug), never a wrong group. Ignored when sparse.
  bool direct_key = false;
  uint64_t direct_key_base = 0;
};

// Groups rows by key and keeps every aggregate's state per group.
// Thread-safety: none; one thread per Aggregator (they are per-thread and per-bucket by design),
// except that MergeGroupsFrom calls on different destinations may read one source concurrently
// when they name disjoint source groups.
// Invariants: every function holds size() states; every group has a key and (hashed and direct
// layouts) a saved key hash.
class Aggregator {
 public:
  enum class KeyLayout { kNoKeys, kDirect16, kFixed64, kPacked64, kPacked128, kString, kSerialized };

  // Creates an aggregator. Each spec must resolve (see ResolveAggregate); fails like it otherwise.
  static absl::StatusOr<std::unique_ptr<Aggregator>> Create(std::vector<TypeId> key_types,
                                                            std::vector<AggregateSpec> aggregates,
                                                            AggregatorOptions options = {});
  // Returns an empty aggregator with the same keys, aggregates and options (sparse if asked).
  std::unique_ptr<Aggregator> CloneEmpty(bool sparse) const;

  // Adds `rows` input rows: the key columns and, per aggregate, its argument columns.
  // Fails with LOGICAL_ERROR if column counts or types do not match Create's (nothing is added).
  absl::Status Add(const std::vector<ColumnPtr>& keys,
                   const std::vector<std::vector<ColumnPtr>>& args, size_t rows);
  // Adds the rows selection[0 .. count) (strictly ascending row indices) of `keys` and `args`,
  // which hold every row of the unfiltered input: the same groups and states as Add of a filtered
  // copy of those rows (aggregator_selected.cc). The kString and kSerialized layouts read the
  // selected keys in place, so a WHERE filter never copies String key columns; other layouts
  // read gathered copies of the keys (Column::Take). Arguments are read in place by functions
  // that override AggregateFunction::AddBatchSelected (sum, avg, min, max, any, count), gathered
  // for the others. Fails like Add, or with LOGICAL_ERROR when a selected row lies outside a
  // column.
  absl::Status AddSelected(const std::vector<ColumnPtr>& keys,
                           const std::vector<std::vector<ColumnPtr>>& args,
                           const uint32_t* selection, size_t count);

  // Merges a partial block (key columns then state columns, PartialTypes()) produced by Partial or
  // PartialByBucket of an Aggregator with the same key types and specs, possibly in another
  // process. Fails with LOGICAL_ERROR on a column mismatch, CORRUPTED_DATA on malformed states.
  absl::Status Merge(const Block& partial);
  // After a successful Merge of a block of n > 0 rows: entry i < n is the group id of row i
  // (ids are dense in [0, size()), and Finalize emits groups in id order). Overwritten by the
  // next Add or Merge (coordinator/exec/late_finalizer.h keeps a copy per input).
  const std::vector<uint32_t>& merged_groups() const { return group_ids_; }

  // In-memory merges from an Aggregator with the same key types and specs (see
  // AggregateFunction::MergeFrom for what happens to src's states and why src must outlive this
  // aggregator's states). Merges src's groups groups[0 .. count).
  void MergeGroupsFrom(Aggregator& src, const uint32_t* groups, size_t count);
  // Merges every group of src.
  void MergeAllFrom(Aggregator& src);
  // kNoKeys only: merges part `part` of src's states (AggregateFunction::MergePartFrom).
  void MergePartFrom(Aggregator& src, uint32_t part);
  // kNoKeys only: merges src, whose states hold other parts than this one's.
  void MergeDisjointFrom(Aggregator& src);
  // Returns true if some aggregate splits its states into parts (SplitsIntoParts).
  bool SplitsIntoParts() const;
  // Prepares every aggregate for MergePartFrom reading this aggregator.
  void PrepareParts();

  // Returns the key types then every aggregate's state column types.
  std::vector<TypeId> PartialTypes() const;
  // Returns the key types then every aggregate's result type (the columns of Finalize).
  std::vector<TypeId> ResultTypes() const;

  // Moves every group's key and states out as one block; the aggregator is empty afterwards.
  // final_only: states are written with WriteFinalOnlyStates (this block holds every group's only
  // state: the receiver finalizes without merging).
  Block Partial(bool final_only = false);
  // Moves every group out split into kBucketCount blocks by BucketOf(key hash); empty buckets are
  // blocks of empty columns of PartialTypes(). The aggregator is empty afterwards.
  std::vector<Block> PartialByBucket(bool final_only = false);
  // Returns a partial block of the keys and states of groups[0 .. count), copied: the
  // aggregator is unchanged. Concurrent calls naming disjoint groups are safe.
  Block PartialOfGroups(const uint32_t* groups, size_t count) const {
    return EmitGroups(groups, count, /*final_only=*/false);
  }
  // Returns the key columns then one result column per aggregate, and empties the aggregator.
  // With no keys it returns exactly one row even if nothing was added (count() = 0, sum = 0,
  // avg = nan, min/max/any = the type's default), like ClickHouse.
  // with_keys = false: only the result columns (no keys are built; a kString layout copies no
  // key bytes), for a caller that picks the groups it needs first (coordinator/exec/late_finalizer.h).
  absl::StatusOr<Block> Finalize(bool with_keys = true);

  // Sorts the group ids by bucket: order[starts[b] .. starts[b + 1]) are the groups of bucket b.
  // REQUIRES: layout() != kNoKeys.
  void BucketOrder(std::vector<uint32_t>* order, std::vector<uint32_t>* starts) const;
  // kDirect16 only: appends the groups whose key index lies in [lo, hi) to `out`.
  void GroupsInKeyRange(uint32_t lo, uint32_t hi, std::vector<uint32_t>* out) const;
  const FixedHashMap& direct_map() const { return fixed_; }

  // Prepares an empty single-level aggregator for about `groups` groups (no table growth while
  // merging them). REQUIRES: size() == 0.
  void Reserve(size_t groups);
  // Prepares an empty aggregator for about `groups` groups, as a table that grew to them would be
  // (hash_table_stats.h): two-level with every sub-table reserved when `groups` is past the
  // conversion thresholds, else Reserve. Same results as without it. No-op unless hashed and empty.
  void Presize(size_t groups);

  // Converts the hashed table to two-level now (no-op if not hashed or already two-level).
  void ConvertToTwoLevel();

  // Returns the number of groups.
  size_t size() const { return groups_; }
  KeyLayout layout() const { return layout_; }
  bool two_level() const { return two_level_; }
  const AggregatorOptions& options() const { return options_; }
  // Returns the bytes held by tables, keys and key hashes (not the aggregate states).
  size_t MemoryBytes() const;
  // Returns the heap bytes of the aggregate states beyond their fixed part (see
  // AggregateFunction::StateBytes). O(groups).
  size_t StateBytes() const;

 private:
  Aggregator(std::vector<TypeId> key_types, std::vector<AggregateSpec> specs,
             std::vector<std::unique_ptr<AggregateFunction>> functions, AggregatorOptions options);

  // Add, reading argument row arg_selection[i] for batch row i when arg_selection is set.
  // REQUIRES: layout() != kNoKeys when arg_selection is set.
  absl::Status AddRows(const std::vector<ColumnPtr>& keys,
                       const std::vector<std::vector<ColumnPtr>>& args, size_t rows,
                       const uint32_t* arg_selection);
  // Checks that `keys` match key_types_ and hold at least `rows` rows.
  absl::Status CheckKeys(const std::vector<ColumnPtr>& keys, size_t rows) const;
  // Sets group_ids_[0 .. rows) to the groups of the key rows, creating groups (with their keys
  // and hashes) as needed, then resizes every function. `known_hashes`, if not null, holds the
  // key hashes of the rows (an in-memory merge reuses the source's).
  void AssignGroups(const std::vector<ColumnPtr>& keys, size_t rows,
                    const uint64_t* known_hashes);
  // Layout loops (aggregator_assign.cc).
  template <typename T>
  void AssignDirect(const Column& key, size_t rows);
  template <typename T>
  void AssignDirectOffset(const Column& key, size_t rows);
  // The group at direct-array slot `index`, opened for row `row` (key value `key`) when empty.
  uint32_t DirectGroup(uint16_t index, uint64_t key, size_t row);
  template <bool kTwoLevel, bool kPrefetch, bool kSmall>
  void AssignInt(const uint64_t* keys, const uint64_t* hashes, size_t rows);
  template <bool kTwoLevel, bool kPrefetch>
  void AssignWide(const UInt128* keys, const uint64_t* hashes, size_t rows);
  template <bool kTwoLevel, bool kPrefetch, bool kSerialized>
  void AssignBytes(const std::string_view* keys, const uint64_t* hashes, size_t rows);
  void AssignIntLayout(const uint64_t* keys, const uint64_t* known_hashes, size_t rows);
  // kString over a key column that carries dictionary codes: finds or creates the group of each
  // distinct value the batch uses (in the hash table, as AssignBytes), then sets group_ids_ by
  // code. Reads key row selection_[i] for batch row i when selection_ is set.
  void AssignByDictionary(const DictionaryCodes& codes, size_t rows);
  // kString and kSerialized: sets group_ids_[0 .. rows) from the key views (the String values,
  // or the serialized keys), hashed unless known_hashes is set; reads key row selection_[i] for
  // batch row i when selection_ is set.
  void AssignViews(const std::vector<ColumnPtr>& keys, size_t rows, const uint64_t* known_hashes);
  // kSerialized over short keys (short_keys.h): sets group_ids_ through short_map_, sending only
  // the rows it misses through AssignViews; new_rows_ come out as key rows (through selection_).
  // Returns false, having assigned nothing, when some key of the batch is too long to pack.
  bool AssignShortKeys(const std::vector<ColumnPtr>& keys, size_t rows);
  // Writes the serialized keys of rows [0, rows) to serialized_ / serialized_views_.
  void SerializeKeys(const std::vector<ColumnPtr>& keys, size_t rows);
  // Appends the keys of the rows in new_rows_ to the key columns.
  void AppendNewKeys(const std::vector<ColumnPtr>& keys);
  // Returns the key columns of `groups` (taken from this aggregator's keys).
  std::vector<ColumnPtr> KeysOf(const uint32_t* groups, size_t count) const;

  // Returns a block of the keys of `groups` and their states.
  Block EmitGroups(const uint32_t* groups, size_t count, bool final_only) const;
  // PartialByBucket of millions of groups: keys and states are scattered to their buckets in
  // group order (bucket_scatter.h); a column or aggregate with no scatter path is gathered per
  // bucket as EmitGroups does.
  std::vector<Block> ScatterGroups(bool final_only) const;
  // Returns empty state columns of every aggregate, in PartialTypes() order after the keys.
  std::vector<MutableColumnPtr> NewStateColumns() const;
  // Drops every group and state; keeps the layout.
  void Clear();
  void ResetKeys();

  // Constant after construction.
  const std::vector<TypeId> key_types_;
  const std::vector<AggregateSpec> specs_;
  std::vector<std::unique_ptr<AggregateFunction>> functions_;
  std::vector<std::vector<TypeId>> state_types_;  // per aggregate
  const AggregatorOptions options_;
  KeyLayout layout_ = KeyLayout::kNoKeys;

  // Groups.
  size_t groups_ = 0;
  std::vector<uint64_t> group_hashes_;          // key hash per group (every layout but kNoKeys)
  std::vector<MutableColumnPtr> key_columns_;   // every layout but kNoKeys and kString
  std::vector<KeyRef> string_keys_;             // kString: key per group (inline or in arena)
  Arena key_arena_;                             // kString and kSerialized key bytes
  bool two_level_ = false;
  FixedHashMap fixed_;                          // kDirect16; small values of kFixed64/kPacked64
  IntHashMap int_map_{4};                       // kFixed64, kPacked64
  std::unique_ptr<TwoLevelHashMap<IntHashMap>> int_map2_;
  UInt128HashMap wide_map_{4};                  // kPacked128
  std::unique_ptr<TwoLevelHashMap<UInt128HashMap>> wide_map2_;
  StringHashMap string_map_{4};                 // kString, kSerialized
  std::unique_ptr<TwoLevelHashMap<StringHashMap>> string_map2_;

  // kSerialized keys that pack into 128 bits (a few short Strings): the packer, and the packed
  // key -> group cache in front of string_map_ (made on first use, dropped by Clear; off once
  // full until Clear).
  std::unique_ptr<ShortKeyPacker> short_packer_;
  std::unique_ptr<ShortKeyMap> short_map_;
  bool short_keys_off_ = false;

  bool direct_key_violated_ = false;  // AssignDirectOffset saw a value outside the range
  // kString, kSerialized: during AddSelected, the key row of each batch row (AssignGroups reads
  // row selection_[i] of the key columns for batch row i); null otherwise.
  const uint32_t* selection_ = nullptr;

  // Scratch buffers of the current batch.
  std::vector<uint32_t> group_ids_;
  std::vector<uint64_t> hashes_;
  std::vector<uint64_t> keys64_;
  std::vector<UInt128> keys128_;
  std::vector<std::string_view> views_;
  std::vector<uint32_t> dictionary_slots_;   // AssignByDictionary: code -> distinct value or ~0
  std::vector<uint32_t> dictionary_values_;  // AssignByDictionary: the batch's codes, distinct
  std::vector<uint32_t> new_rows_;  // rows that created a group, in group order
  std::vector<uint32_t> short_ids_;     // AssignShortKeys: the batch's groups
  std::vector<uint32_t> short_misses_;  // AssignShortKeys: batch rows the cache missed
  std::vector<uint32_t> short_rows_;    // AssignShortKeys: their key rows
  std::vector<uint16_t> short_codes_;   // AssignShortKeys: codes of one-byte keys
  std::string serialized_;
  std::vector<size_t> serialized_offsets_;
};

}  // namespace granite::core
