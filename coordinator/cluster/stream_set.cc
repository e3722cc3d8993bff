#include "coordinator/cluster/stream_set.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "core/error.h"
#include "core/memory/memory_tracker.h"
#include "core/memory/transport_memory_scope.h"
#include "core/thread_priority.h"

namespace granite::coordinator {

namespace pb = granite::worker::v1;

namespace {

// What a completion-queue tag stands for: the low bits of the stream's address.
enum Op : uintptr_t { kStart = 0, kRead = 1, kFinish = 2, kOpMask = 3 };

// One call: an attempt of a shard on one process.
struct Stream {
  size_t slot = 0;  // the shard's index in StreamLoop::shards_
  Attempt attempt;
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientAsyncReader<pb::FragmentChunk>> reader;
  pb::FragmentChunk chunk;
  grpc::Status finished;
  int outstanding = 0;    // operations started whose tags have not come back
  bool waiting = false;   // `chunk` is offered again later (the merger's window)
  bool draining = false;  // cancelled by us: the rest is read and dropped
  bool ended = false;     // Finish came back
};

void* Tag(Stream* stream, Op op) {
  return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(stream) | op);
}

// A shard being read.
struct Shard {
  const ShardRead* read = nullptr;
  size_t next = 0;  // the next of read->processes to try
  ShardProgress progress;
  std::string errors;              // each failed replica's, for ALL_CONNECTION_TRIES_FAILED
  std::unique_ptr<Stream> stream;  // the attempt running now
  bool finishing = false;          // its stream ended well; buckets still pending
  bool done = false;
};

class StreamLoop {
 public:
  StreamLoop(const WorkerSet& workers, const EncodedFragment& fragment, QueryContext* query,
             BucketedMerger* merger, std::vector<std::vector<core::Block>>* blocks,
             BlockConsumer* consumer, std::vector<absl::Status>* statuses)
      : workers_(workers),
        fragment_(fragment),
        query_(query),
        merger_(merger),
        blocks_(*blocks),
        consumer_(consumer),
        statuses_(*statuses) {}

  void Run(const std::vector<ShardRead>& reads) {
    shards_.resize(reads.size());
    running_ = reads.size();
    for (size_t i = 0; i < reads.size(); ++i) {
      shards_[i].read = &reads[i];
      shards_[i].progress.hold_buckets = reads[i].replicated;
    }
    for (size_t i = 0; i < reads.size(); ++i) StartNext(i);
    while (running_ > 0) {
      void* tag = nullptr;
      bool ok = false;
      bool got;
      {
        core::ScopedNormalPriority grpc_call;  // gRPC polls the connections on this thread
        core::TransportMemoryScope transport;  // gRPC's read buffers are not the query's
        if (waiting_ > 0) {
          // A stream held back by the window is offered again at least every 5 ms, as a
          // reader thread waiting in BucketedMerger::Add would look again.
          got = cq_.AsyncNext(&tag, &ok,
                              std::chrono::system_clock::now() + std::chrono::milliseconds(5)) ==
                grpc::CompletionQueue::GOT_EVENT;
        } else {
          got = cq_.Next(&tag, &ok);
        }
      }
      core::RelaxAutomaticPriority();  // a burst of INSERTs that lowered it has ended
      if (got) {
        const uintptr_t bits = reinterpret_cast<uintptr_t>(tag);
        OnEvent(reinterpret_cast<Stream*>(bits & ~kOpMask), static_cast<Op>(bits & kOpMask), ok);
      }
      if (waiting_ > 0) OfferWaiting();
    }
    cq_.Shutdown();
    void* tag = nullptr;
    bool ok = false;
    while (cq_.Next(&tag, &ok)) {
    }
  }

 private:
  // Starts shard `slot` on its next process, or ends it when none is left.
  void StartNext(size_t slot) {
    Shard& shard = shards_[slot];
    const ShardRead& read = *shard.read;
    if (shard.next >= read.processes.size()) {
      EndShard(slot, AllReplicasFailed(read.shard, shard.errors));
      return;
    }
    auto stream = std::make_unique<Stream>();
    Stream* s = stream.get();
    s->slot = slot;
    s->attempt.process = read.processes[shard.next++];
    s->attempt.shard = read.shard;
    s->attempt.consumer = consumer_;
    if (read.replicated) s->attempt.watch = workers_.monitor();
    blocks_[read.shard].clear();
    if (!query_->Register(&s->context)) {
      EndShard(slot, core::Error(core::ErrorCode::kQueryWasCancelled, "Query was cancelled"));
      return;
    }
    // Sent serialized: the worker parses it with a nesting limit for deep expressions
    // (core/wire/plan_codec.h).
    pb::FragmentRequest request;
    fragment_.Fill(read.shard, workers_.address(s->attempt.process), &request);
    {
      core::ScopedNormalPriority grpc_call;
      core::TransportMemoryScope transport;  // the serialized fragment (broadcast builds too)
      s->reader = workers_.fragment_stub(s->attempt.process)
                      ->PrepareAsyncExecute(&s->context, request, &cq_);
      s->reader->StartCall(Tag(s, kStart));
      // The first read goes with the call: no round on this thread between them.
      s->reader->Read(&s->chunk, Tag(s, kRead));
      s->outstanding = 2;
    }
    if (s->attempt.watch != nullptr) {
      s->attempt.watch->Watch(s->attempt.process, &s->context, &s->attempt.stalled);
    }
    shard.stream = std::move(stream);
  }

  void ReadNext(Stream* s) {
    core::ScopedNormalPriority grpc_call;
    core::TransportMemoryScope transport;
    s->reader->Read(&s->chunk, Tag(s, kRead));
    ++s->outstanding;
  }

  void OnEvent(Stream* s, Op op, bool ok) {
    --s->outstanding;
    if (op == kRead) {
      if (!ok) {
        core::ScopedNormalPriority grpc_call;
        core::TransportMemoryScope transport;
        s->reader->Finish(&s->finished, Tag(s, kFinish));
        ++s->outstanding;
      } else if (s->draining) {
        ReadNext(s);
      } else {
        Offer(s);
      }
    } else if (op == kFinish) {
      s->ended = true;
    }
    if (s->ended && s->outstanding == 0) EndAttempt(s->slot);
  }

  // Handles s->chunk, then reads on, stops the stream or leaves it waiting.
  void Offer(Stream* s) {
    Shard& shard = shards_[s->slot];
    const ChunkStep step = HandleChunk(s->chunk, &s->attempt, query_, merger_,
                                       &blocks_[s->attempt.shard], &shard.progress,
                                       /*may_wait=*/false);
    if (step == ChunkStep::kWait) {
      if (!s->waiting) ++waiting_;
      s->waiting = true;
      return;
    }
    if (s->waiting) --waiting_;
    s->waiting = false;
    if (step == ChunkStep::kStop) {
      core::ScopedNormalPriority grpc_call;
      s->context.TryCancel();
      s->draining = true;
    }
    ReadNext(s);
  }

  // Offers the streams and the ended shards the merger's window held back another turn.
  void OfferWaiting() {
    for (size_t slot = 0; slot < shards_.size(); ++slot) {
      Shard& shard = shards_[slot];
      if (shard.done) continue;
      Stream* s = shard.stream.get();
      if (query_->cancelled()) {
        // Nothing more is merged: the buckets held back are dropped, the stream ended.
        shard.progress.pending.clear();
        shard.progress.next_pending = 0;
        if (s != nullptr && s->waiting) {
          s->waiting = false;
          --waiting_;
          s->draining = true;
          ReadNext(s);
        } else if (shard.finishing) {
          shard.finishing = false;
          --waiting_;
          EndShard(slot, core::Error(core::ErrorCode::kQueryWasCancelled, "Query was cancelled"));
        }
        continue;
      }
      if (s != nullptr && s->waiting) {
        Offer(s);
      } else if (shard.finishing &&
                 DeliverPending(shard.read->shard, &shard.progress, merger_, false)) {
        shard.finishing = false;
        --waiting_;
        EndShard(slot, absl::OkStatus());
      }
    }
  }

  // Shard `slot`'s stream has ended: the shard ends, or fails over to its next replica.
  void EndAttempt(size_t slot) {
    Shard& shard = shards_[slot];
    std::unique_ptr<Stream> stream = std::move(shard.stream);
    Attempt& attempt = stream->attempt;
    if (attempt.watch != nullptr) attempt.watch->Unwatch(&stream->context);
    query_->Unregister(&stream->context);
    shard.progress.held.clear();
    absl::Status status = AttemptStatus(workers_, &attempt, stream->finished, query_);
    // Only a failure on the way (the replica died, stalled or refused) moves on; an error the
    // worker reports (a bad query, a limit) would be the same on every replica and ends the
    // query, and rows a consumer took cannot be taken back.
    if (shard.read->replicated && !status.ok() && attempt.transport_failure &&
        !query_->cancelled() && !attempt.consumed) {
      workers_.monitor()->RecordError(attempt.process, std::string(status.message()));
      NoteReplicaError(workers_, attempt.process, status, &shard.errors);
      stream.reset();
      StartNext(slot);
      return;
    }
    if (status.ok() && !shard.progress.pending.empty() &&
        !DeliverPending(shard.read->shard, &shard.progress, merger_, false)) {
      shard.finishing = true;  // ends once the window takes its last buckets
      ++waiting_;
      return;
    }
    EndShard(slot, status);
  }

  void EndShard(size_t slot, absl::Status status) {
    // What this thread allocated for the shard so far is charged to the query now (limits,
    // its peak in system.query_log), as a reader thread's end did: the thread otherwise holds up
    // to a MiB uncharged.
    { core::MemoryTrackerScope charge(core::CurrentMemoryTracker()); }
    Shard& shard = shards_[slot];
    shard.done = true;
    --running_;
    const size_t index = shard.read->shard;
    statuses_[index] = std::move(status);
    // One failure stops every other worker at once.
    if (!statuses_[index].ok()) query_->Cancel();
    if (consumer_ != nullptr) consumer_->ShardDone(index);
  }

  const WorkerSet& workers_;
  const EncodedFragment& fragment_;
  QueryContext* const query_;
  BucketedMerger* const merger_;
  std::vector<std::vector<core::Block>>& blocks_;
  BlockConsumer* const consumer_;
  std::vector<absl::Status>& statuses_;

  grpc::CompletionQueue cq_;
  std::vector<Shard> shards_;
  size_t running_ = 0;  // shards not done
  size_t waiting_ = 0;  // streams and ended shards the window holds back
};

}  // namespace

void ReadStreams(const WorkerSet& workers, const std::vector<ShardRead>& reads,
                 const EncodedFragment& fragment, QueryContext* query, BucketedMerger* merger,
                 std::vector<std::vector<core::Block>>* blocks, BlockConsumer* consumer,
                 std::vector<absl::Status>* statuses) {
  if (reads.empty()) return;
  StreamLoop loop(workers, fragment, query, merger, blocks, consumer, statuses);
  loop.Run(reads);
}

}  // namespace granite::coordinator
