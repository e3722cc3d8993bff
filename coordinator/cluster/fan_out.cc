#include "coordinator/cluster/fan_out.h"

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <random>
#include <thread>

#include "core/block_codec.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/memory/transport_memory_scope.h"
#include "core/rpc_status.h"
#include "core/wire/plan_codec.h"
#include "core/status_macros.h"
#include "core/thread_priority.h"
#include "coordinator/cluster/reader_threads.h"

namespace granite::coordinator {

namespace pb = granite::worker::v1;

namespace {

absl::StatusOr<core::Block> DecodeBlockData(const pb::BlockData& data) {
  return core::DecodeWireBlock(data.data(), data.raw_size());
}

// The fragment as the workers receive it, encoded once per query: a broadcast build would
// otherwise be encoded (and LZ4-compressed) once per worker. Two forms at most: for workers on
// this host network_compression_method is 'none' unless the query set it (compression only
// costs CPU there), for the others as the query says. Only worker_index differs per shard.
class EncodedFragment {
 public:
  EncodedFragment(const WorkerSet& workers, core::plan::Fragment fragment) {
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
      fragment.settings.SetValue(&core::Settings::network_compression_method,
                                 std::string("none"));
      local_ = core::wire::EncodeFragment(fragment);
      local_differs_ = true;
    }
  }

  // Fills `request` with the fragment for shard `shard` run on the worker at `address`. The
  // shard is appended to the encoded bytes as a message holding only worker_index: parsing
  // concatenated messages merges them (a scalar field keeps its last value), so no per-shard
  // encoding is needed. The base encoding has worker_index 0, which proto3 leaves out.
  void Fill(size_t shard, const std::string& address, pb::FragmentRequest* request) const {
    std::string* bytes = request->mutable_fragment();
    *bytes = local_differs_ && OnLoopback(address) ? local_ : remote_;
    pb::Fragment index;
    index.set_worker_index(static_cast<uint32_t>(shard));
    index.AppendToString(bytes);
  }

 private:
  std::string remote_;
  std::string local_;
  bool local_differs_ = false;
};

// With replicas, where one shard's buckets stand: a retry on another replica skips the buckets
// already handed to the merger, and the chunks of the bucket being received are held until its
// last one, so the merger only ever sees whole buckets of one replica. Replicas hold the same
// rows, so bucket b of any of them carries the same groups.
struct ShardProgress {
  bool hold_buckets = false;  // false: hand every chunk to the merger at once (one replica)
  int64_t delivered = -1;     // highest bucket id handed over whole
  bool single_delivered = false;
  std::vector<std::pair<uint32_t, core::Block>> held;  // chunks of the bucket being received
};

// One fragment stream: the process it runs on, the shard it reads, and how it ended.
struct Attempt {
  size_t process = 0;
  size_t shard = 0;
  ReplicaMonitor* watch = nullptr;  // replicated reads: cancels the stream if the replica stalls
  std::atomic<bool> stalled{false};
  bool transport_failure = false;   // the call failed on the way, not on the worker
  BlockConsumer* consumer = nullptr;  // FanOutStreamed: takes the blocks
  bool consumed = false;              // the consumer took a block of this attempt
};

// Reads one worker's stream to the end.
absl::Status RunOnWorker(const WorkerSet& workers, Attempt* attempt,
                         const EncodedFragment& fragment, QueryContext* query,
                         BucketedMerger* merger, std::vector<core::Block>* blocks,
                         ShardProgress* progress) {
  const size_t index = attempt->shard;
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
  absl::Status status;
  bool enough = false;  // the merger holds enough groups (LIMIT): the rest of the stream is moot
  bool consumer_done = false;  // the block consumer wants no more rows
  while (read(reader, &chunk)) {
    if (chunk.has_block()) {
      absl::StatusOr<core::Block> block = DecodeBlockData(chunk.block());
      if (!block.ok()) {
        status = block.status();
        break;
      }
      if (attempt->consumer == nullptr) {
        blocks->push_back(std::move(*block));
        continue;
      }
      // Once the consumer has enough rows the rest is read and dropped: the worker stops on its
      // own LIMIT soon, and its statistics chunk still arrives (read_rows, JSON statistics).
      if (consumer_done) continue;
      attempt->consumed = true;
      absl::StatusOr<bool> more = attempt->consumer->Consume(index, *std::move(block));
      if (!more.ok()) {
        status = more.status();
        break;
      }
      consumer_done = !*more;
    } else if (chunk.has_bucket()) {
      absl::StatusOr<core::Block> block = DecodeBlockData(chunk.bucket().states());
      if (!block.ok()) {
        status = block.status();
        break;
      }
      if (!progress->hold_buckets) {
        if (chunk.bucket().single()) {
          merger->AddSingle(index, std::move(*block));
        } else {
          merger->Add(index, chunk.bucket().id(), std::move(*block), chunk.bucket().last());
        }
      } else if (chunk.bucket().single()) {
        if (!progress->single_delivered) merger->AddSingle(index, std::move(*block));
        progress->single_delivered = true;
      } else if (static_cast<int64_t>(chunk.bucket().id()) > progress->delivered) {
        progress->held.emplace_back(chunk.bucket().id(), std::move(*block));
        if (chunk.bucket().last()) {
          for (size_t k = 0; k < progress->held.size(); ++k) {
            merger->Add(index, progress->held[k].first, std::move(progress->held[k].second),
                        k + 1 == progress->held.size());
          }
          progress->delivered = chunk.bucket().id();
          progress->held.clear();
        }
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
      query->total_rows_to_read += chunk.stats().rows_to_read();
      query->NoteProgress();  // may send a progress message to the client
    }
  }
  grpc::Status finished;
  {
    core::ScopedNormalPriority grpc_call;
    core::TransportMemoryScope transport;
    if (!status.ok() || enough) context.TryCancel();
    finished = reader->Finish();
  }
  if (attempt->watch != nullptr) attempt->watch->Unwatch(&context);
  query->Unregister(&context);
  progress->held.clear();
  // Errors the worker sent carry their ClickHouse code in the details; anything else broke on
  // the way (connection refused or reset, deadline, our stall watch's cancel).
  attempt->transport_failure =
      attempt->stalled || (!finished.ok() && finished.error_details().empty() &&
                           finished.error_code() != grpc::StatusCode::CANCELLED);
  if (attempt->stalled) {
    return core::Error(core::ErrorCode::kAllConnectionTriesFailed,
                       "worker " + workers.address(attempt->process) +
                           " stopped answering health checks mid-query");
  }
  if (!status.ok()) return status;
  if (query->cancelled()) {
    return core::Error(core::ErrorCode::kQueryWasCancelled, "Query was cancelled");
  }
  if (enough) return absl::OkStatus();  // cancelled by us (its statistics chunk is lost)
  absl::Status failed = core::FromGrpcStatus(finished, workers.address(attempt->process));
  if (!finished.error_details().empty() && !failed.ok() &&
      core::CodeOf(failed) != core::ErrorCode::kQueryWasCancelled) {
    // A worker's own error names the worker, as ClickHouse names the shard that failed:
    // "Received from host:port. DB::Exception: ...".
    return core::Error(core::CodeOf(failed), "Received from " +
                                                 workers.address(attempt->process) +
                                                 ". DB::Exception: " +
                                                 std::string(failed.message()));
  }
  return failed;
}

// Runs a shard's fragment on its replicas in turn until one succeeds. Only a failure on the way
// (the replica died, stalled or refused) moves on; an error the worker reports (a bad query,
// a limit) would be the same on every replica and ends the query.
absl::Status RunOnShard(const WorkerSet& workers, size_t shard, const EncodedFragment& fragment,
                        LoadBalancing balancing, uint64_t max_delay, QueryContext* query, BucketedMerger* merger,
                        std::vector<core::Block>* blocks, BlockConsumer* consumer) {
  ReplicaMonitor* monitor = workers.monitor();
  std::vector<size_t> order = monitor->ReadOrder(shard, balancing, max_delay);
  ShardProgress progress;
  progress.hold_buckets = true;
  std::string errors;
  for (size_t process : order) {
    Attempt attempt;
    attempt.process = process;
    attempt.shard = shard;
    attempt.watch = monitor;
    attempt.consumer = consumer;
    blocks->clear();
    absl::Status status =
        RunOnWorker(workers, &attempt, fragment, query, merger, blocks, &progress);
    if (status.ok() || !attempt.transport_failure || query->cancelled() || attempt.consumed) {
      return status;
    }
    monitor->RecordError(process, std::string(status.message()));
    errors += (errors.empty() ? "" : "; ") + std::string("replica ") +
              std::to_string(workers.ReplicaOf(process)) + " (" + workers.address(process) +
              "): " + std::string(status.message());
  }
  blocks->clear();
  return core::Error(core::ErrorCode::kAllConnectionTriesFailed,
                     "All connection tries failed for shard " + std::to_string(shard) + ": " +
                         errors);
}

// A fresh exchange id: unique among the queries a worker runs at once, never 0.
uint64_t ExchangeId() {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t base = std::random_device()() * uint64_t{0x9E3779B97F4A7C15};
  const uint64_t id = core::HashInt(base + counter.fetch_add(1));
  return id == 0 ? 1 : id;
}

}  // namespace

namespace {

// Runs `fragment` on every shard; blocks go to `consumer` if set, else into `blocks`.
absl::Status RunOnShards(const WorkerSet& workers, const core::plan::Fragment& planned,
                         QueryContext* query, BucketedMerger* merger,
                         std::vector<std::vector<core::Block>>* blocks, BlockConsumer* consumer) {
  const LoadBalancing balancing = ParseLoadBalancing(planned.settings.load_balancing);
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
        const std::vector<size_t> order = workers.monitor()->ReadOrder(
            i, balancing, planned.settings.max_replica_delay_for_distributed_queries);
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
  auto run = [&](size_t i) {
    if (!exchange_process.empty()) {
      Attempt attempt;
      attempt.process = exchange_process[i];
      attempt.shard = i;
      attempt.consumer = consumer;
      ShardProgress progress;
      statuses[i] = RunOnWorker(workers, &attempt, encoded, query, merger, &(*blocks)[i],
                                &progress);
    } else if (workers.replica_count() > 1) {
      statuses[i] =
          RunOnShard(workers, i, encoded, balancing,
                     fragment.settings.max_replica_delay_for_distributed_queries, query, merger,
                     &(*blocks)[i], consumer);
    } else {
      Attempt attempt;
      attempt.process = attempt.shard = i;
      attempt.consumer = consumer;
      ShardProgress progress;
      statuses[i] = RunOnWorker(workers, &attempt, encoded, query, merger, &(*blocks)[i],
                                &progress);
    }
    // One failure stops every other worker at once.
    if (!statuses[i].ok()) query->Cancel();
    if (consumer != nullptr) consumer->ShardDone(i);
  };
  // Shards the planner left out (Fragment::shards: the filter fixes the sharding key) count as
  // finished with nothing.
  std::vector<size_t> targets;
  for (size_t i = 0, next = 0; i < n; ++i) {
    const std::vector<uint32_t>& only = fragment.shards;
    if (only.empty() || (next < only.size() && only[next] == i)) {
      targets.push_back(i);
      if (!only.empty()) ++next;
      continue;
    }
    if (merger != nullptr) merger->SkipWorker(i);
    if (consumer != nullptr) consumer->ShardDone(i);
  }
  // The calling thread reads the last worker's stream itself and parked reader threads the
  // others: a thread per query costs a stack mapping, page faults and, at exit, TLB-shootdown
  // IPIs — ~10% of the coordinator's CPU at ~1000 small SELECTs/s
  // (bench/results/parts-2026-11-22.md) — and a 1-worker cluster needs none.
  ReaderThreads::Global().RunAll(targets.size(), [&](size_t j) { run(targets[j]); });
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
