#include "coordinator/fan_out.h"

#include <grpcpp/grpcpp.h>

#include <thread>

#include "core/block_codec.h"
#include "core/error.h"
#include "core/rpc_status.h"
#include "core/status_macros.h"

namespace granite::coordinator {

namespace pb = granite::worker::v1;

namespace {

absl::StatusOr<core::Block> DecodeBlockData(const pb::BlockData& data) {
  ASSIGN_OR_RETURN(std::string raw, core::DecompressLz4(data.data(), data.raw_size()));
  return core::DecodeBlock(raw);
}

// Reads one worker's stream to the end.
absl::Status RunOnWorker(const WorkerSet& workers, size_t index, pb::Fragment fragment,
                         QueryContext* query, BucketedMerger* merger,
                         std::vector<core::Block>* blocks) {
  fragment.set_worker_index(index);
  fragment.set_worker_count(workers.size());
  grpc::ClientContext context;
  if (!query->Register(&context)) {
    return core::Error(core::ErrorCode::kQueryWasCancelled, "Query was cancelled");
  }
  auto reader = workers.stub(index)->Execute(&context, fragment);
  pb::FragmentChunk chunk;
  absl::Status status;
  while (reader->Read(&chunk)) {
    if (chunk.has_block()) {
      absl::StatusOr<core::Block> block = DecodeBlockData(chunk.block());
      if (!block.ok()) {
        status = block.status();
        break;
      }
      blocks->push_back(std::move(*block));
    } else if (chunk.has_bucket()) {
      absl::StatusOr<core::Block> block = DecodeBlockData(chunk.bucket().states());
      if (!block.ok()) {
        status = block.status();
        break;
      }
      merger->Add(index, chunk.bucket().id(), std::move(*block));
    } else if (chunk.has_stats()) {
      query->read_rows += chunk.stats().read_rows();
      query->read_bytes += chunk.stats().read_bytes();
      query->RecordWorkerElapsed(index, chunk.stats().elapsed_us());
    }
  }
  if (!status.ok()) context.TryCancel();
  grpc::Status finished = reader->Finish();
  query->Unregister(&context);
  if (!status.ok()) return status;
  if (query->cancelled()) {
    return core::Error(core::ErrorCode::kQueryWasCancelled, "Query was cancelled");
  }
  return core::FromGrpcStatus(finished, workers.address(index));
}

}  // namespace

absl::StatusOr<std::vector<std::vector<core::Block>>> FanOut(const WorkerSet& workers,
                                                              const pb::Fragment& fragment,
                                                              QueryContext* query,
                                                              BucketedMerger* merger) {
  size_t n = workers.size();
  std::vector<std::vector<core::Block>> blocks(n);
  std::vector<absl::Status> statuses(n);
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      statuses[i] = RunOnWorker(workers, i, fragment, query, merger, &blocks[i]);
      // One failure stops every other worker at once.
      if (!statuses[i].ok()) query->Cancel();
    });
  }
  for (auto& thread : threads) thread.join();
  // Report the root cause, not the cancellations it caused.
  for (const absl::Status& status : statuses) {
    if (!status.ok() && core::CodeOf(status) != core::ErrorCode::kQueryWasCancelled) return status;
  }
  for (const absl::Status& status : statuses) RETURN_IF_ERROR(status);
  return blocks;
}

}  // namespace granite::coordinator
