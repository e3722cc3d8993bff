// LocalFinalizer: the end of a shard-local aggregation inside one worker (Fragment.
// finalize_on_worker: this worker holds every row of its groups). Merges the thread-local
// Aggregators and finalizes the groups right there — keys, then aggregate results — handing each
// finalized piece to a caller's `finish` (the worker's HAVING / top-N cut) before it is kept.
//
// Why not LocalMerger + a second merge: LocalMerger::Merge writes every bucket out as a partial
// block (every key copied, every state written), and finalizing such blocks means merging them
// again into a fresh table (every key serialized and hashed a second time). On a GROUP BY whose
// groups are nearly all distinct, that was a third of a worker's CPU. Here each group is hashed
// once after the scan: bucket b of every thread is merged into one fresh table (the thread with
// most groups of b first: its states move), then finalized in place (keys move out, no copy).
//
// Paths, chosen by the shape of the input (LocalMerger's thresholds):
//   - serial (small result, one thread, or no keys without split states): every thread merged
//     into the first, finalized as one piece;
//   - hashed layouts, parallel: one task per bucket as above, piece b = bucket b;
//   - direct arrays and split no-key states: LocalMerger::Merge with final-only states, then each
//     bucket merged into a fresh sparse aggregator and finalized (their merges do not hash).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/aggregation/aggregator.h"
#include "core/aggregation/local_merger.h"
#include "core/block.h"
#include "core/thread_pool.h"

namespace granite::core {

// Merges and finalizes thread-local Aggregators of one shard-local aggregation.
// Thread-safety: Finalize may be called from any thread; it uses `pool` for its parallel phases
// and may call `finish` concurrently for different pieces.
class LocalFinalizer {
 public:
  // Receives finalized groups (key columns, then one result column per aggregate; the keys of
  // one piece are distinct from every other piece's) and returns what to keep of them.
  using Finish = std::function<absl::StatusOr<Block>(Block)>;

  // Returns the non-empty results of `finish` over the pieces, in bucket order (empty when there
  // are no groups; a no-key aggregation always has its one row). The aggregators are consumed.
  // options.parallel_threshold / parallel_threshold_bytes choose the serial path.
  // in_place = false (setting worker_finalize_in_place = 0, for A/B measurements) takes the
  // partial-bucket path for every layout, as before this class existed.
  // REQUIRES: aggregators is not empty and all were created with the same keys and specs.
  static absl::StatusOr<std::vector<Block>> Finalize(
      std::vector<std::unique_ptr<Aggregator>> aggregators, ThreadPool* pool,
      const LocalMerger::Options& options, const Finish& finish, bool in_place = true);

 private:
  // Hashed layouts, parallel: one fresh table per bucket, finalized in place.
  static std::vector<absl::StatusOr<Block>> FinalizeHashed(
      std::vector<std::unique_ptr<Aggregator>>& aggregators, ThreadPool* pool,
      const Finish& finish);
  // Direct arrays and split states: final-only partial buckets, each merged again and finalized.
  static std::vector<absl::StatusOr<Block>> FinalizeFromPartials(
      std::vector<std::unique_ptr<Aggregator>> aggregators, ThreadPool* pool,
      const LocalMerger::Options& options, const Finish& finish);
};

}  // namespace granite::core
