#include "coordinator/cluster/fragment_attempt.h"

#include "core/block_codec.h"
#include "core/error.h"
#include "core/rpc_status.h"
#include "core/wire/plan_codec.h"

namespace granite::coordinator {

namespace pb = granite::worker::v1;

namespace {

absl::StatusOr<core::Block> DecodeBlockData(const pb::BlockData& data) {
  return core::DecodeWireBlock(data.data(), data.raw_size());
}

}  // namespace

EncodedFragment::EncodedFragment(const WorkerSet& workers, core::plan::Fragment fragment) {
  fragment.worker_index = 0;  // Fill appends each shard's
  fragment.worker_count = workers.shard_count();
  const bool compression_set =
      fragment.settings.IsChanged(&core::Settings::network_compression_method);
  bool any_local = false, any_remote = false;
  for (size_t i = 0; i < workers.size(); ++i) {
    (OnLoopback(workers.address(i)) ? any_local : any_remote) = true;
  }
  if (any_remote || compression_set) remote_ = core::wire::EncodeFragment(fragment);
  if (any_local && !compression_set) {
    fragment.settings.SetValue(&core::Settings::network_compression_method, std::string("none"));
    local_ = core::wire::EncodeFragment(fragment);
    local_differs_ = true;
  }
}

void EncodedFragment::Fill(size_t shard, const std::string& address,
                           pb::FragmentRequest* request) const {
  std::string* bytes = request->mutable_fragment();
  *bytes = local_differs_ && OnLoopback(address) ? local_ : remote_;
  pb::Fragment index;
  index.set_worker_index(static_cast<uint32_t>(shard));
  index.AppendToString(bytes);
}

bool DeliverPending(size_t shard, ShardProgress* progress, BucketedMerger* merger,
                    bool may_wait) {
  std::vector<std::tuple<uint32_t, core::Block, bool>>& pending = progress->pending;
  for (; progress->next_pending < pending.size(); ++progress->next_pending) {
    auto& [bucket, block, last] = pending[progress->next_pending];
    if (may_wait) {
      merger->Add(shard, bucket, std::move(block), last);
    } else if (!merger->TryAdd(shard, bucket, &block, last)) {
      return false;
    }
  }
  pending.clear();
  progress->next_pending = 0;
  return true;
}

ChunkStep HandleChunk(pb::FragmentChunk& chunk, Attempt* attempt, QueryContext* query,
                      BucketedMerger* merger, std::vector<core::Block>* blocks,
                      ShardProgress* progress, bool may_wait) {
  const size_t index = attempt->shard;
  if (chunk.has_block()) {
    // Once the consumer has enough rows the rest is read and dropped: the worker stops on its
    // own LIMIT soon, and its statistics chunk still arrives (read_rows, JSON statistics).
    if (attempt->consumer != nullptr && attempt->consumer_done) return ChunkStep::kNext;
    absl::StatusOr<core::Block> block = DecodeBlockData(chunk.block());
    if (!block.ok()) {
      attempt->status = block.status();
      return ChunkStep::kStop;
    }
    if (attempt->consumer == nullptr) {
      blocks->push_back(std::move(*block));
      return ChunkStep::kNext;
    }
    attempt->consumed = true;
    absl::StatusOr<bool> more = attempt->consumer->Consume(index, *std::move(block));
    if (!more.ok()) {
      attempt->status = more.status();
      return ChunkStep::kStop;
    }
    attempt->consumer_done = !*more;
    return ChunkStep::kNext;
  }
  if (chunk.has_bucket()) {
    // Buckets go to the merger in order: one the window held back goes first.
    if (!progress->pending.empty() && !DeliverPending(index, progress, merger, may_wait)) {
      return ChunkStep::kWait;
    }
    const pb::Bucket& bucket = chunk.bucket();
    absl::StatusOr<core::Block> block = DecodeBlockData(bucket.states());
    if (!block.ok()) {
      attempt->status = block.status();
      return ChunkStep::kStop;
    }
    if (bucket.single()) {
      if (!progress->hold_buckets || !progress->single_delivered) {
        merger->AddSingle(index, std::move(*block));
      }
      progress->single_delivered = true;
    } else if (!progress->hold_buckets) {
      progress->pending.emplace_back(bucket.id(), std::move(*block), bucket.last());
    } else if (static_cast<int64_t>(bucket.id()) > progress->delivered) {
      progress->held.emplace_back(bucket.id(), std::move(*block));
      if (bucket.last()) {
        for (size_t k = 0; k < progress->held.size(); ++k) {
          progress->pending.emplace_back(progress->held[k].first,
                                         std::move(progress->held[k].second),
                                         k + 1 == progress->held.size());
        }
        progress->delivered = bucket.id();
        progress->held.clear();
      }
    }
    // What the window does not take now is offered with the next chunk (or by the reader
    // while this stream waits).
    if (!progress->pending.empty()) (void)DeliverPending(index, progress, merger, may_wait);
    if (merger->enough()) {
      attempt->enough = true;
      return ChunkStep::kStop;
    }
    return ChunkStep::kNext;
  }
  if (chunk.has_stats()) {
    const pb::FragmentStats& stats = chunk.stats();
    query->read_rows += stats.read_rows();
    query->read_bytes += stats.read_bytes();
    query->parts_total += stats.parts_total();
    query->parts_selected += stats.parts_selected();
    query->granules_total += stats.granules_total();
    query->granules_selected += stats.granules_selected();
    query->RecordWorkerElapsed(index, stats.elapsed_us());
    query->total_rows_to_read += stats.rows_to_read();
    query->NoteProgress();  // may send a progress message to the client
  }
  return ChunkStep::kNext;
}

absl::Status AttemptStatus(const WorkerSet& workers, Attempt* attempt,
                           const grpc::Status& finished, QueryContext* query) {
  // Errors the worker sent carry their ClickHouse code in the details; anything else broke on
  // the way (connection refused or reset, deadline, our stall watch's cancel).
  attempt->transport_failure =
      attempt->stalled || (!finished.ok() && finished.error_details().empty() &&
                           finished.error_code() != grpc::StatusCode::CANCELLED);
  const std::string& address = workers.address(attempt->process);
  if (attempt->stalled) {
    return core::Error(core::ErrorCode::kAllConnectionTriesFailed,
                       "worker " + address + " stopped answering health checks mid-query");
  }
  if (!attempt->status.ok()) return attempt->status;
  if (query->cancelled()) {
    return core::Error(core::ErrorCode::kQueryWasCancelled, "Query was cancelled");
  }
  if (attempt->enough) return absl::OkStatus();  // cancelled by us (its statistics chunk is lost)
  absl::Status failed = core::FromGrpcStatus(finished, address);
  if (!finished.error_details().empty() && !failed.ok() &&
      core::CodeOf(failed) != core::ErrorCode::kQueryWasCancelled) {
    // A worker's own error names the worker, as ClickHouse names the shard that failed:
    // "Received from host:port. DB::Exception: ...".
    return core::Error(core::CodeOf(failed), "Received from " + address +
                                                 ". DB::Exception: " +
                                                 std::string(failed.message()));
  }
  return failed;
}

absl::Status AllReplicasFailed(size_t shard, const std::string& errors) {
  return core::Error(core::ErrorCode::kAllConnectionTriesFailed,
                     "All connection tries failed for shard " + std::to_string(shard) + ": " +
                         errors);
}

void NoteReplicaError(const WorkerSet& workers, size_t process, const absl::Status& status,
                      std::string* errors) {
  *errors += (errors->empty() ? "" : "; ") + std::string("replica ") +
             std::to_string(workers.ReplicaOf(process)) + " (" + workers.address(process) +
             "): " + std::string(status.message());
}

}  // namespace granite::coordinator
