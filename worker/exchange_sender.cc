#include "worker/exchange_sender.h"

#include "core/error.h"
#include "core/memory/transport_memory_scope.h"
#include "core/metrics/events.h"
#include "core/rpc_status.h"
#include "core/status_macros.h"
#include "core/thread_priority.h"
#include "worker/peer_stub.h"

namespace granite::worker {
namespace {

namespace pb = granite::worker::v1;

pb::ExchangeMessage::Side SideOf(ExchangeSide side) {
  return side == ExchangeSide::kBuild ? pb::ExchangeMessage::BUILD : pb::ExchangeMessage::PROBE;
}

}  // namespace

ExchangeSender::ExchangeSender(const core::plan::Fragment& fragment,
                               std::shared_ptr<ExchangeInbox> own,
                               core::WireCompression compression)
    : fragment_(fragment),
      own_(std::move(own)),
      compression_(compression),
      peers_(fragment.worker_count) {}

ExchangeSender::~ExchangeSender() {
  for (Peer& peer : peers_) {
    if (peer.context) peer.context->TryCancel();
  }
}

pb::ExchangeMessage ExchangeSender::Header(ExchangeSide side) const {
  pb::ExchangeMessage message;
  message.set_exchange_id(fragment_.exchange_id);
  message.set_sender(fragment_.worker_index);
  message.set_senders(fragment_.worker_count);
  message.set_side(SideOf(side));
  return message;
}

absl::Status ExchangeSender::PeerError(size_t p) {
  Peer& peer = peers_[p];
  grpc::Status status = peer.writer->Finish();
  peer.writer.reset();
  absl::Status error = core::FromGrpcStatus(status, fragment_.exchange_peers[p]);
  if (error.ok()) {
    error = core::Error(core::ErrorCode::kNetworkError, "the exchange stream to " +
                                                            fragment_.exchange_peers[p] +
                                                            " closed early");
  }
  return error;
}

absl::Status ExchangeSender::Write(size_t p, const pb::ExchangeMessage& message) {
  Peer& peer = peers_[p];
  if (!peer.writer) {
    if (peer.context) return core::Error(core::ErrorCode::kLogicalError, "exchange reopened");
    peer.context = std::make_unique<grpc::ClientContext>();
    core::ScopedNormalPriority grpc_call;
    core::TransportMemoryScope transport;
    peer.writer = PeerStub(fragment_.exchange_peers[p])->Exchange(peer.context.get(), &peer.reply);
  }
  core::ScopedNormalPriority grpc_call;
  // gRPC's copy of the message is freed on its own threads: the server's bytes, not the query's.
  core::TransportMemoryScope transport;
  if (!peer.writer->Write(message)) return PeerError(p);
  return absl::OkStatus();
}

absl::Status ExchangeSender::Send(ExchangeSide side, std::vector<core::Block> partitions) {
  for (size_t p = 0; p < partitions.size() && p < peers_.size(); ++p) {
    if (partitions[p].rows() == 0) continue;
    core::plan::EncodedBlock block;
    if (p == fragment_.worker_index) {
      // Rows in an inbox are the server's bytes, like those gRPC received (exchange.h).
      core::TransportMemoryScope server;
      block = core::plan::EncodeResultBlock(partitions[p], core::WireCompression::kNone);
    } else {
      block = core::plan::EncodeResultBlock(partitions[p], compression_);
    }
    partitions[p] = core::Block();
    if (p == fragment_.worker_index) {
      RETURN_IF_ERROR(side == ExchangeSide::kBuild
                          ? own_->AddBuild(fragment_.worker_index, std::move(block))
                          : own_->AddProbe(fragment_.worker_index, std::move(block), {}));
      continue;
    }
    pb::ExchangeMessage message = Header(side);
    message.mutable_block()->set_rows(block.rows);
    message.mutable_block()->set_raw_size(block.raw_size);
    bytes_sent_ += block.data.size();
    rows_sent_ += block.rows;
    core::CountEvent(core::Event::kExchangeSentRows, block.rows);
    core::CountEvent(core::Event::kExchangeSentBytes, block.data.size());
    message.mutable_block()->set_data(std::move(block.data));
    RETURN_IF_ERROR(Write(p, message));
  }
  return absl::OkStatus();
}

absl::Status ExchangeSender::End(ExchangeSide side) {
  for (size_t p = 0; p < peers_.size(); ++p) {
    if (p == fragment_.worker_index) {
      RETURN_IF_ERROR(side == ExchangeSide::kBuild ? own_->EndBuild(fragment_.worker_index)
                                                   : own_->EndProbe(fragment_.worker_index));
      continue;
    }
    pb::ExchangeMessage message = Header(side);
    message.set_end(true);
    RETURN_IF_ERROR(Write(p, message));
  }
  return absl::OkStatus();
}

absl::Status ExchangeSender::Finish() {
  absl::Status first;
  for (size_t p = 0; p < peers_.size(); ++p) {
    Peer& peer = peers_[p];
    if (!peer.writer) continue;
    core::ScopedNormalPriority grpc_call;
    core::TransportMemoryScope transport;
    peer.writer->WritesDone();
    grpc::Status status = peer.writer->Finish();
    peer.writer.reset();
    peer.context.reset();
    if (!status.ok() && first.ok()) first = core::FromGrpcStatus(status, fragment_.exchange_peers[p]);
  }
  return first;
}

}  // namespace granite::worker
