#include "coordinator/cluster/fan_out.h"

#include <grpcpp/grpcpp.h>

#include <thread>

#include "core/block_codec.h"
#include "core/error.h"
#include "core/rpc_status.h"
#include "core/settings/fragment_settings.h"
#include "core/status_macros.h"
#include "core/thread_priority.h"
#include "coordinator/cluster/reader_threads.h"

namespace granite::coordinator {

namespace pb = granite::worker::v1;

namespace {

absl::StatusOr<core::Block> DecodeBlockData(const pb::BlockData& data) {
  return core::DecodeWireBlock(data.data(), data.raw_size());
}

// True for a worker on this host (loopback or a Unix socket): compression only costs CPU there.
bool OnLoopback(const std::string& address) {
  return address.rfind("127.", 0) == 0 || address.rfind("localhost:", 0) == 0 ||
         address.rfind("[::1]:", 0) == 0 || address.rfind("unix:", 0) == 0;
}

// Reads one worker's stream to the end.
absl::Status RunOnWorker(const WorkerSet& workers, size_t index, pb::Fragment fragment,
                         bool compression_set, QueryContext* query, BucketedMerger* merger,
                         std::vector<core::Block>* blocks) {
  fragment.set_worker_index(index);
  fragment.set_worker_count(workers.size());
  // network_compression_method: 'lz4' by default, 'none' for a worker on this host unless the
  // query set it.
  if (OnLoopback(workers.address(index)) && !compression_set) {
    core::Settings settings;
    settings.SetValue(&core::Settings::network_compression_method, std::string("none"));
    for (const auto& [name, value] : settings.Changes()) (*fragment.mutable_settings())[name] = value;
  }
  grpc::ClientContext context;
  if (!query->Register(&context)) {
    return core::Error(core::ErrorCode::kQueryWasCancelled, "Query was cancelled");
  }
  // gRPC calls at the normal priority of the process, decoding and merging at the query's
  // (core::ScopedNormalPriority).
  auto read = [](auto& reader, pb::FragmentChunk* chunk) {
    core::ScopedNormalPriority grpc_call;
    return reader->Read(chunk);
  };
  // Sent serialized: the worker parses it with a nesting limit for deep expressions
  // (core/plan_parse.h).
  pb::FragmentRequest request;
  fragment.SerializeToString(request.mutable_fragment());
  std::unique_ptr<grpc::ClientReader<pb::FragmentChunk>> reader;
  {
    core::ScopedNormalPriority grpc_call;
    reader = workers.fragment_stub(index)->Execute(&context, request);
  }
  pb::FragmentChunk chunk;
  absl::Status status;
  bool enough = false;  // the merger holds enough groups (LIMIT): the rest of the stream is moot
  while (read(reader, &chunk)) {
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
      if (chunk.bucket().single()) {
        merger->AddSingle(index, std::move(*block));
      } else {
        merger->Add(index, chunk.bucket().id(), std::move(*block), chunk.bucket().last());
      }
      if (merger->enough()) {
        enough = true;
        break;
      }
    } else if (chunk.has_stats()) {
      query->read_rows += chunk.stats().read_rows();
      query->read_bytes += chunk.stats().read_bytes();
      query->parts_total += chunk.stats().parts_total();
      query->parts_selected += chunk.stats().parts_selected();
      query->granules_total += chunk.stats().granules_total();
      query->granules_selected += chunk.stats().granules_selected();
      query->RecordWorkerElapsed(index, chunk.stats().elapsed_us());
    }
  }
  grpc::Status finished;
  {
    core::ScopedNormalPriority grpc_call;
    if (!status.ok() || enough) context.TryCancel();
    finished = reader->Finish();
  }
  query->Unregister(&context);
  if (!status.ok()) return status;
  if (query->cancelled()) {
    return core::Error(core::ErrorCode::kQueryWasCancelled, "Query was cancelled");
  }
  if (enough) return absl::OkStatus();  // cancelled by us (its statistics chunk is lost)
  return core::FromGrpcStatus(finished, workers.address(index));
}

}  // namespace

absl::StatusOr<std::vector<std::vector<core::Block>>> FanOut(const WorkerSet& workers,
                                                              const pb::Fragment& fragment,
                                                              QueryContext* query,
                                                              BucketedMerger* merger) {
  ASSIGN_OR_RETURN(core::Settings settings, core::SettingsOf(fragment));
  bool compression_set = settings.IsChanged(&core::Settings::network_compression_method);
  size_t n = workers.size();
  std::vector<std::vector<core::Block>> blocks(n);
  std::vector<absl::Status> statuses(n);
  auto run = [&](size_t i) {
    statuses[i] = RunOnWorker(workers, i, fragment, compression_set, query, merger, &blocks[i]);
    // One failure stops every other worker at once.
    if (!statuses[i].ok()) query->Cancel();
  };
  // The calling thread reads the last worker's stream itself and parked reader threads the
  // others: a thread per query costs a stack mapping, page faults and, at exit, TLB-shootdown
  // IPIs — ~10% of the coordinator's CPU at ~1000 small SELECTs/s
  // (bench/results/parts-2026-11-22.md) — and a 1-worker cluster needs none.
  ReaderThreads::Global().RunAll(n, run);
  // Report the root cause, not the cancellations it caused.
  for (const absl::Status& status : statuses) {
    if (!status.ok() && core::CodeOf(status) != core::ErrorCode::kQueryWasCancelled) return status;
  }
  for (const absl::Status& status : statuses) RETURN_IF_ERROR(status);
  return blocks;
}

}  // namespace granite::coordinator
