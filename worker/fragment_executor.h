// FragmentExecutor: runs one plan fragment on this worker — morsel-driven scan on the process-wide
// pool, the fragment pipeline per morsel, then the merge of thread-local states — and hands the
// results to a sink (the RPC stream) as column blocks or partial-aggregate buckets.
#pragma once

#include <atomic>
#include <functional>

#include "absl/status/status.h"
#include "core/block_codec.h"
#include "core/fragment_pipeline.h"
#include "core/thread_pool.h"
#include "core/plan/fragment.h"
#include "core/plan/fragment_result.h"
#include "storage/store.h"
#include "worker/exchange.h"

namespace granite::worker {

// Receives the chunks of one fragment's result in order. Returns false when the receiver is gone.
using ChunkSink = std::function<bool(core::plan::ResultChunk&&)>;

// Runs fragments against the worker's store.
// Thread-safety: Run() may be called concurrently for different fragments.
class LateMaterializedScan;
class MorselSource;

class FragmentExecutor {
 public:
  // `exchanges` (may be null: no shuffle joins) holds this worker's inboxes of shuffle joins.
  FragmentExecutor(storage::Store* store, core::ThreadPool* pool,
                   ExchangeRegistry* exchanges = nullptr)
      : store_(store), pool_(pool), exchanges_(exchanges) {}

  // Executes `fragment`, streaming results into `sink`, and ends with a stats chunk.
  // `cancelled` is polled between morsels. Co-located joins (BroadcastJoin::local_build) first
  // read their builds from this worker's shard (fragment_executor_local_build.cc); a shuffle
  // join exchanges both sides with the other workers first (fragment_executor_shuffle.cc).
  absl::Status Run(const core::plan::Fragment& fragment, const std::atomic<bool>& cancelled,
                   const ChunkSink& sink);

 private:
  // Runs `fragment` once its builds are in the plan.
  // `joins`: where its joins spill and the builds already split while read.
  absl::Status RunResolved(const core::plan::Fragment& fragment,
                           const std::atomic<bool>& cancelled, const ChunkSink& sink,
                           core::FragmentPipeline::JoinInputs joins = {});
  // Reads the rows of co-located build `build` of `fragment` from this worker's shard and hands
  // them to `add` block by block as the read streams them (empty blocks skipped). The read's
  // stats chunks go to `sink`, so its rows count as the query's reads.
  using BlockConsumer = std::function<absl::Status(core::Block)>;
  absl::Status ReadLocalBuild(const core::plan::Fragment& fragment,
                              const core::plan::Fragment& build,
                              const std::atomic<bool>& cancelled, const ChunkSink& sink,
                              const BlockConsumer& add);
  // Gathers the build rows `read` hands to its consumer — into a GraceHashJoin when join `join`
  // of `fragment` may spill (then `*prepared` is it, if it spilled) — and returns the build the
  // plan carries: every row, or bucket 0's when it spilled. `shape`: the build's columns.
  absl::StatusOr<core::Block> GatherBuild(const core::plan::Fragment& fragment,
                                          const core::plan::BroadcastJoin& join,
                                          const core::Block& shape,
                                          const std::function<absl::Status(const BlockConsumer&)>& read,
                                          std::shared_ptr<core::GraceHashJoin>* prepared) const;
  // Where this worker's joins spill: <data>/tmp.
  std::string SpillDir() const;

  using LocalState = core::FragmentPipeline::LocalState;
  // The error of a fragment whose receiver went away (or whose query was cancelled).
  static absl::Status SinkGone();
  // A block with no rows and the columns build fragment `build` projects.
  static core::Block EmptyBuild(const core::plan::Fragment& build);
  // The threads a fragment may use on the pool: max_threads, at most the pool's (0 = the pool's).
  size_t MaxThreads(const core::Settings& settings) const;
  // Merges the thread states of `fragment`'s pipeline and sends the result — partial buckets,
  // finalized groups or rows — to `sink` (not the stats chunk). `late` and `source`: a late-
  // materialized scan's rows are read here (both null otherwise).
  absl::Status SendResult(const core::plan::Fragment& fragment,
                          const core::FragmentPipeline& pipeline,
                          std::vector<std::unique_ptr<LocalState>> states,
                          LateMaterializedScan* late, const MorselSource* source,
                          core::WireCompression compression, const std::atomic<bool>& cancelled,
                          const ChunkSink& sink);
  // An empty block with the columns `fragment`'s scan reads from its table, typed as read.
  absl::StatusOr<core::Block> ScanShape(const core::plan::Fragment& fragment) const;
  // Runs a fragment whose first join is a shuffle (worker/exchange.h).
  absl::Status RunShuffled(const core::plan::Fragment& fragment,
                           const std::atomic<bool>& cancelled, const ChunkSink& sink);

  storage::Store* store_;
  core::ThreadPool* pool_;
  ExchangeRegistry* exchanges_;
};

}  // namespace granite::worker
