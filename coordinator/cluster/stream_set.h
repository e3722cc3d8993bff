// StreamSet: reads every worker stream of one query on the calling thread, through one gRPC
// completion queue. A query over N workers used to wake N reader threads, each starting its call
// and blocking on its reads; here the thread that runs the query starts all N calls at once and
// handles each chunk as it completes, so reaching another worker costs a call's work and no
// thread hand-off. Backpressure stays per stream: a stream's next read starts only once its
// chunk is handled, so a slow consumer (the client) or the merger's window (a stream that
// finds its buckets held back waits, unread, while the others go on) holds its worker back
// through gRPC flow control. Cancellation, the stall watch and failover to the next replica
// work as with a thread per stream: every call's context is registered with the query.
#pragma once

#include <cstddef>
#include <vector>

#include "absl/status/status.h"
#include "coordinator/cluster/fragment_attempt.h"

namespace granite::coordinator {

// One shard a query reads: the processes to try, in order (one without replicas).
struct ShardRead {
  size_t shard = 0;
  std::vector<size_t> processes;
  bool replicated = false;  // fail over to the next process on a failure on the way
};

// Runs `fragment` on every shard of `reads` and waits for all of them: blocks go to `consumer`
// if set, else into (*blocks)[shard]; buckets to `merger`. Sets (*statuses)[shard]; a shard that
// fails cancels the query (every other stream stops); consumer->ShardDone(shard) follows the
// end of each shard's stream.
// REQUIRES: consumer is null or never waits for another shard's blocks
// (BlockConsumer::WaitsForOtherShards); blocks and statuses hold shard_count() entries.
void ReadStreams(const WorkerSet& workers, const std::vector<ShardRead>& reads,
                 const EncodedFragment& fragment, QueryContext* query, BucketedMerger* merger,
                 std::vector<std::vector<core::Block>>* blocks, BlockConsumer* consumer,
                 std::vector<absl::Status>* statuses);

}  // namespace granite::coordinator
