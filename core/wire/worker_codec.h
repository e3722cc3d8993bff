// WorkerCodec: the typed worker API (core/worker_api.h, core/metrics/metrics_snapshot.h's
// MetricsReport) to and from its generated messages (proto/granite/worker/v1/worker.proto),
// field for field. The coordinator's WorkerClient encodes requests and decodes answers; the
// worker's service encodes the answers it builds from typed values. Requests of one or two plain
// arguments (a table name, ids) are built by the client itself.
#pragma once

#include <vector>

#include "core/metrics/metrics_snapshot.h"
#include "core/worker_api.h"

namespace granite::worker::v1 {
class BlockData;
class CatalogOpRequest;
class CheckTableResponse;
class CommitInsertRequest;
class CommitInsertResponse;
class CreateTableRequest;
class DetachedPartRequest;
class GetBlockResponse;
class GetInfoResponse;
class GetMetricsResponse;
class InsertRequest;
class InsertResponse;
class ListBlocksResponse;
class ListMergesResponse;
class ListPartsResponse;
class ListTablesResponse;
class OptimizeRequest;
}  // namespace granite::worker::v1

namespace granite::core::wire {

// Requests (coordinator -> worker).
void ToProto(const plan::EncodedBlock& block, granite::worker::v1::BlockData* out);
// Moves the block's bytes into the message (an insert's chunk is tens of MB: no copy).
void ToProto(worker_api::InsertRequest request, granite::worker::v1::InsertRequest* out);
void ToProto(const worker_api::CommitInsertRequest& request,
             granite::worker::v1::CommitInsertRequest* out);
void ToProto(const worker_api::CreateTableRequest& request,
             granite::worker::v1::CreateTableRequest* out);
void ToProto(const worker_api::CatalogOpRequest& request,
             granite::worker::v1::CatalogOpRequest* out);
void ToProto(const worker_api::DetachedPartRequest& request,
             granite::worker::v1::DetachedPartRequest* out);
void ToProto(const worker_api::OptimizeRequest& request, granite::worker::v1::OptimizeRequest* out);

// Answers (worker -> coordinator).
plan::EncodedBlock FromProto(const granite::worker::v1::BlockData& block);
worker_api::InsertResult FromProto(const granite::worker::v1::InsertResponse& response);
worker_api::CommitInsertResult FromProto(const granite::worker::v1::CommitInsertResponse& response);
worker_api::TableListing FromProto(const granite::worker::v1::ListTablesResponse& response);
worker_api::PartListing FromProto(const granite::worker::v1::ListPartsResponse& response);
std::vector<worker_api::PartCheck> FromProto(
    const granite::worker::v1::CheckTableResponse& response);
std::vector<worker_api::MergeInfo> FromProto(
    const granite::worker::v1::ListMergesResponse& response);
std::vector<worker_api::BlockEntry> FromProto(
    const granite::worker::v1::ListBlocksResponse& response);
worker_api::RetainedBlock FromProto(const granite::worker::v1::GetBlockResponse& response);
worker_api::ProcessInfo FromProto(const granite::worker::v1::GetInfoResponse& response);
MetricsReport FromProto(const granite::worker::v1::GetMetricsResponse& response);

// Answers the worker builds from typed values.
void ToProto(const worker_api::ProcessInfo& info, granite::worker::v1::GetInfoResponse* out);
void ToProto(const MetricsReport& report, granite::worker::v1::GetMetricsResponse* out);
void ToProto(const std::vector<worker_api::MergeInfo>& merges,
             granite::worker::v1::ListMergesResponse* out);

}  // namespace granite::core::wire
