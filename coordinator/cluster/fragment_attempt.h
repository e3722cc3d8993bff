// The pieces of FanOut (fan_out.h) shared by its two ways of reading worker streams — all of a
// query's streams on the calling thread through one completion queue (stream_set.h), or one
// reader thread per stream (reader_threads.h, for consumers that wait across shards): the
// fragment encoded once per query, one attempt of a shard on one replica, how a chunk of its
// stream is handled, and the status the attempt ends with.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "coordinator/cluster/fan_out.h"
#include "coordinator/cluster/worker_set.h"
#include "coordinator/exec/bucketed_merger.h"
#include "coordinator/server/query_context.h"
#include "core/block.h"
#include "core/plan/fragment.h"
#include "granite/worker/v1/worker.pb.h"

namespace granite::coordinator {

// The fragment as the workers receive it, encoded once per query: a broadcast build would
// otherwise be encoded (and LZ4-compressed) once per worker. Two forms at most: for workers on
// this host network_compression_method is 'none' unless the query set it (compression only
// costs CPU there), for the others as the query says. Only worker_index differs per shard.
class EncodedFragment {
 public:
  EncodedFragment(const WorkerSet& workers, core::plan::Fragment fragment);

  // Fills `request` with the fragment for shard `shard` run on the worker at `address`. The
  // shard is appended to the encoded bytes as a message holding only worker_index: parsing
  // concatenated messages merges them (a scalar field keeps its last value), so no per-shard
  // encoding is needed. The base encoding has worker_index 0, which proto3 leaves out.
  void Fill(size_t shard, const std::string& address,
            granite::worker::v1::FragmentRequest* request) const;

 private:
  std::string remote_;
  std::string local_;
  bool local_differs_ = false;
};

// Where one shard's buckets stand. With replicas a retry on another replica skips the buckets
// already handed to the merger, and the chunks of the bucket being received are held until its
// last one, so the merger only ever sees whole buckets of one replica (replicas hold the same
// rows, so bucket b of any of them carries the same groups). Buckets whose turn came but that
// the merger's window does not admit yet wait in `pending` (a reader that must not block).
struct ShardProgress {
  bool hold_buckets = false;  // false: hand every chunk to the merger at once (one replica)
  int64_t delivered = -1;     // highest bucket id whose chunks are all in `pending` or merged
  bool single_delivered = false;
  std::vector<std::pair<uint32_t, core::Block>> held;  // chunks of the bucket being received
  // Chunks for the merger, in order: bucket id, states, last of the worker's stream.
  std::vector<std::tuple<uint32_t, core::Block, bool>> pending;
  size_t next_pending = 0;  // the first of `pending` not handed over
};

// One fragment stream: the process it runs on, the shard it reads, and how it is going.
struct Attempt {
  size_t process = 0;
  size_t shard = 0;
  ReplicaMonitor* watch = nullptr;  // replicated reads: cancels the stream if the replica stalls
  std::atomic<bool> stalled{false};
  bool transport_failure = false;   // the call failed on the way, not on the worker
  BlockConsumer* consumer = nullptr;  // FanOutStreamed: takes the blocks
  bool consumed = false;              // the consumer took a block of this attempt
  bool consumer_done = false;         // the consumer wants no more rows: the rest is dropped
  bool enough = false;  // the merger holds enough groups (LIMIT): the rest of the stream is moot
  absl::Status status;  // a failure here (decoding, the consumer): the stream is cancelled
};

// What the reader does after a chunk.
enum class ChunkStep {
  kNext,  // read the next chunk
  kStop,  // cancel the stream (attempt->status or attempt->enough says why) and drain it
  kWait,  // the merger's window holds this shard back: offer the same chunk again later
};

// Handles one chunk of `attempt`'s stream: blocks to the consumer or into `blocks`, buckets to
// `merger` (through progress->pending), statistics to the query. With `may_wait` the merger's
// Add may block for the window and kWait never comes back; without it a chunk that finds
// buckets still pending is left untouched (kWait) and must be offered again.
ChunkStep HandleChunk(granite::worker::v1::FragmentChunk& chunk, Attempt* attempt,
                      QueryContext* query, BucketedMerger* merger,
                      std::vector<core::Block>* blocks, ShardProgress* progress, bool may_wait);

// Hands progress->pending to the merger in order; false if its window holds one back (only
// without `may_wait`). Empties `pending` once all are handed over.
bool DeliverPending(size_t shard, ShardProgress* progress, BucketedMerger* merger,
                    bool may_wait);

// The status an attempt ends with, given how its call finished; sets
// attempt->transport_failure. A worker's own error names the worker.
absl::Status AttemptStatus(const WorkerSet& workers, Attempt* attempt,
                           const grpc::Status& finished, QueryContext* query);

// The error of a shard whose every replica failed on the way.
absl::Status AllReplicasFailed(size_t shard, const std::string& errors);

// Appends "replica r (address): message" to `errors` (the record AllReplicasFailed reports).
void NoteReplicaError(const WorkerSet& workers, size_t process, const absl::Status& status,
                      std::string* errors);

}  // namespace granite::coordinator
