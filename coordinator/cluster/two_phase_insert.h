// TwoPhaseInsert: the worker calls of one all-or-nothing insert under one token
// (storage/table.h): PrepareInsert of chunk 0, 1, ... on each worker, which writes them durably
// but invisibly, then CommitInsert, or AbortInsert on every worker that was sent a chunk — also
// one whose answer never came, which refuses the token if its prepare is still running. It serves
// the inserts of clusters without replicas (exec/insert_executor.cc), with replicas
// (exec/replicated_insert.h) and the copy of a missed block from a peer (replica_repair.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "coordinator/cluster/worker_client.h"
#include "core/block.h"
#include "core/block_codec.h"
#include "core/plan/fragment_result.h"

namespace granite::coordinator {

// Returns `block` encoded as an insert carries it: wire data (core/block_codec.h), LZ4 when
// `compression` asks for it and it shrinks the data, else the raw encoding; `raw`, when not
// null, receives the encoded bytes before compression.
core::plan::EncodedBlock EncodeInsertBlock(
    const core::Block& block, core::WireCompression compression = core::WireCompression::kLz4,
    std::string* raw = nullptr);

// Deadlines of the calls of one insert.
struct InsertTimeouts {
  WorkerClient::Timeout prepare = std::chrono::minutes(10);
  WorkerClient::Timeout commit = std::chrono::minutes(10);
  WorkerClient::Timeout abort = std::chrono::seconds(10);
};

// Thread-safety: calls for different workers may run concurrently (WorkerSet::CallEach); the
// calls for one worker run one after another.
class TwoPhaseInsert {
 public:
  // REQUIRES: `workers` outlives this object.
  TwoPhaseInsert(const WorkerSet& workers, std::string table, std::string token,
                 InsertTimeouts timeouts = InsertTimeouts());

  const std::string& table() const { return table_; }
  const std::string& token() const { return token_; }

  // Sends `block` to worker `worker` as its next chunk of the token; `retain` keeps it for
  // replicas that miss the block (storage/block_log.h); `block_id`, with `retain` on the block's
  // last chunk, is the id Commit will record (the worker writes its record while it prepares).
  // The worker counts as touched from the start of the call.
  // `block` is taken by value: moved in, it is sent without a copy.
  absl::Status Prepare(size_t worker, core::plan::EncodedBlock block, bool retain = false,
                       const std::string& block_id = "");

  // Makes the worker's prepared chunks visible; `block_id` deduplicates with replicas.
  absl::Status Commit(size_t worker, const std::string& block_id = "") const;

  // Discards the worker's prepared chunks; best effort, errors are ignored.
  void Abort(size_t worker) const;

  // Abort on every touched worker, concurrently (WorkerSet::CallEach).
  void AbortTouched() const;

  // The workers sent a PrepareInsert so far, in increasing order.
  std::vector<size_t> Touched() const;

 private:
  const WorkerSet& workers_;
  const WorkerClient client_;
  const std::string table_;
  const std::string token_;
  const InsertTimeouts timeouts_;
  std::vector<uint64_t> chunks_;  // per worker: chunks prepared so far
  std::vector<uint8_t> touched_;  // per worker: was sent a PrepareInsert (not vector<bool>:
                                  // concurrent calls write neighbouring entries)
};

}  // namespace granite::coordinator
