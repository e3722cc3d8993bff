// FragmentExecutor: runs one plan fragment on this worker — morsel-driven scan on the process-wide
// pool, the fragment pipeline per morsel, then the merge of thread-local states — and hands the
// results to a sink (the RPC stream) as column blocks or partial-aggregate buckets.
#pragma once

#include <atomic>
#include <functional>

#include "absl/status/status.h"
#include "core/thread_pool.h"
#include "core/plan/fragment.h"
#include "core/plan/fragment_result.h"
#include "storage/store.h"

namespace granite::worker {

// Receives the chunks of one fragment's result in order. Returns false when the receiver is gone.
using ChunkSink = std::function<bool(core::plan::ResultChunk&&)>;

// Runs fragments against the worker's store.
// Thread-safety: Run() may be called concurrently for different fragments.
class FragmentExecutor {
 public:
  FragmentExecutor(storage::Store* store, core::ThreadPool* pool) : store_(store), pool_(pool) {}

  // Executes `fragment`, streaming results into `sink`, and ends with a stats chunk.
  // `cancelled` is polled between morsels. Co-located joins (BroadcastJoin::local_build) first
  // read their builds from this worker's shard (fragment_executor_local_build.cc).
  absl::Status Run(const core::plan::Fragment& fragment, const std::atomic<bool>& cancelled,
                   const ChunkSink& sink);

 private:
  // Runs `fragment` once its builds are in the plan.
  absl::Status RunResolved(const core::plan::Fragment& fragment,
                           const std::atomic<bool>& cancelled, const ChunkSink& sink);
  // Returns the rows of co-located build `build` of `fragment` read from this worker's shard.
  // The read's stats chunks go to `sink`, so its rows count as the query's reads.
  absl::StatusOr<core::Block> ReadLocalBuild(const core::plan::Fragment& fragment,
                                             const core::plan::Fragment& build,
                                             const std::atomic<bool>& cancelled,
                                             const ChunkSink& sink);

  storage::Store* store_;
  core::ThreadPool* pool_;
};

}  // namespace granite::worker
