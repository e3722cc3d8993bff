// WorkerClient: the coordinator's typed calls to its workers — every RPC of the worker API but
// Execute (the fragment streams are fan_out.h's). Callers pass and receive the plain structs of
// core/worker_api.h; this file and core/wire/worker_codec.h are where they meet protobuf.
//
// Each call goes to process `worker` (an index of the WorkerSet, every replica counted) over its
// non-fragment stub, which carries the inter-server secret on every call (worker_set.h), with the
// deadline `timeout` from now that the caller chooses. A failed call returns
// core::FromGrpcStatus: the worker's own ClickHouse code and message, or
// ALL_CONNECTION_TRIES_FAILED (279) / TIMEOUT_EXCEEDED (159) naming the worker's address when it
// is unreachable or too slow (see Unreachable()).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "coordinator/cluster/worker_set.h"
#include "core/metrics/metrics_snapshot.h"
#include "core/worker_api.h"

namespace granite::coordinator {

// Thread-safety: as WorkerSet's stubs: calls may run concurrently from any threads.
class WorkerClient {
 public:
  using Timeout = std::chrono::milliseconds;

  // REQUIRES: `workers` outlives the client.
  explicit WorkerClient(const WorkerSet& workers) : workers_(workers) {}

  // --- Inserts (storage/table.h: Insert prepares and commits at once) ---
  // The request is taken by value: a caller that moves it in sends its block without a copy.
  absl::StatusOr<core::worker_api::InsertResult> Insert(
      size_t worker, core::worker_api::InsertRequest request, Timeout timeout) const;
  absl::StatusOr<core::worker_api::InsertResult> PrepareInsert(
      size_t worker, core::worker_api::InsertRequest request, Timeout timeout) const;
  absl::StatusOr<core::worker_api::CommitInsertResult> CommitInsert(
      size_t worker, const core::worker_api::CommitInsertRequest& request, Timeout timeout) const;
  absl::Status AbortInsert(size_t worker, const std::string& table, const std::string& token,
                           Timeout timeout) const;

  // --- Blocks retained for replicas (storage/block_log.h) ---
  absl::StatusOr<std::vector<core::worker_api::BlockEntry>> ListBlocks(
      size_t worker, const std::string& table, Timeout timeout) const;
  absl::StatusOr<core::worker_api::RetainedBlock> GetBlock(size_t worker, const std::string& table,
                                                           const std::string& id,
                                                           Timeout timeout) const;
  // Drops the retained data of `ids`; with `settled`, the worker also forgets the ids of those
  // settled blocks beyond its `keep` most recent (storage/block_log.h Prune).
  absl::Status ReleaseBlocks(size_t worker, const std::string& table,
                             const std::vector<std::string>& ids, Timeout timeout,
                             const std::vector<std::string>& settled = {},
                             uint64_t keep = 0) const;
  // Makes `worker` copy `table` whole from the worker at `source` (host:port), worker to worker.
  absl::StatusOr<core::worker_api::CloneResult> CloneReplica(size_t worker,
                                                             const std::string& table,
                                                             const std::string& source,
                                                             Timeout timeout) const;

  // --- Tables and databases ---
  absl::Status CreateTable(size_t worker, const core::worker_api::CreateTableRequest& request,
                           Timeout timeout) const;
  absl::Status DropTable(size_t worker, const std::string& name, bool if_exists,
                         Timeout timeout) const;
  absl::Status CatalogOp(size_t worker, const core::worker_api::CatalogOpRequest& request,
                         Timeout timeout) const;
  absl::StatusOr<core::worker_api::TableListing> ListTables(size_t worker, Timeout timeout) const;

  // --- Parts and merges ---
  absl::StatusOr<core::worker_api::PartListing> ListParts(size_t worker, Timeout timeout) const;
  // Returns the name the part was attached under.
  absl::StatusOr<std::string> AttachPart(size_t worker,
                                         const core::worker_api::DetachedPartRequest& request,
                                         Timeout timeout) const;
  absl::Status DropDetachedPart(size_t worker,
                                const core::worker_api::DetachedPartRequest& request,
                                Timeout timeout) const;
  absl::StatusOr<std::vector<core::worker_api::PartCheck>> CheckTable(size_t worker,
                                                                      const std::string& table,
                                                                      Timeout timeout) const;
  absl::Status Optimize(size_t worker, const core::worker_api::OptimizeRequest& request,
                        Timeout timeout) const;
  absl::StatusOr<std::vector<core::worker_api::MergeInfo>> ListMerges(size_t worker,
                                                                      Timeout timeout) const;

  // --- The process ---
  absl::StatusOr<core::worker_api::ProcessInfo> GetInfo(size_t worker, Timeout timeout) const;
  absl::StatusOr<core::MetricsReport> GetMetrics(size_t worker, Timeout timeout) const;

 private:
  const WorkerSet& workers_;
};

// True when a call's failure means nothing answers at the address (not merely an RPC the worker
// does not implement or refused), so further calls to it would only wait.
bool Unreachable(const absl::Status& status);

}  // namespace granite::coordinator
