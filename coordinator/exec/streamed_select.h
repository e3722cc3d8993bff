// StreamedFinalStage: the coordinator's end of a SELECT streamed to the client. The workers'
// projected blocks arrive on the reader threads (FanOutStreamed); each goes through the final
// stage on its own — output expressions, then OFFSET / LIMIT counted across blocks — and into
// the ResultSink, one block at a time under a lock. The sink waits for the client, the lock holds
// the other reader threads, gRPC flow control holds the workers: the coordinator keeps about one
// block per worker whatever the result's size.
//
// Only a SELECT whose rows need not be seen together qualifies (CanStream): rows from workers,
// no aggregation, no ORDER BY; and aggregations whose groups need not be (CanStreamGroups): the
// merged buckets then come to Consume one by one, as shard 0's blocks. An ordered source (numbers) keeps its order: shard s's blocks
// wait until every shard before it ended, as RunConcat concatenates them shard by shard.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <vector>

#include "coordinator/cluster/fan_out.h"
#include "coordinator/exec/result_sink.h"
#include "coordinator/planner/query_plan.h"
#include "coordinator/server/query_context.h"
#include "core/mutex.h"

namespace granite::coordinator {

// True when `plan`'s rows may go to the client block by block as the workers send them.
bool CanStream(const QueryPlan& plan);
// True when `plan` aggregates by keys and its groups need not be seen together (no ORDER BY, no
// group limit): each merged bucket's groups go through the final stage (HAVING, output
// expressions, OFFSET / LIMIT counted across buckets) and to the client as soon as the buckets
// before it went (BucketedMerger::SetPieceSink), so the coordinator holds about a window of
// buckets, not the whole result. Groups each worker finalized (a table sharded by the keys) are
// streamed like projections.
bool CanStreamGroups(const QueryPlan& plan);

// Thread-safety: Consume and ShardDone from the reader threads, concurrently.
class StreamedFinalStage : public BlockConsumer {
 public:
  // REQUIRES: CanStream(plan); sink->Begin() done; `plan`, `query`, `sink` outlive this.
  StreamedFinalStage(const QueryPlan& plan, QueryContext* query, ResultSink* sink, size_t shards);

  absl::StatusOr<bool> Consume(size_t shard, core::Block block) override;
  void ShardDone(size_t shard) override;
  // An ordered source's shard s waits for shards below s to end.
  bool WaitsForOtherShards() const override { return ordered_; }

  uint64_t rows() const;  // rows given to the sink

 private:
  // Waits until `shard`'s blocks may go (ordered sources); false if the query ended first.
  bool WaitForTurn(size_t shard) REQUIRES(mu_);

  // Constant after construction.
  const QueryPlan& plan_;
  QueryContext* const query_;
  ResultSink* const sink_;
  const bool ordered_;

  mutable core::Mutex mu_{"streamed_final_stage"};
  std::condition_variable_any turn_changed_;
  std::vector<bool> shard_done_ GUARDED_BY(mu_);
  size_t turn_ GUARDED_BY(mu_) = 0;            // first shard not done (ordered sources)
  uint64_t offset_left_ GUARDED_BY(mu_) = 0;   // OFFSET rows still to skip
  uint64_t rows_ GUARDED_BY(mu_) = 0;          // rows given to the sink
  bool enough_ GUARDED_BY(mu_) = false;        // LIMIT reached or the sink wants no more
};

}  // namespace granite::coordinator
