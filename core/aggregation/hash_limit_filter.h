// HashLimitFilter: GROUP BY ... LIMIT n without ORDER BY aggregates only the groups that can be
// returned ("bottom-L by key hash"). Sits in FragmentPipeline::Consume between the key expressions
// and Aggregator::Add on every worker thread; SelectBottomGroups runs on the coordinator's merged
// groups before the final stage applies LIMIT / OFFSET.
//
// Any L = limit + offset complete groups answer such a query. We return a deterministic choice:
// order keys by (h(key), key), where h is core::HashKeys (key_hash.h: HashInt of each widened
// fixed-width value or HashBytes of a string, combined with HashCombine in key order) computed
// explicitly over the key columns — a pure function of the key values and types, identical in
// every thread, worker and the coordinator, and independent of the aggregator's key layout (whose
// per-layout hashes differ). The answer is the L smallest keys in that order, the "global bottom-L".
//
// Per thread, the filter keeps the set S of the L smallest DISTINCT hashes it has admitted and the
// threshold T = max(S) once |S| == L. A row with h > T is dropped before the hash table; a row with
// h in S is kept; a row with a new h < T (or any new h while |S| < L) is kept and h joins S,
// evicting max(S) and lowering T.
//
// Why it is exact. Invariant: S is the L smallest distinct hashes among the rows this thread has
// seen so far (a hash leaves S only for a smaller one, and a dropped hash exceeds L seen ones).
// Let H be the L smallest distinct hashes over ALL rows of all threads and workers. A key k with
// h(k) in H has h(k) among the L smallest this thread has seen at each of its rows, so every row
// of k is kept: k's partial states are complete everywhere. The first L keys in (h, key) order
// have hashes in H (they span at most L distinct hashes, each no larger than the L-th distinct
// one), so they reach the coordinator complete. Evicted keys may leave stale (incomplete) partial
// groups, but a stale key's hash is not in H, so it ranks after every key with a hash in H; the
// coordinator keeps the L smallest (h, key) of all groups it received — a superset of the global
// bottom-L — which are exactly the global bottom-L. Ties (equal hashes of different keys) are
// harmless: S holds hashes, so all keys of one hash are kept or dropped together.
// Cost: after warm-up almost every row costs one hash and one compare; a thread admits about
// L * ln(rows / L) distinct hashes in all (random order), so few stale groups travel.
//
// The same filter serves GROUP BY keys ORDER BY k LIMIT n, where k (ascending or descending) is
// one of the keys (the first ORDER BY expression): ranked by the order code of k
// (key_order_code.h) instead of the key hash, it keeps the rows whose code is among the L
// smallest distinct codes this thread has seen. A dropped row's key sorts strictly after L keys
// of other groups, so its group is not in the top L; the groups that are have complete partial
// states everywhere (the argument above, with codes for hashes). The coordinator needs no
// selection of its own: its ORDER BY k ... LIMIT puts the incomplete groups past the limit.
// Only the first ORDER BY key must be a GROUP BY key; later ones may be anything, and HAVING
// must be absent (it could drop top groups and let incomplete ones in).
// Keys in an order the filter cannot use (ascending data, ORDER BY k LIMIT on a prefix key with
// few values, ascending data under ORDER BY k DESC) drop almost nothing: after kObservationRows
// rows, a full filter that dropped under 10% of them freezes and keeps every later row (as
// ClickHouse's group_by_top_k_optimization_observation_rows; ClickHouse also keeps a filter that
// still evicts, because its heap also prunes the hash table, which this one does not). Keeping
// more rows never breaks exactness.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "core/block.h"
#include "core/column.h"

namespace granite::core {

// Admits the rows of the groups that may be among the L smallest by key hash (see above).
// Thread-safety: none; one filter per thread (FragmentPipeline::LocalState).
// Invariants: heap_ and admitted_ hold the same distinct hashes, at most limit_ of them;
// threshold_ is max(heap_) when heap_ holds limit_ hashes, else UINT64_MAX.
class HashLimitFilter {
 public:
  // Ranks rows by the hash of all key columns. REQUIRES: limit > 0.
  explicit HashLimitFilter(size_t limit);
  // Ranks rows by the order code of key column `key` sorted ascending or descending.
  // REQUIRES: limit > 0; every key column given to Filter / Apply at index `key` has a type
  // for which HasOrderCode holds.
  static HashLimitFilter ByKeyOrder(size_t limit, size_t key, bool descending);

  // Ranks the key rows [0, rows) (HashKeys, or OrderCodes of the ranked key) and sets mask[i] to
  // 1 for rows to aggregate, 0 for rows to skip. Returns the number of rows kept.
  // REQUIRES: every key column holds at least `rows` rows; mask has `rows` bytes.
  size_t Filter(const std::vector<ColumnPtr>& keys, size_t rows, uint8_t* mask);
  // Same, over precomputed key hashes.
  size_t FilterHashes(const uint64_t* hashes, size_t rows, uint8_t* mask);

  // Drops the rows of `input` and `keys` (the key columns evaluated over `input`) that Filter
  // rejects, in place; returns the rows left. Cheap when every row is dropped (nothing is copied)
  // or kept (nothing changes); when Filter keeps 7/8 of the rows or more, keeps them all.
  size_t Apply(Block* input, std::vector<ColumnPtr>* keys);

  // Rows a ByKeyOrder filter observes before it decides whether to freeze (see above).
  static constexpr uint64_t kObservationRows = 65536;

  // Returns T: rows hashing above it are dropped (UINT64_MAX until L hashes are admitted).
  uint64_t threshold() const { return threshold_; }
  // Returns the number of distinct hashes currently admitted (<= limit).
  size_t admitted() const { return heap_.size(); }
  size_t limit() const { return limit_; }
  // True once a ByKeyOrder filter froze: it keeps every row.
  bool frozen() const { return frozen_; }

 private:
  // Admits new hash h: adds it to S, evicting max(S) past limit_. REQUIRES: h not in S, h < T.
  void Admit(uint64_t h);

  // Constant after construction.
  const size_t limit_;
  bool by_key_order_ = false;  // rank by the order code of keys[order_key_], not the key hash
  size_t order_key_ = 0;
  bool descending_ = false;

  std::vector<uint64_t> heap_;  // max-heap of S
  absl::flat_hash_set<uint64_t> admitted_;  // S, for membership
  uint64_t threshold_ = UINT64_MAX;
  uint64_t last_ = 0;  // the last hash kept, once has_last_ (in S while it is <= threshold_)
  bool has_last_ = false;
  // ByKeyOrder only: rows seen and dropped until the freeze decision.
  bool deciding_ = false;
  bool frozen_ = false;
  uint64_t observed_ = 0;
  uint64_t dropped_ = 0;
  std::vector<uint64_t> hashes_;  // scratch: the batch's key hashes
  std::vector<uint8_t> mask_;     // scratch: the batch's kept rows
};

// Returns the row indexes of the `limit` groups of `groups` smallest in (HashKeys of the first
// `key_count` columns, key values) order, in that order (all rows if there are fewer). The
// coordinator applies it to the merged groups (keys, then finalized aggregates) of a query whose
// workers ran a HashLimitFilter of the same limit.
// REQUIRES: key_count > 0; groups has at least key_count columns.
std::vector<uint32_t> BottomGroupsByHash(const Block& groups, size_t key_count, size_t limit);

}  // namespace granite::core
