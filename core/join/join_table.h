// JoinTable: the build side of a broadcast hash join (plan::BroadcastJoin) — the build rows and a
// hash table of their keys, built once per fragment and then probed by every scan thread with
// the key columns of its input blocks. ProbeRows gives the result's row pairs; the caller gathers
// the columns (core/join/gather_rows.h).
//
// Keys: one integer-like key on both sides hashes its 64-bit value (core/join/row_keys.h
// KeyWord); anything else hashes the row key bytes (AppendRowKey). A NULL key matches nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
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
  static absl::StatusOr<JoinTable> Build(Block build, std::vector<uint32_t> keys,
                                         const std::vector<TypeId>& probe_types);

  // Joins `rows` probe rows whose key columns are `probe_keys` (one per build key).
  ProbedRows Probe(Kind kind, const std::vector<const Column*>& probe_keys, size_t rows) const;

  const Block& build() const { return build_; }

 private:
  // Calls `emit(probe_row, first_build_row)` per probe row; -1 = no match.
  template <typename Emit>
  void Lookup(const std::vector<const Column*>& probe_keys, size_t rows, Emit&& emit) const;

  Block build_;
  std::vector<uint32_t> keys_;
  bool words_ = false;  // one integer-like key on both sides
  absl::flat_hash_map<uint64_t, int64_t> word_head_;
  absl::flat_hash_map<std::string, int64_t> bytes_head_;
  std::vector<int64_t> next_;  // the next build row of the same key, -1 at the end
};

}  // namespace granite::core
