// JoinTable: the build side of a broadcast hash join (plan::BroadcastJoin) — the build rows and a
// hash table of their keys, built once per fragment and then probed by every scan thread with
// the key columns of its input blocks. ProbeRows gives the result's row pairs; the caller gathers
// the columns (core/join/gather_rows.h).
//
// Keys: one integer-like key on both sides hashes its 64-bit value (core/join/row_keys.h
// KeyWord); anything else hashes the row key bytes (AppendRowKey). A NULL key matches nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "core/aggregation/int_hash_map.h"
#include "core/block.h"
#include "core/plan/fragment.h"

namespace granite::core {

// The rows of one probed block's join result: probe[i] and build[i] form result row i; build -1
// stands for no build row (default values).
struct ProbedRows {
  std::vector<int64_t> probe;
  std::vector<int64_t> build;
};

// Thread-safety: immutable after Build; Probe may run on many threads at once.
class JoinTable {
 public:
  using Kind = plan::BroadcastJoin::Kind;

  // Hashes `build`'s `keys` columns. `probe_types` are the probe keys' types (one per key): they
  // choose the key encoding. Errors: NO_COMMON_TYPE for a pair KeysComparable refuses.
  // `track_matches` (RIGHT / FULL joins): Probe records which build rows matched.
  static absl::StatusOr<JoinTable> Build(Block build, std::vector<uint32_t> keys,
                                         const std::vector<TypeId>& probe_types,
                                         bool track_matches = false);

  // Joins `rows` probe rows whose key columns are `probe_keys` (one per build key). kRight gives
  // kInner's rows and kFull kLeft's; both record the matched build rows (REQUIRES: built with
  // track_matches).
  ProbedRows Probe(Kind kind, const std::vector<const Column*>& probe_keys, size_t rows) const;

  // Probe over probe rows [begin, end) only, stopping after the first stretch of rows (of at
  // most kProbeStride) that takes the result to `max_rows` or more (0 = no bound); returns the
  // rows and sets `*stopped` to the first probe row not joined. Row indexes are absolute.
  ProbedRows ProbeRange(Kind kind, const std::vector<const Column*>& probe_keys, size_t begin,
                        size_t end, size_t max_rows, size_t* stopped) const;
  static constexpr size_t kProbeStride = 1024;

  // The build rows no Probe matched so far, in build order (NULL keys never match).
  // REQUIRES: built with track_matches; no Probe running.
  std::vector<int64_t> Unmatched() const;

  const Block& build() const { return build_; }

 private:
  // Calls `emit(probe_row, head)` per probe row of [begin, end) with a match (a NULL key has
  // none), in row order; with `misses`, also `emit(probe_row, -1)` for each row without one.
  template <typename Emit>
  void Lookup(const std::vector<const Column*>& probe_keys, size_t begin, size_t end,
              bool misses, Emit&& emit) const;
  // Sets key_bits_ from the build rows' key words when their span is small enough.
  void BuildKeyBits(const std::vector<uint64_t>& words);
  // Lays out the build rows by key group (group_of: each row's group, -1 for NULL keys) and
  // returns each group's head: its row when every group has one row (unique_), else the
  // group's first slot of group_rows_.
  std::vector<int64_t> GroupRows(const std::vector<int64_t>& group_of, size_t groups);
  // The head of key word `word` (its hash `hash`), -1 when no build row has it.
  int64_t WordHead(uint64_t word, uint64_t hash) const {
    const uint32_t group = word_groups_.Find(word, hash);
    if (group == IntHashMap::kEmpty) return -1;
    return heads_are_groups_ ? static_cast<int64_t>(group) : word_heads_[group];
  }
  // Adds the rows of probe row `p`, whose key's head is `head`, to `out`.
  void AddRows(Kind kind, size_t p, int64_t head, ProbedRows* out) const;

  Block build_;
  std::vector<uint32_t> keys_;
  // One integer-like key on both sides, or two narrow ones packed into one word
  // (pair_words_: row_keys.h PairKeyWord).
  bool words_ = false;
  bool pair_words_ = false;
  // Key word -> its group (IntHashMap: no control bytes, the slot prefetched ahead of a probe
  // of a table larger than the cache) -> the group's head.
  IntHashMap word_groups_{4};
  std::vector<int64_t> word_heads_;
  // Every build row has a key of its own and none is NULL (a primary key's build): group g is
  // row g, its own head, and a probe skips the word_heads_ load (a second cache miss per row
  // over a table larger than the cache).
  bool heads_are_groups_ = false;
  // words_ keys spanning at most kBitsPerKey bits per build row (or kSmallSpanBits): a bitmap of
  // the keys over [key_min_, key_min_ + key_range_), tested before the hash table, so a probe row
  // whose key no build row holds (most rows of a fact table probed by a filtered dimension) costs
  // one load, in order over a probe sorted by the key, and no hash lookup. Empty otherwise.
  std::vector<uint64_t> key_bits_;
  uint64_t key_min_ = 0;
  uint64_t key_range_ = 0;
  // At 256 bits per row the bitmap is at most twice the hash table's bytes; never over 32 MiB.
  static constexpr uint64_t kBitsPerKey = 256;
  static constexpr uint64_t kSmallSpanBits = uint64_t{1} << 21;
  static constexpr uint64_t kMaxBits = uint64_t{1} << 28;
  absl::flat_hash_map<std::string, int64_t> bytes_head_;
  // The heads map a key to its build rows. unique_ (no key has two rows, as a primary key's
  // build): the head is the row itself. Otherwise the head is the first slot of the key's rows
  // in group_rows_, contiguous and in build order, the last one stored as ~row: a key matching
  // many build rows (a fact table's rows built for a dimension probing them) reads them from one
  // stretch of memory.
  bool unique_ = true;
  std::vector<int64_t> group_rows_;
  // track_matches: one flag per build row, set by any probing thread (relaxed: read after they
  // all finished).
  std::unique_ptr<std::atomic<uint8_t>[]> matched_;
};

}  // namespace granite::core
