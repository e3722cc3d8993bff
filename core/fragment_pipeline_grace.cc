// FragmentPipeline's spilled joins after the scan: each join whose build spilled (GraceHashJoin)
// joins its buckets 1 .. N - 1 one at a time — the bucket's build rows hashed, its probe rows
// read back and joined, the rows going on through the later joins (which may spill their own
// probe rows, joined when their turn comes), the join filter and the aggregation or projection.
// Joins are taken in order, so a later join's buckets hold every row the earlier ones make.
#include "core/error.h"
#include "core/fragment_pipeline.h"
#include "core/status_macros.h"

namespace granite::core {

bool FragmentPipeline::spilled() const {
  for (const CompiledJoin& join : joins_) {
    if (join.grace) return true;
  }
  return false;
}

absl::Status FragmentPipeline::ConsumeSpilled(
    LocalState& state, const Block* unmatched_shape, const std::atomic<bool>& cancelled,
    const std::function<absl::Status(LocalState&)>& drain) const {
  for (size_t j = 0; j < joins_.size(); ++j) {
    const CompiledJoin& join = joins_[j];
    if (!join.grace) continue;
    GraceHashJoin& grace = *join.grace;
    // RIGHT / FULL probes record matches (JoinTable::Probe requires it) whoever emits them.
    const bool tracks =
        join.kind == JoinTable::Kind::kRight || join.kind == JoinTable::Kind::kFull;
    const bool unmatched = tracks && j == 0 && unmatched_shape != nullptr;
    // buckets() grows when a bucket splits; its new buckets come later in this loop.
    for (size_t b = 1; b < grace.buckets(); ++b) {
      if (cancelled.load(std::memory_order_relaxed)) {
        return Error(ErrorCode::kQueryWasCancelled, "Query was cancelled during a grace hash join");
      }
      if (Satisfied(state)) return absl::OkStatus();  // a LIMIT without ORDER BY has its rows
      if (grace.BucketEmpty(b)) continue;
      ASSIGN_OR_RETURN(Block build, grace.LoadBuildBucket(b));
      ASSIGN_OR_RETURN(JoinTable table, JoinTable::Build(std::move(build), join.build_keys,
                                                         join.probe_types, tracks));
      while (true) {
        if (cancelled.load(std::memory_order_relaxed)) {
          return Error(ErrorCode::kQueryWasCancelled,
                       "Query was cancelled during a grace hash join");
        }
        ASSIGN_OR_RETURN(std::optional<Block> probe, grace.NextProbe(b));
        if (!probe) break;
        ASSIGN_OR_RETURN(std::vector<ColumnPtr> keys, ProbeKeys(*probe, j));
        std::vector<const Column*> key_columns;
        for (const ColumnPtr& key : keys) key_columns.push_back(key.get());
        RETURN_IF_ERROR(ProbeInto(state, *probe, key_columns, j, table));
      }
      if (unmatched) RETURN_IF_ERROR(AddUnmatched(state, *unmatched_shape, table));
      grace.DropBucket(b);
      if (drain) RETURN_IF_ERROR(drain(state));
    }
  }
  return absl::OkStatus();
}

}  // namespace granite::core
