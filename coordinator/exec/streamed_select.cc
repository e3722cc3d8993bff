#include "coordinator/exec/streamed_select.h"

#include <chrono>

#include "coordinator/exec/final_stage.h"
#include "core/status_macros.h"

namespace granite::coordinator {

bool CanStream(const QueryPlan& plan) {
  return plan.source == SourceKind::kWorkers && !plan.fragment.aggregate && plan.order.empty() &&
         !plan.has_having && !plan.fragment.explain_only;
}

bool CanStreamGroups(const QueryPlan& plan) {
  if (plan.source != SourceKind::kWorkers || !plan.fragment.aggregate ||
      plan.fragment.explain_only || !plan.order.empty()) {
    return false;
  }
  const core::plan::Aggregate& aggregate = *plan.fragment.aggregate;
  if (aggregate.finalize_on_worker) return true;
  return !aggregate.keys.empty() && aggregate.hash_limit == 0 && plan.merge_group_limit == 0 &&
         !plan.piece_cut && !plan.late_finalization;
}

StreamedFinalStage::StreamedFinalStage(const QueryPlan& plan, QueryContext* query,
                                       ResultSink* sink, size_t shards)
    : plan_(plan), query_(query), sink_(sink), ordered_(plan.ordered_source && shards > 1) {
  core::MutexLock lock(mu_);
  shard_done_.assign(shards, false);
  offset_left_ = plan.offset;
  enough_ = plan.has_limit && plan.limit == 0;
}

bool StreamedFinalStage::WaitForTurn(size_t shard) {
  // Bounded waits: a cancelled query (a failed shard cancels it) wakes every waiter.
  while (turn_ != shard && !enough_ && !query_->cancelled()) {
    turn_changed_.wait_for(mu_, std::chrono::milliseconds(50));
  }
  return turn_ == shard && !enough_ && !query_->cancelled();
}

absl::StatusOr<bool> StreamedFinalStage::Consume(size_t shard, core::Block block) {
  // Output expressions run outside the lock, on each reader thread.
  ASSIGN_OR_RETURN(core::Block computed, ComputeFinalColumns(plan_, block));
  block = core::Block();
  computed.columns.resize(plan_.visible);
  core::MutexLock lock(mu_);
  if (enough_) return false;
  if (ordered_ && !WaitForTurn(shard)) return false;
  size_t from = 0;
  size_t count = computed.rows();
  if (offset_left_ > 0) {
    const uint64_t skip = std::min<uint64_t>(offset_left_, count);
    offset_left_ -= skip;
    from = skip;
    count -= skip;
  }
  if (plan_.has_limit) count = std::min<uint64_t>(count, plan_.limit - rows_);
  if (count == 0) return true;
  if (from > 0 || count < computed.rows()) computed = core::SliceRows(computed, from, count);
  rows_ += count;
  if (plan_.has_limit && rows_ >= plan_.limit) enough_ = true;
  ASSIGN_OR_RETURN(bool more, sink_->Push(computed));
  if (!more) enough_ = true;
  if (enough_) turn_changed_.notify_all();
  return !enough_;
}

void StreamedFinalStage::ShardDone(size_t shard) {
  core::MutexLock lock(mu_);
  shard_done_[shard] = true;
  while (turn_ < shard_done_.size() && shard_done_[turn_]) ++turn_;
  turn_changed_.notify_all();
}

uint64_t StreamedFinalStage::rows() const {
  core::MutexLock lock(mu_);
  return rows_;
}

}  // namespace granite::coordinator
