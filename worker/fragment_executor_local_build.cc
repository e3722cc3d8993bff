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

std::string FragmentExecutor::SpillDir() const { return store_->data_dir() + "/tmp"; }

absl::StatusOr<core::Block> FragmentExecutor::GatherBuild(
    const core::plan::Fragment& fragment, const core::plan::BroadcastJoin& join,
    const core::Block& shape, const std::function<absl::Status(const BlockConsumer&)>& read,
    std::shared_ptr<core::GraceHashJoin>* prepared) const {
  std::shared_ptr<core::GraceHashJoin> grace =
      core::FragmentPipeline::NewGraceJoin(join, shape, fragment.settings, SpillDir());
  if (grace) {
    RETURN_IF_ERROR(read([&](core::Block block) { return grace->AddBuild(std::move(block)); }));
    if (grace->spilled()) *prepared = grace;
    return grace->FinishBuild();
  }
  std::vector<core::Block> blocks;
  RETURN_IF_ERROR(read([&](core::Block block) {
    blocks.push_back(std::move(block));
    return absl::OkStatus();
  }));
  if (blocks.empty()) return shape;
  return core::ConcatBlocks(blocks);
}

absl::Status FragmentExecutor::Run(const core::plan::Fragment& fragment,
                                   const std::atomic<bool>& cancelled, const ChunkSink& sink) {
  if (fragment.shuffling() && !fragment.explain_only) return RunShuffled(fragment, cancelled, sink);
  core::FragmentPipeline::JoinInputs joins{SpillDir(), {}};
  const bool local = std::any_of(fragment.joins.begin(), fragment.joins.end(),
                                 [](const core::plan::BroadcastJoin& j) { return j.local_build; });
  if (!local) return RunResolved(fragment, cancelled, sink, std::move(joins));
  core::plan::Fragment resolved = fragment;
  joins.prepared.resize(resolved.joins.size());
  for (size_t j = 0; j < resolved.joins.size(); ++j) {
    core::plan::BroadcastJoin& join = resolved.joins[j];
    if (!join.local_build) continue;
    // EXPLAIN indexes = 1 reads nothing: an empty build has the columns the plan compiles with.
    if (fragment.explain_only) {
      join.build = EmptyBuild(*join.local_build);
    } else {
      // Read as it streams: a build over the join's budget spills before it is whole.
      const core::Block shape = EmptyBuild(*join.local_build);
      const auto read = [&](const BlockConsumer& add) {
        return ReadLocalBuild(fragment, *join.local_build, cancelled, sink, add);
      };
      ASSIGN_OR_RETURN(join.build, GatherBuild(fragment, join, shape, read, &joins.prepared[j]));
    }
    join.local_build.reset();
    join.shuffle = false;
  }
  return RunResolved(resolved, cancelled, sink, std::move(joins));
}

absl::Status FragmentExecutor::ReadLocalBuild(const core::plan::Fragment& fragment,
                                              const core::plan::Fragment& build,
                                              const std::atomic<bool>& cancelled,
                                              const ChunkSink& sink, const BlockConsumer& add) {
  core::plan::Fragment read = build;
  read.query_id = fragment.query_id;
  read.worker_index = fragment.worker_index;
  read.worker_count = fragment.worker_count;
  read.settings = fragment.settings;
  read.settings.network_compression_method = "none";  // decoded right here
  absl::Status added;
  const ChunkSink collect = [&](core::plan::ResultChunk&& chunk) {
    if (chunk.kind == core::plan::ResultChunk::Kind::kStats) return sink(std::move(chunk));
    absl::StatusOr<core::Block> block =
        core::DecodeWireBlock(chunk.block.data, chunk.block.raw_size);
    if (!block.ok()) {
      added = block.status();
      return false;
    }
    if (block->rows() > 0) added = add(*std::move(block));
    return added.ok();
  };
  absl::Status ran = RunResolved(read, cancelled, collect);
  RETURN_IF_ERROR(added);
  return ran;
}

}  // namespace granite::worker
