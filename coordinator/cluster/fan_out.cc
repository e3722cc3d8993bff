#include "coordinator/cluster/fan_out.h"

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <random>

#include "core/error.h"
#include "core/hash.h"
#include "core/memory/transport_memory_scope.h"
#include "core/status_macros.h"
#include "core/thread_priority.h"
#include "coordinator/cluster/fragment_attempt.h"
#include "coordinator/cluster/reader_threads.h"
#include "coordinator/cluster/stream_set.h"

namespace granite::coordinator {

namespace pb = granite::worker::v1;

namespace {

// Reads one worker's stream to the end on this thread (the reader-thread path).
absl::Status RunOnWorker(const WorkerSet& workers, Attempt* attempt,
                         const EncodedFragment& fragment, QueryContext* query,
                         BucketedMerger* merger, std::vector<core::Block>* blocks,
                         ShardProgress* progress) {
  grpc::ClientContext context;
  if (!query->Register(&context)) {
    return core::Error(core::ErrorCode::kQueryWasCancelled, "Query was cancelled");
  }
  // gRPC calls at the normal priority of the process, decoding and merging at the query's
  // (core::ScopedNormalPriority).
  auto read = [](auto& reader, pb::FragmentChunk* chunk) {
    core::ScopedNormalPriority grpc_call;
    core::TransportMemoryScope transport;  // gRPC's read buffers are not the query's
    return reader->Read(chunk);
  };
  // Sent serialized: the worker parses it with a nesting limit for deep expressions
  // (core/wire/plan_codec.h).
  pb::FragmentRequest request;
  fragment.Fill(attempt->shard, workers.address(attempt->process), &request);
  std::unique_ptr<grpc::ClientReader<pb::FragmentChunk>> reader;
  {
    core::ScopedNormalPriority grpc_call;
    core::TransportMemoryScope transport;  // the serialized fragment (broadcast builds too)
    reader = workers.fragment_stub(attempt->process)->Execute(&context, request);
  }
  if (attempt->watch != nullptr) attempt->watch->Watch(attempt->process, &context, &attempt->stalled);
  pb::FragmentChunk chunk;
  while (read(reader, &chunk)) {
    if (HandleChunk(chunk, attempt, query, merger, blocks, progress, /*may_wait=*/true) ==
        ChunkStep::kStop) {
      break;
    }
  }
  grpc::Status finished;
  {
    core::ScopedNormalPriority grpc_call;
    core::TransportMemoryScope transport;
    if (!attempt->status.ok() || attempt->enough) context.TryCancel();
    finished = reader->Finish();
  }
  if (attempt->watch != nullptr) attempt->watch->Unwatch(&context);
  query->Unregister(&context);
  progress->held.clear();
  return AttemptStatus(workers, attempt, finished, query);
}

// Runs a shard's fragment on its processes in turn until one succeeds (the reader-thread
// path). Only a failure on the way (the replica died, stalled or refused) moves on; an error the
// worker reports (a bad query, a limit) would be the same on every replica and ends the query.
absl::Status RunOnShard(const WorkerSet& workers, const ShardRead& read,
                        const EncodedFragment& fragment, QueryContext* query,
                        BucketedMerger* merger, std::vector<core::Block>* blocks,
                        BlockConsumer* consumer) {
  ShardProgress progress;
  progress.hold_buckets = read.replicated;
  std::string errors;
  for (size_t process : read.processes) {
    Attempt attempt;
    attempt.process = process;
    attempt.shard = read.shard;
    if (read.replicated) attempt.watch = workers.monitor();
    attempt.consumer = consumer;
    blocks->clear();
    absl::Status status =
        RunOnWorker(workers, &attempt, fragment, query, merger, blocks, &progress);
    if (!read.replicated || status.ok() || !attempt.transport_failure || query->cancelled() ||
        attempt.consumed) {
      return status;
    }
    workers.monitor()->RecordError(process, std::string(status.message()));
    NoteReplicaError(workers, process, status, &errors);
  }
  blocks->clear();
  return AllReplicasFailed(read.shard, errors);
}

// A fresh exchange id: unique among the queries a worker runs at once, never 0.
uint64_t ExchangeId() {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t base = std::random_device()() * uint64_t{0x9E3779B97F4A7C15};
  const uint64_t id = core::HashInt(base + counter.fetch_add(1));
  return id == 0 ? 1 : id;
}

// Runs `fragment` on every shard; blocks go to `consumer` if set, else into `blocks`.
absl::Status RunOnShards(const WorkerSet& workers, const core::plan::Fragment& planned,
                         QueryContext* query, BucketedMerger* merger,
                         std::vector<std::vector<core::Block>>* blocks, BlockConsumer* consumer) {
  const LoadBalancing balancing = ParseLoadBalancing(planned.settings.load_balancing);
  const uint64_t max_delay = planned.settings.max_replica_delay_for_distributed_queries;
  size_t n = workers.shard_count();
  // A shuffle join's workers send rows to each other (worker/exchange.h): every shard takes
  // part, on one replica chosen now, whose addresses travel in the fragment. A replica that fails
  // mid-query fails the query (its peers' rows cannot be sent again).
  std::vector<size_t> exchange_process;
  core::plan::Fragment shuffled;
  if (planned.shuffling()) {
    shuffled = planned;
    shuffled.shards.clear();
    shuffled.exchange_id = ExchangeId();
    for (size_t i = 0; i < n; ++i) {
      size_t process = i * workers.replica_count();
      if (workers.replica_count() > 1) {
        const std::vector<size_t> order = workers.monitor()->ReadOrder(i, balancing, max_delay);
        if (!order.empty()) process = order[0];
      }
      exchange_process.push_back(process);
      shuffled.exchange_peers.push_back(workers.address(process));
    }
  }
  const core::plan::Fragment& fragment = planned.shuffling() ? shuffled : planned;
  const EncodedFragment encoded(workers, fragment);
  blocks->assign(n, {});
  std::vector<absl::Status> statuses(n);
  // Shards the planner left out (Fragment::shards: the filter fixes the sharding key) count as
  // finished with nothing.
  std::vector<ShardRead> reads;
  for (size_t i = 0, next = 0; i < n; ++i) {
    const std::vector<uint32_t>& only = fragment.shards;
    if (only.empty() || (next < only.size() && only[next] == i)) {
      if (!only.empty()) ++next;
      ShardRead read;
      read.shard = i;
      if (!exchange_process.empty()) {
        read.processes = {exchange_process[i]};
      } else if (workers.replica_count() > 1) {
        read.processes = workers.monitor()->ReadOrder(i, balancing, max_delay);
        read.replicated = true;
      } else {
        read.processes = {i};
      }
      reads.push_back(std::move(read));
      continue;
    }
    if (merger != nullptr) merger->SkipWorker(i);
    if (consumer != nullptr) consumer->ShardDone(i);
  }
  if (consumer == nullptr || !consumer->WaitsForOtherShards()) {
    ReadStreams(workers, reads, encoded, query, merger, blocks, consumer, &statuses);
  } else {
    // A consumer that waits for other shards needs their streams read meanwhile: one thread
    // per stream, the calling thread reading the last.
    ReaderThreads::Global().RunAll(reads.size(), [&](size_t j) {
      const size_t i = reads[j].shard;
      statuses[i] = RunOnShard(workers, reads[j], encoded, query, merger, &(*blocks)[i], consumer);
      // One failure stops every other worker at once.
      if (!statuses[i].ok()) query->Cancel();
      consumer->ShardDone(i);
    });
  }
  // Report the root cause, not the cancellations it caused.
  for (const absl::Status& status : statuses) {
    if (!status.ok() && core::CodeOf(status) != core::ErrorCode::kQueryWasCancelled) return status;
  }
  for (const absl::Status& status : statuses) RETURN_IF_ERROR(status);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::vector<core::Block>>> FanOut(const WorkerSet& workers,
                                                              const core::plan::Fragment& fragment,
                                                              QueryContext* query,
                                                              BucketedMerger* merger) {
  std::vector<std::vector<core::Block>> blocks;
  RETURN_IF_ERROR(RunOnShards(workers, fragment, query, merger, &blocks, nullptr));
  return blocks;
}

absl::Status FanOutStreamed(const WorkerSet& workers, const core::plan::Fragment& fragment,
                            QueryContext* query, BlockConsumer* consumer) {
  std::vector<std::vector<core::Block>> unused;
  return RunOnShards(workers, fragment, query, nullptr, &unused, consumer);
}

}  // namespace granite::coordinator
