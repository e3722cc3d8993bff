#include "coordinator/cluster/worker_client.h"

#include <grpcpp/grpcpp.h>

#include "core/error.h"
#include "core/memory/transport_memory_scope.h"
#include "core/rpc_status.h"
#include "core/wire/worker_codec.h"
#include "granite/worker/v1/worker.grpc.pb.h"

namespace granite::coordinator {

namespace pb = granite::worker::v1;
namespace api = core::worker_api;

namespace {

using Stub = pb::Worker::Stub;

template <typename Request, typename Response>
using Method = grpc::Status (Stub::*)(grpc::ClientContext*, const Request&, Response*);

// Runs one unary call on worker `worker`'s stub with a deadline `timeout` from now.
template <typename Request, typename Response>
absl::Status Call(const WorkerSet& workers, size_t worker, WorkerClient::Timeout timeout,
                  Method<Request, Response> method, const Request& request, Response* response) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + timeout);
  grpc::Status status;
  {
    core::TransportMemoryScope transport;  // gRPC's slices are not the query's
    status = (workers.stub(worker)->*method)(&context, request, response);
  }
  return core::FromGrpcStatus(status, workers.address(worker));
}

}  // namespace

bool Unreachable(const absl::Status& status) {
  const core::ErrorCode code = core::CodeOf(status);
  return code == core::ErrorCode::kAllConnectionTriesFailed ||
         code == core::ErrorCode::kTimeoutExceeded;
}

absl::StatusOr<api::InsertResult> WorkerClient::Insert(size_t worker, api::InsertRequest request,
                                                       Timeout timeout) const {
  pb::InsertRequest message;
  core::wire::ToProto(std::move(request), &message);
  pb::InsertResponse response;
  absl::Status status = Call(workers_, worker, timeout, &Stub::Insert, message, &response);
  if (!status.ok()) return status;
  return core::wire::FromProto(response);
}

absl::StatusOr<api::InsertResult> WorkerClient::PrepareInsert(size_t worker,
                                                              api::InsertRequest request,
                                                              Timeout timeout) const {
  pb::InsertRequest message;
  core::wire::ToProto(std::move(request), &message);
  pb::InsertResponse response;
  absl::Status status =
      Call(workers_, worker, timeout, &Stub::PrepareInsert, message, &response);
  if (!status.ok()) return status;
  return core::wire::FromProto(response);
}

absl::StatusOr<api::CommitInsertResult> WorkerClient::CommitInsert(
    size_t worker, const api::CommitInsertRequest& request, Timeout timeout) const {
  pb::CommitInsertRequest message;
  core::wire::ToProto(request, &message);
  pb::CommitInsertResponse response;
  absl::Status status = Call(workers_, worker, timeout, &Stub::CommitInsert, message, &response);
  if (!status.ok()) return status;
  return core::wire::FromProto(response);
}

absl::Status WorkerClient::AbortInsert(size_t worker, const std::string& table,
                                       const std::string& token, Timeout timeout) const {
  pb::AbortInsertRequest message;
  message.set_table(table);
  message.set_token(token);
  pb::AbortInsertResponse response;
  return Call(workers_, worker, timeout, &Stub::AbortInsert, message, &response);
}

absl::StatusOr<std::vector<api::BlockEntry>> WorkerClient::ListBlocks(size_t worker,
                                                                      const std::string& table,
                                                                      Timeout timeout) const {
  pb::ListBlocksRequest message;
  message.set_table(table);
  pb::ListBlocksResponse response;
  absl::Status status = Call(workers_, worker, timeout, &Stub::ListBlocks, message, &response);
  if (!status.ok()) return status;
  return core::wire::FromProto(response);
}

absl::StatusOr<api::RetainedBlock> WorkerClient::GetBlock(size_t worker, const std::string& table,
                                                          const std::string& id,
                                                          Timeout timeout) const {
  pb::GetBlockRequest message;
  message.set_table(table);
  message.set_id(id);
  pb::GetBlockResponse response;
  absl::Status status = Call(workers_, worker, timeout, &Stub::GetBlock, message, &response);
  if (!status.ok()) return status;
  return core::wire::FromProto(response);
}

absl::Status WorkerClient::ReleaseBlocks(size_t worker, const std::string& table,
                                         const std::vector<std::string>& ids,
                                         Timeout timeout,
                                         const std::vector<std::string>& settled,
                                         uint64_t keep) const {
  pb::ReleaseBlocksRequest message;
  message.set_table(table);
  for (const std::string& id : ids) message.add_ids(id);
  for (const std::string& name : settled) message.add_settled(name);
  message.set_keep(keep);
  pb::ReleaseBlocksResponse response;
  return Call(workers_, worker, timeout, &Stub::ReleaseBlocks, message, &response);
}

absl::StatusOr<api::CloneResult> WorkerClient::CloneReplica(size_t worker,
                                                            const std::string& table,
                                                            const std::string& source,
                                                            Timeout timeout) const {
  pb::CloneReplicaRequest message;
  message.set_table(table);
  message.set_source(source);
  pb::CloneReplicaResponse response;
  absl::Status status = Call(workers_, worker, timeout, &Stub::CloneReplica, message, &response);
  if (!status.ok()) return status;
  return api::CloneResult{response.parts(), response.rows(), response.bytes(),
                          response.reused_parts()};
}

absl::Status WorkerClient::CreateTable(size_t worker, const api::CreateTableRequest& request,
                                       Timeout timeout) const {
  pb::CreateTableRequest message;
  core::wire::ToProto(request, &message);
  pb::DdlResponse response;
  return Call(workers_, worker, timeout, &Stub::CreateTable, message, &response);
}

absl::Status WorkerClient::DropTable(size_t worker, const std::string& name, bool if_exists,
                                     Timeout timeout) const {
  pb::DropTableRequest message;
  message.set_name(name);
  message.set_if_exists(if_exists);
  pb::DdlResponse response;
  return Call(workers_, worker, timeout, &Stub::DropTable, message, &response);
}

absl::Status WorkerClient::CatalogOp(size_t worker, const api::CatalogOpRequest& request,
                                     Timeout timeout) const {
  pb::CatalogOpRequest message;
  core::wire::ToProto(request, &message);
  pb::DdlResponse response;
  return Call(workers_, worker, timeout, &Stub::CatalogOp, message, &response);
}

absl::StatusOr<api::TableListing> WorkerClient::ListTables(size_t worker,
                                                           Timeout timeout) const {
  pb::ListTablesResponse response;
  absl::Status status =
      Call(workers_, worker, timeout, &Stub::ListTables, pb::ListTablesRequest(), &response);
  if (!status.ok()) return status;
  return core::wire::FromProto(response);
}

absl::StatusOr<api::PartListing> WorkerClient::ListParts(size_t worker, Timeout timeout) const {
  pb::ListPartsResponse response;
  absl::Status status =
      Call(workers_, worker, timeout, &Stub::ListParts, pb::ListPartsRequest(), &response);
  if (!status.ok()) return status;
  return core::wire::FromProto(response);
}

absl::StatusOr<std::string> WorkerClient::AttachPart(size_t worker,
                                                     const api::DetachedPartRequest& request,
                                                     Timeout timeout) const {
  pb::DetachedPartRequest message;
  core::wire::ToProto(request, &message);
  pb::DetachedPartResponse response;
  absl::Status status = Call(workers_, worker, timeout, &Stub::AttachPart, message, &response);
  if (!status.ok()) return status;
  return response.part();
}

absl::Status WorkerClient::DropDetachedPart(size_t worker,
                                            const api::DetachedPartRequest& request,
                                            Timeout timeout) const {
  pb::DetachedPartRequest message;
  core::wire::ToProto(request, &message);
  pb::DetachedPartResponse response;
  return Call(workers_, worker, timeout, &Stub::DropDetachedPart, message, &response);
}

absl::StatusOr<std::vector<api::PartCheck>> WorkerClient::CheckTable(size_t worker,
                                                                     const std::string& table,
                                                                     Timeout timeout) const {
  pb::CheckTableRequest message;
  message.set_table(table);
  pb::CheckTableResponse response;
  absl::Status status = Call(workers_, worker, timeout, &Stub::CheckTable, message, &response);
  if (!status.ok()) return status;
  return core::wire::FromProto(response);
}

absl::Status WorkerClient::Optimize(size_t worker, const api::OptimizeRequest& request,
                                    Timeout timeout) const {
  pb::OptimizeRequest message;
  core::wire::ToProto(request, &message);
  pb::OptimizeResponse response;
  return Call(workers_, worker, timeout, &Stub::Optimize, message, &response);
}

absl::StatusOr<std::vector<api::MergeInfo>> WorkerClient::ListMerges(size_t worker,
                                                                     Timeout timeout) const {
  pb::ListMergesResponse response;
  absl::Status status =
      Call(workers_, worker, timeout, &Stub::ListMerges, pb::ListMergesRequest(), &response);
  if (!status.ok()) return status;
  return core::wire::FromProto(response);
}

absl::StatusOr<api::ProcessInfo> WorkerClient::GetInfo(size_t worker, Timeout timeout) const {
  pb::GetInfoResponse response;
  absl::Status status =
      Call(workers_, worker, timeout, &Stub::GetInfo, pb::GetInfoRequest(), &response);
  if (!status.ok()) return status;
  return core::wire::FromProto(response);
}

absl::StatusOr<core::MetricsReport> WorkerClient::GetMetrics(size_t worker,
                                                             Timeout timeout) const {
  pb::GetMetricsResponse response;
  absl::Status status =
      Call(workers_, worker, timeout, &Stub::GetMetrics, pb::GetMetricsRequest(), &response);
  if (!status.ok()) return status;
  return core::wire::FromProto(response);
}

}  // namespace granite::coordinator
