// ExchangeSender: one worker's sending side of a shuffle join's exchange (worker/exchange.h) —
// one Exchange stream to every other worker of the fragment, opened on first use, and this
// worker's own inbox for the rows it keeps.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "core/block_codec.h"
#include "core/plan/fragment.h"
#include "granite/worker/v1/worker.grpc.pb.h"
#include "worker/exchange.h"

namespace granite::worker {

enum class ExchangeSide { kBuild, kProbe };

// Thread-safety: not thread-safe; one thread (or a serialized sink) calls it at a time.
class ExchangeSender {
 public:
  // `fragment` names the peers (exchange_peers) and this worker (worker_index); `own` is this
  // worker's inbox. Blocks travel compressed as `compression` says.
  ExchangeSender(const core::plan::Fragment& fragment, std::shared_ptr<ExchangeInbox> own,
                 core::WireCompression compression);
  // Cancels the streams still open (a failed fragment).
  ~ExchangeSender();

  // Sends partitions[p] to worker p. REQUIRES: one partition per worker, its side not ended.
  // Errors: a peer's stream broke (the peer failed or went away), naming the peer.
  absl::Status Send(ExchangeSide side, std::vector<core::Block> partitions);
  // Tells every worker this one sends no more rows of `side`.
  absl::Status End(ExchangeSide side);
  // Closes every stream (after End of both sides); the first peer's error, if any.
  absl::Status Finish();

  // Encoded bytes and rows sent to other workers so far.
  uint64_t bytes_sent() const { return bytes_sent_; }
  uint64_t rows_sent() const { return rows_sent_; }

 private:
  struct Peer {
    std::unique_ptr<grpc::ClientContext> context;
    std::unique_ptr<grpc::ClientWriter<granite::worker::v1::ExchangeMessage>> writer;
    granite::worker::v1::ExchangeReply reply;
  };
  // Writes `message` to worker `p`, opening its stream first.
  absl::Status Write(size_t p, const granite::worker::v1::ExchangeMessage& message);
  // A message of this sender's `side`, without rows.
  granite::worker::v1::ExchangeMessage Header(ExchangeSide side) const;
  // The error of worker p's broken stream.
  absl::Status PeerError(size_t p);

  const core::plan::Fragment& fragment_;
  std::shared_ptr<ExchangeInbox> own_;
  const core::WireCompression compression_;
  std::vector<Peer> peers_;
  uint64_t bytes_sent_ = 0;
  uint64_t rows_sent_ = 0;
};

}  // namespace granite::worker
