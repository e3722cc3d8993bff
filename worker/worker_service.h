// WorkerService: the gRPC boundary of a worker (granite.worker.v1.Worker). Each handler converts
// protobuf to core/storage types, calls the executor or the store, and converts the Status back.
#pragma once

#include <atomic>

#include "core/thread_pool.h"
#include "granite/worker/v1/worker.grpc.pb.h"
#include "storage/block_log.h"
#include "storage/store.h"
#include "worker/fragment_executor.h"
#include "worker/replica_cloner.h"
#include "worker/worker_info.h"

namespace granite::worker {

// Serves fragments, inserts, DDL and catalog requests for one worker's store. Every call must
// carry the process's inter-server secret when it has one (core/interserver_secret.h), else it
// ends with AUTHENTICATION_FAILED before it does anything.
// Thread-safety: handlers run concurrently on gRPC threads.
class WorkerService final : public granite::worker::v1::Worker::Service {
 public:
  // Also starts the store's background merges: GRANITE_MERGE_THREADS (environment) merges at
  // once, default 2; 0 turns them off. `info` is what GetInfo reports (worker_info.h).
  // `execute_nice` (--query_thread_nice; 0 = off, -1 = automatic: core/thread_priority.h) lowers
  // the heavy work: Execute runs its fragment, Insert and PrepareInsert a block of
  // kBulkInsertRows rows or more, and background merges run with their thread's nice value
  // raised by it (20 = SCHED_IDLE), so small INSERTs win the CPU. A smaller block is a small
  // write (core::MarkSmallWrite).
  WorkerService(storage::Store* store, core::ThreadPool* pool, WorkerInfo info = WorkerInfo(),
                int execute_nice = 0);

  static constexpr size_t kBulkInsertRows = 65536;

  // Parses the request's fragment (core/plan_parse.h) and runs it.
  grpc::Status Execute(grpc::ServerContext* context,
                       const granite::worker::v1::FragmentRequest* request,
                       grpc::ServerWriter<granite::worker::v1::FragmentChunk>* writer) override;
  // A peer's rows for a shuffle join running here (worker/exchange.h): each message goes into
  // the exchange's inbox; a full probe queue stops the reading (gRPC flow control holds the
  // peer back).
  grpc::Status Exchange(grpc::ServerContext* context,
                        grpc::ServerReader<granite::worker::v1::ExchangeMessage>* reader,
                        granite::worker::v1::ExchangeReply* reply) override;
  grpc::Status Insert(grpc::ServerContext* context, const granite::worker::v1::InsertRequest* request,
                      granite::worker::v1::InsertResponse* response) override;
  grpc::Status CreateTable(grpc::ServerContext* context,
                           const granite::worker::v1::CreateTableRequest* request,
                           granite::worker::v1::DdlResponse* response) override;
  grpc::Status DropTable(grpc::ServerContext* context,
                         const granite::worker::v1::DropTableRequest* request,
                         granite::worker::v1::DdlResponse* response) override;
  // CREATE / DROP DATABASE, RENAME TABLE, TRUNCATE TABLE (storage/store.h).
  grpc::Status CatalogOp(grpc::ServerContext* context,
                         const granite::worker::v1::CatalogOpRequest* request,
                         granite::worker::v1::DdlResponse* response) override;
  grpc::Status ListTables(grpc::ServerContext* context,
                          const granite::worker::v1::ListTablesRequest* request,
                          granite::worker::v1::ListTablesResponse* response) override;
  grpc::Status ListParts(grpc::ServerContext* context,
                         const granite::worker::v1::ListPartsRequest* request,
                         granite::worker::v1::ListPartsResponse* response) override;
  grpc::Status GetMetrics(grpc::ServerContext* context,
                          const granite::worker::v1::GetMetricsRequest* request,
                          granite::worker::v1::GetMetricsResponse* response) override;
  // Two-phase insert (storage/table.h): phase 1, then commit or abort by token.
  grpc::Status PrepareInsert(grpc::ServerContext* context,
                             const granite::worker::v1::InsertRequest* request,
                             granite::worker::v1::InsertResponse* response) override;
  grpc::Status CommitInsert(grpc::ServerContext* context,
                            const granite::worker::v1::CommitInsertRequest* request,
                            granite::worker::v1::CommitInsertResponse* response) override;
  grpc::Status AbortInsert(grpc::ServerContext* context,
                           const granite::worker::v1::AbortInsertRequest* request,
                           granite::worker::v1::AbortInsertResponse* response) override;
  grpc::Status Optimize(grpc::ServerContext* context,
                        const granite::worker::v1::OptimizeRequest* request,
                        granite::worker::v1::OptimizeResponse* response) override;
  grpc::Status ListMerges(grpc::ServerContext* context,
                          const granite::worker::v1::ListMergesRequest* request,
                          granite::worker::v1::ListMergesResponse* response) override;
  // The worker's placement and identity for system.workers.
  grpc::Status GetInfo(grpc::ServerContext* context,
                       const granite::worker::v1::GetInfoRequest* request,
                       granite::worker::v1::GetInfoResponse* response) override;
  // ALTER TABLE ... ATTACH PART / DROP DETACHED PART on this worker's shard (storage/table.h).
  grpc::Status AttachPart(grpc::ServerContext* context,
                          const granite::worker::v1::DetachedPartRequest* request,
                          granite::worker::v1::DetachedPartResponse* response) override;
  grpc::Status DropDetachedPart(grpc::ServerContext* context,
                                const granite::worker::v1::DetachedPartRequest* request,
                                granite::worker::v1::DetachedPartResponse* response) override;
  // CHECK TABLE: verifies every part of this worker's shard (Table::Check).
  grpc::Status CheckTable(grpc::ServerContext* context,
                          const granite::worker::v1::CheckTableRequest* request,
                          granite::worker::v1::CheckTableResponse* response) override;

  // Replicated tables (storage/block_log.h).
  grpc::Status ListBlocks(grpc::ServerContext* context,
                          const granite::worker::v1::ListBlocksRequest* request,
                          granite::worker::v1::ListBlocksResponse* response) override;
  grpc::Status GetBlock(grpc::ServerContext* context,
                        const granite::worker::v1::GetBlockRequest* request,
                        granite::worker::v1::GetBlockResponse* response) override;
  grpc::Status ReleaseBlocks(grpc::ServerContext* context,
                             const granite::worker::v1::ReleaseBlocksRequest* request,
                             granite::worker::v1::ReleaseBlocksResponse* response) override;
  // Part copy between replicas (worker/replica_cloner.h).
  grpc::Status SnapshotReplica(grpc::ServerContext* context,
                               const granite::worker::v1::SnapshotReplicaRequest* request,
                               granite::worker::v1::SnapshotReplicaResponse* response) override;
  grpc::Status FetchPart(grpc::ServerContext* context,
                         const granite::worker::v1::FetchPartRequest* request,
                         grpc::ServerWriter<granite::worker::v1::PartFileChunk>* writer) override;
  grpc::Status CloneReplica(grpc::ServerContext* context,
                            const granite::worker::v1::CloneReplicaRequest* request,
                            granite::worker::v1::CloneReplicaResponse* response) override;

 private:
  // The priority an insert of `rows` runs at; records a small one.
  int BulkInsertPriority(size_t rows) const;

  storage::Store* store_;
  storage::BlockLog block_log_;  // replicated inserts: block ids and retained blocks
  ReplicaCloner cloner_;
  ExchangeRegistry exchanges_;  // before executor_, which uses it
  FragmentExecutor executor_;
  const WorkerInfo info_;
  const int execute_nice_;
};

}  // namespace granite::worker
