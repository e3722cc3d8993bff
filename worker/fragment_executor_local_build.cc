// FragmentExecutor's co-located joins (plan::BroadcastJoin::local_build): before the fragment
// runs, each build is read from this worker's own shard by running its projecting fragment here,
// and the rows take the place of a build the coordinator would have sent.
#include <algorithm>

#include "core/block_codec.h"
#include "core/block_sort.h"
#include "core/status_macros.h"
#include "worker/fragment_executor.h"

namespace granite::worker {

core::Block FragmentExecutor::EmptyBuild(const core::plan::Fragment& build) {
  core::Block block;
  for (const core::plan::Expr& projection : build.projections) {
    block.columns.push_back(std::make_shared<core::Column>(projection.type));
  }
  return block;
}

absl::Status FragmentExecutor::Run(const core::plan::Fragment& fragment,
                                   const std::atomic<bool>& cancelled, const ChunkSink& sink) {
  if (fragment.shuffling() && !fragment.explain_only) return RunShuffled(fragment, cancelled, sink);
  const bool local = std::any_of(fragment.joins.begin(), fragment.joins.end(),
                                 [](const core::plan::BroadcastJoin& j) { return j.local_build; });
  if (!local) return RunResolved(fragment, cancelled, sink);
  core::plan::Fragment resolved = fragment;
  for (core::plan::BroadcastJoin& join : resolved.joins) {
    if (!join.local_build) continue;
    // EXPLAIN indexes = 1 reads nothing: an empty build has the columns the plan compiles with.
    if (fragment.explain_only) {
      join.build = EmptyBuild(*join.local_build);
    } else {
      ASSIGN_OR_RETURN(join.build, ReadLocalBuild(fragment, *join.local_build, cancelled, sink));
    }
    join.local_build.reset();
    join.shuffle = false;
  }
  return RunResolved(resolved, cancelled, sink);
}

absl::StatusOr<core::Block> FragmentExecutor::ReadLocalBuild(const core::plan::Fragment& fragment,
                                                             const core::plan::Fragment& build,
                                                             const std::atomic<bool>& cancelled,
                                                             const ChunkSink& sink) {
  core::plan::Fragment read = build;
  read.query_id = fragment.query_id;
  read.worker_index = fragment.worker_index;
  read.worker_count = fragment.worker_count;
  read.settings = fragment.settings;
  read.settings.network_compression_method = "none";  // decoded right here
  std::vector<core::Block> blocks;
  absl::Status decoded;
  const ChunkSink collect = [&](core::plan::ResultChunk&& chunk) {
    if (chunk.kind == core::plan::ResultChunk::Kind::kStats) return sink(std::move(chunk));
    absl::StatusOr<core::Block> block =
        core::DecodeWireBlock(chunk.block.data, chunk.block.raw_size);
    if (!block.ok()) {
      decoded = block.status();
      return false;
    }
    if (block->rows() > 0) blocks.push_back(*std::move(block));
    return true;
  };
  absl::Status ran = RunResolved(read, cancelled, collect);
  RETURN_IF_ERROR(decoded);
  RETURN_IF_ERROR(ran);
  if (blocks.empty()) return EmptyBuild(build);
  return core::ConcatBlocks(blocks);
}

}  // namespace granite::worker
