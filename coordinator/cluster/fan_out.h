// FanOut: sends one fragment to every worker at once and routes what comes back — column blocks
// to the caller, partial-aggregate buckets to the BucketedMerger. The first failure cancels every
// other worker's stream, so a failed or cancelled query stops everywhere at once. With replicas
// the fragment goes to one replica per shard (load_balancing); a replica that dies or stalls is
// replaced by the next one of its shard, and only a shard whose every replica failed fails the
// query (ALL_CONNECTION_TRIES_FAILED naming the shard and each replica's error). Every stream is
// read on the calling thread through one completion queue (stream_set.h).
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/exec/bucketed_merger.h"
#include "coordinator/server/query_context.h"
#include "coordinator/cluster/worker_set.h"
#include "core/block.h"
#include "core/plan/fragment.h"
#include "granite/worker/v1/plan.pb.h"

namespace granite::coordinator {

// Takes a projecting fragment's blocks as they arrive, instead of FanOut collecting them
// (coordinator/exec/streamed_select.h).
// Thread-safety: Consume and ShardDone run on the query's thread, or with WaitsForOtherShards on
// reader threads, one per shard, concurrently.
class BlockConsumer {
 public:
  virtual ~BlockConsumer() = default;
  // Takes the next block of shard `shard`'s stream (in stream order); false when no more rows
  // are needed (the rest of that stream is read and dropped); an error fails the query.
  virtual absl::StatusOr<bool> Consume(size_t shard, core::Block block) = 0;
  // Shard `shard`'s stream ended (successfully or not; the query's status says which).
  virtual void ShardDone(size_t shard) = 0;
  // True if Consume may wait until other shards' blocks have come (an ordered source): FanOut
  // then reads each stream on a thread of its own (reader_threads.h), not all of them on one
  // (stream_set.h).
  virtual bool WaitsForOtherShards() const { return false; }
};

// Runs `fragment` on every shard (worker_index / worker_count = shard index / shard count), or
// on fragment.shards alone when set (the others count as having returned nothing).
// Aggregating fragments feed `merger` (REQUIRES: merger != null, sized for shard_count()); others
// return blocks grouped per shard, in shard order.
absl::StatusOr<std::vector<std::vector<core::Block>>> FanOut(
    const WorkerSet& workers, const core::plan::Fragment& fragment, QueryContext* query,
    BucketedMerger* merger);

// As FanOut for a projecting fragment, handing every block to `consumer`. With replicas, a shard
// whose replica fails after some of its blocks were consumed fails the query (its rows are out).
absl::Status FanOutStreamed(const WorkerSet& workers, const core::plan::Fragment& fragment,
                            QueryContext* query, BlockConsumer* consumer);

}  // namespace granite::coordinator
