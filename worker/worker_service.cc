#include "worker/worker_service.h"

#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "core/block_codec.h"
#include "core/cancellation_poller.h"
#include "core/memory/memory_tracker.h"
#include "core/memory/transport_memory_scope.h"
#include "core/process.h"
#include "core/error.h"
#include "core/interserver_secret.h"
#include "core/metrics/events.h"
#include "core/metrics/metrics_snapshot.h"
#include "core/wire/plan_codec.h"
#include "core/wire/schema_codec.h"
#include "core/wire/worker_codec.h"
#include "storage/access_file.h"
#include "core/rpc_status.h"
#include "core/status_macros.h"
#include "core/thread_priority.h"
#include "core/types.h"
#include "core/value_text.h"
#include "worker/chunk_coalescer.h"

namespace granite::worker {

namespace pb = granite::worker::v1;

namespace {

// An insert's block is wire data: LZ4, or raw when the coordinator sent it uncompressed (a
// worker on its host) or LZ4 did not shrink it.
absl::StatusOr<core::Block> BlockFromProto(const pb::BlockData& data) {
  return core::DecodeWireBlock(data.data(), data.raw_size());
}

// Returns the partition value as system.parts shows it.
std::string PartitionText(const storage::PartitionValue& partition) {
  if (!partition.present) return "tuple()";
  core::Column column(partition.type);
  if (!core::AppendValue(partition.value, partition.type, &column).ok()) return "?";
  std::string text;
  core::AppendValueText(column, 0, &text);
  return text;
}

void FillPartInfo(const storage::Table& table, const storage::Part& part, bool active,
                  pb::PartInfo* info) {
  info->set_table(table.schema().name);
  info->set_name(part.name());
  info->set_rows(part.rows());
  info->set_bytes_on_disk(part.size_on_disk());
  info->set_active(active);
  info->set_partition(PartitionText(part.partition()));
  info->set_partition_id(part.partition_id());
  info->set_level(part.level());
  info->set_marks(part.granule_count());
  info->set_min_block(part.part_name().min_block);
  info->set_max_block(part.part_name().max_block);
  info->set_data_uncompressed_bytes(part.uncompressed_bytes());
  uint64_t compressed = 0;
  for (size_t c = 0; c < part.column_count(); ++c) {
    compressed += part.column_compressed_bytes(c);
    info->add_column_compressed_bytes(part.column_compressed_bytes(c));
    info->add_column_uncompressed_bytes(part.column_uncompressed_bytes(c));
  }
  info->set_data_compressed_bytes(compressed);
  info->set_part_type(storage::PartTypeName(part.part_type()));
}

}  // namespace

WorkerService::WorkerService(storage::Store* store, core::ThreadPool* pool, WorkerInfo info,
                             int execute_nice)
    : store_(store), block_log_(store->file_system()), cloner_(store, &block_log_),
      executor_(store, pool, &exchanges_),
      info_(std::move(info)), execute_nice_(execute_nice) {
  storage::MergeOptions options;
  options.nice = execute_nice;
  if (const char* threads = std::getenv("GRANITE_MERGE_THREADS")) {
    int n = 0;
    if (absl::SimpleAtoi(threads, &n) && n >= 0) options.threads = static_cast<size_t>(n);
  }
  // A prepared insert does not outlive its process: what an earlier one staged is garbage.
  for (const std::shared_ptr<storage::Table>& table : store_->Tables()) {
    block_log_.DropAllStaged(table->directory());
  }
  store_->StartBackgroundMerges(options);
}

grpc::Status WorkerService::Execute(grpc::ServerContext* context,
                                    const pb::FragmentRequest* request,
                                    grpc::ServerWriter<pb::FragmentChunk>* writer) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  // The pool threads poll this flag between morsels; the process's cancellation poller mirrors
  // the RPC's cancellation into it.
  std::atomic<bool> cancelled{false};
  core::CountEvent(core::Event::kFragmentsStarted);
  absl::StatusOr<core::plan::Fragment> fragment = core::wire::DecodeFragment(request->fragment());
  absl::Status status = fragment.status();
  if (status.ok()) {
    core::ScopedThreadNice nice(core::HeavyWorkPriority(execute_nice_));  // its morsels' too
    // The fragment's memory on this worker, under its max_memory_usage: going over raises
    // `cancelled` (core/memory/memory_tracker.h); its morsels charge it through the pool.
    std::shared_ptr<core::MemoryTracker> memory = core::MemoryTracker::ForQuery(
        static_cast<int64_t>(fragment->settings.max_memory_usage));
    memory->set_cancel_flag(&cancelled);
    core::MemoryTrackerScope charged(memory.get());
    core::CancellationPoller::Registration watch = core::CancellationPoller::Global().Watch(
        [context] { return context->IsCancelled(); }, [&cancelled] { cancelled = true; });
    // The statistics chunks go out with the next chunk or the status (chunk_coalescer.h).
    ChunkCoalescer out([writer](const pb::FragmentChunk& message, grpc::WriteOptions options) {
      core::ScopedNormalPriority grpc_call;  // see core/thread_priority.h
      core::TransportMemoryScope transport;  // gRPC's slices are not the fragment's
      return writer->Write(message, options);
    });
    status = executor_.Run(*fragment, cancelled, [&](core::plan::ResultChunk&& chunk) {
      core::RelaxAutomaticPriority();  // a burst of INSERTs that lowered it has ended
      if (chunk.kind == core::plan::ResultChunk::Kind::kStats) {
        core::CountEvent(core::Event::kReadRows, chunk.stats.read_rows);
        core::CountEvent(core::Event::kReadBytes, chunk.stats.read_bytes);
      }
      return out.Add(std::move(chunk));
    });
    if (memory->exceeded()) status = memory->ExceededStatus();
    (void)out.Finish(status.ok());
    // A big fragment that failed (over a limit, or cancelled because another worker was): its
    // structures are freed, and their pages go back to the OS now, not after jemalloc's decay,
    // so a process near its limit does not keep them.
    constexpr int64_t kPurgeAfterBytes = int64_t{64} << 20;
    if (!status.ok() && memory->peak() > kPurgeAfterBytes) core::JemallocPurge();
  }
  if (!status.ok()) core::CountEvent(core::Event::kFragmentsFailed);
  core::CountEvent(core::Event::kFragmentsFinished);
  return core::ToGrpcStatus(status);
}

grpc::Status WorkerService::Exchange(grpc::ServerContext* context,
                                     grpc::ServerReader<pb::ExchangeMessage>* reader,
                                     pb::ExchangeReply* /*reply*/) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  pb::ExchangeMessage message;
  std::shared_ptr<ExchangeInbox> inbox;
  const std::function<bool()> gone = [context] { return context->IsCancelled(); };
  while (reader->Read(&message)) {
    if (!inbox) {
      absl::StatusOr<std::shared_ptr<ExchangeInbox>> found =
          exchanges_.Find(message.exchange_id(), message.senders());
      if (!found.ok()) return core::ToGrpcStatus(found.status());
      inbox = *std::move(found);
    }
    absl::Status status;
    const uint32_t sender = message.sender();
    const bool build = message.side() == pb::ExchangeMessage::BUILD;
    if (message.has_block()) {
      core::plan::EncodedBlock block;
      block.rows = message.block().rows();
      block.raw_size = message.block().raw_size();
      block.data = std::move(*message.mutable_block()->mutable_data());
      status = build ? inbox->AddBuild(sender, std::move(block))
                     : inbox->AddProbe(sender, std::move(block), gone);
    }
    if (status.ok() && message.end()) {
      status = build ? inbox->EndBuild(sender) : inbox->EndProbe(sender);
    }
    if (!status.ok()) return core::ToGrpcStatus(status);
  }
  return grpc::Status::OK;
}

int WorkerService::BulkInsertPriority(size_t rows) const {
  if (rows >= kBulkInsertRows) return core::HeavyWorkPriority(execute_nice_);
  core::MarkSmallWrite();  // what the automatic priority protects
  return 0;
}

grpc::Status WorkerService::Insert(grpc::ServerContext* context, const pb::InsertRequest* request,
                                   pb::InsertResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  absl::StatusOr<std::shared_ptr<storage::Table>> table = store_->TableOrError(request->table());
  if (!table.ok()) return core::ToGrpcStatus(table.status());
  absl::StatusOr<core::Block> block = BlockFromProto(request->block());
  if (!block.ok()) return core::ToGrpcStatus(block.status());
  core::ScopedThreadNice bulk(BulkInsertPriority(block->rows()));
  absl::StatusOr<std::string> part = (*table)->Insert(*block);
  if (!part.ok()) return core::ToGrpcStatus(part.status());
  response->set_rows(block->rows());
  response->set_part(*part);
  return grpc::Status::OK;
}

grpc::Status WorkerService::PrepareInsert(grpc::ServerContext* context,
                                          const pb::InsertRequest* request,
                                          pb::InsertResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  absl::StatusOr<std::shared_ptr<storage::Table>> table = store_->TableOrError(request->table());
  if (!table.ok()) return core::ToGrpcStatus(table.status());
  absl::StatusOr<core::Block> block = BlockFromProto(request->block());
  if (!block.ok()) return core::ToGrpcStatus(block.status());
  core::ScopedThreadNice bulk(BulkInsertPriority(block->rows()));  // the staging thread's too
  // The copy kept for replicas that miss this block, once committed (storage/block_log.h), is
  // written beside the parts rather than after them: its fsync overlaps theirs.
  absl::Status staged;
  std::thread staging;
  if (request->retain()) {
    staging = std::thread([&] {
      storage::BlockChunk chunk{request->block().rows(), request->block().raw_size(),
                                request->block().data()};
      staged = block_log_.Stage((*table)->directory(), request->insert_id(), request->chunk(),
                                chunk, request->block_id());
    });
  }
  absl::Status status = (*table)->PrepareInsert(*block, request->insert_id(), request->chunk());
  if (staging.joinable()) {
    staging.join();
    if (status.ok() && !staged.ok()) {
      (void)(*table)->AbortInsert(request->insert_id());
      status = staged;
    }
    // This replica's part of the insert is lost either way: the coordinator aborts it.
    if (!status.ok()) block_log_.DropStaged((*table)->directory(), request->insert_id());
  }
  if (!status.ok()) return core::ToGrpcStatus(status);
  response->set_rows(block->rows());
  response->set_token(request->insert_id());
  return grpc::Status::OK;
}

grpc::Status WorkerService::CommitInsert(grpc::ServerContext* context,
                                         const pb::CommitInsertRequest* request,
                                         pb::CommitInsertResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  absl::StatusOr<std::shared_ptr<storage::Table>> table = store_->TableOrError(request->table());
  if (!table.ok()) return core::ToGrpcStatus(table.status());
  // Held shared by every commit: a clone install replaces the table's parts and ids between
  // commits, and a snapshot for a peer sees parts and ids that belong together.
  core::ReaderLock commits(block_log_.TableLock((*table)->directory()));
  if (request->block_id().empty()) {
    absl::StatusOr<std::vector<std::string>> parts = (*table)->CommitInsert(request->token());
    if (!parts.ok()) return core::ToGrpcStatus(parts.status());
    for (const std::string& part : *parts) response->add_parts(part);
    return grpc::Status::OK;
  }
  // A replicated block: committed at most once per replica, whoever sends it (the insert, its
  // retry, or a repair from a peer).
  const std::string& dir = (*table)->directory();
  core::MutexLock once(block_log_.LockFor(request->block_id()));
  if (block_log_.Contains(dir, request->block_id())) {
    (void)(*table)->AbortInsert(request->token());
    block_log_.DropStaged(dir, request->token());
    response->set_deduplicated(true);
    return grpc::Status::OK;
  }
  // The id first: a crash before the parts' commit leaves the id without its rows (found by the
  // repair's row count), never rows without their id (duplicated by a re-sent block).
  if (absl::Status recorded = block_log_.Record(dir, request->block_id(), request->token());
      !recorded.ok()) {
    (void)(*table)->AbortInsert(request->token());
    block_log_.DropStaged(dir, request->token());
    (void)block_log_.Forget(dir, request->block_id());
    return core::ToGrpcStatus(recorded);
  }
  absl::StatusOr<std::vector<std::string>> parts = (*table)->CommitInsert(request->token());
  if (!parts.ok()) {
    (void)block_log_.Forget(dir, request->block_id());
    return core::ToGrpcStatus(parts.status());
  }
  for (const std::string& part : *parts) response->add_parts(part);
  return grpc::Status::OK;
}

grpc::Status WorkerService::AbortInsert(grpc::ServerContext* context,
                                        const pb::AbortInsertRequest* request,
                                        pb::AbortInsertResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  std::shared_ptr<storage::Table> table = store_->GetTable(request->table());
  if (!table) return grpc::Status::OK;  // dropped: its prepared inserts went with it
  block_log_.DropStaged(table->directory(), request->token());
  return core::ToGrpcStatus(table->AbortInsert(request->token()));
}

grpc::Status WorkerService::ListBlocks(grpc::ServerContext* context,
                                       const pb::ListBlocksRequest* request,
                                       pb::ListBlocksResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  absl::StatusOr<std::shared_ptr<storage::Table>> table = store_->TableOrError(request->table());
  if (!table.ok()) return core::ToGrpcStatus(table.status());
  absl::StatusOr<std::vector<storage::BlockEntry>> entries =
      block_log_.List((*table)->directory());
  if (!entries.ok()) return core::ToGrpcStatus(entries.status());
  for (const storage::BlockEntry& entry : *entries) {
    pb::BlockEntry* out = response->add_blocks();
    out->set_id(entry.name);
    out->set_has_data(entry.has_data);
  }
  return grpc::Status::OK;
}

grpc::Status WorkerService::GetBlock(grpc::ServerContext* context,
                                     const pb::GetBlockRequest* request,
                                     pb::GetBlockResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  absl::StatusOr<std::shared_ptr<storage::Table>> table = store_->TableOrError(request->table());
  if (!table.ok()) return core::ToGrpcStatus(table.status());
  uint64_t checksum = 0;
  std::string id;
  absl::StatusOr<std::vector<storage::BlockChunk>> chunks =
      block_log_.Read((*table)->directory(), request->id(), &checksum, &id);
  if (!chunks.ok()) return core::ToGrpcStatus(chunks.status());
  for (storage::BlockChunk& chunk : *chunks) {
    pb::BlockData* out = response->add_chunks();
    out->set_rows(chunk.rows);
    out->set_raw_size(chunk.raw_size);
    out->set_data(std::move(chunk.data));
  }
  response->set_checksum(checksum);
  response->set_block_id(id);
  return grpc::Status::OK;
}

grpc::Status WorkerService::ReleaseBlocks(grpc::ServerContext* context,
                                          const pb::ReleaseBlocksRequest* request,
                                          pb::ReleaseBlocksResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  std::shared_ptr<storage::Table> table = store_->GetTable(request->table());
  if (!table) return grpc::Status::OK;
  for (const std::string& id : request->ids()) {
    absl::Status released = block_log_.Release(table->directory(), id);
    if (!released.ok()) return core::ToGrpcStatus(released);
  }
  if (request->settled_size() > 0) {
    const std::set<std::string> settled(request->settled().begin(), request->settled().end());
    core::ReaderLock commits(block_log_.TableLock(table->directory()));
    absl::StatusOr<size_t> pruned = block_log_.Prune(table->directory(), settled, request->keep());
    if (!pruned.ok()) return core::ToGrpcStatus(pruned.status());
  }
  return grpc::Status::OK;
}

grpc::Status WorkerService::SnapshotReplica(grpc::ServerContext* context,
                                            const pb::SnapshotReplicaRequest* request,
                                            pb::SnapshotReplicaResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  absl::StatusOr<pb::SnapshotReplicaResponse> snapshot = cloner_.Snapshot(request->table());
  if (!snapshot.ok()) return core::ToGrpcStatus(snapshot.status());
  *response = *std::move(snapshot);
  return grpc::Status::OK;
}

grpc::Status WorkerService::FetchPart(grpc::ServerContext* context,
                                      const pb::FetchPartRequest* request,
                                      grpc::ServerWriter<pb::PartFileChunk>* writer) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  return core::ToGrpcStatus(cloner_.StreamPart(
      *request, [writer](const pb::PartFileChunk& chunk) { return writer->Write(chunk); }));
}

grpc::Status WorkerService::CloneReplica(grpc::ServerContext* context,
                                         const pb::CloneReplicaRequest* request,
                                         pb::CloneReplicaResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  core::ScopedThreadNice heavy(core::HeavyWorkPriority(execute_nice_));  // verifies every part
  absl::StatusOr<pb::CloneReplicaResponse> cloned =
      cloner_.Clone(request->table(), request->source());
  if (!cloned.ok()) return core::ToGrpcStatus(cloned.status());
  *response = *std::move(cloned);
  return grpc::Status::OK;
}

grpc::Status WorkerService::CreateTable(grpc::ServerContext* context,
                                        const pb::CreateTableRequest* request,
                                        pb::DdlResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  return core::ToGrpcStatus(store_->CreateTable(core::wire::FromProto(request->schema()),
                                                request->if_not_exists(), request->or_replace()));
}

grpc::Status WorkerService::DropTable(grpc::ServerContext* context,
                                      const pb::DropTableRequest* request,
                                      pb::DdlResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  return core::ToGrpcStatus(store_->DropTable(request->name(), request->if_exists()));
}

grpc::Status WorkerService::CatalogOp(grpc::ServerContext* context,
                                      const pb::CatalogOpRequest* request,
                                      pb::DdlResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  switch (request->kind()) {
    case pb::CatalogOpRequest::CREATE_DATABASE:
      return core::ToGrpcStatus(store_->CreateDatabase(request->name(), request->if_exists()));
    case pb::CatalogOpRequest::DROP_DATABASE:
      return core::ToGrpcStatus(store_->DropDatabase(request->name(), request->if_exists()));
    case pb::CatalogOpRequest::RENAME_TABLE:
      return core::ToGrpcStatus(store_->RenameTable(request->name(), request->new_name()));
    case pb::CatalogOpRequest::TRUNCATE_TABLE:
      return core::ToGrpcStatus(store_->TruncateTable(request->name(), request->if_exists()));
    case pb::CatalogOpRequest::ALTER_SCHEMA:
      return core::ToGrpcStatus(
          store_->AlterTableSchema(request->name(), core::wire::FromProto(request->schema())));
    case pb::CatalogOpRequest::SET_ACCESS:
      return core::ToGrpcStatus(
          storage::WriteAccessFile(*store_->file_system(), store_->data_dir(), request->new_name()));
    default:
      return core::ToGrpcStatus(
          core::Error(core::ErrorCode::kNotImplemented, "Unknown catalog operation"));
  }
}

grpc::Status WorkerService::ListTables(grpc::ServerContext* context,
                                       const pb::ListTablesRequest* request,
                                       pb::ListTablesResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  for (const auto& table : store_->Tables()) {
    pb::TableInfo* info = response->add_tables();
    core::wire::ToProto(table->declared_schema(), info->mutable_schema());
    auto snapshot = table->Snapshot();
    uint64_t rows = 0, bytes = 0;
    for (const auto& part : snapshot->parts) {
      rows += part->rows();
      bytes += part->size_on_disk();
    }
    info->set_rows(rows);
    info->set_parts(snapshot->parts.size());
    info->set_bytes_on_disk(bytes);
  }
  for (const std::string& database : store_->Databases()) response->add_databases(database);
  absl::StatusOr<std::string> access =
      storage::ReadAccessFile(*store_->file_system(), store_->data_dir());
  if (!access.ok()) return core::ToGrpcStatus(access.status());
  response->set_access(*std::move(access));
  for (const auto& [name, error] : store_->BrokenTables()) {
    pb::BrokenTable* broken = response->add_broken_tables();
    broken->set_name(name);
    broken->set_error(error);
  }
  return grpc::Status::OK;
}

grpc::Status WorkerService::ListParts(grpc::ServerContext* context,
                                      const pb::ListPartsRequest* request,
                                      pb::ListPartsResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  for (const auto& table : store_->Tables()) {
    auto snapshot = table->Snapshot();
    for (const auto& part : snapshot->parts) {
      FillPartInfo(*table, *part, true, response->add_parts());
    }
    for (const auto& part : table->registry().Outdated()) {
      FillPartInfo(*table, *part, false, response->add_parts());
    }
    absl::StatusOr<std::vector<storage::DetachedPart>> detached = table->DetachedParts();
    if (!detached.ok()) continue;  // an unreadable detached/ hides only these rows
    for (const storage::DetachedPart& part : *detached) {
      pb::DetachedPartInfo* info = response->add_detached_parts();
      info->set_table(table->name());
      info->set_name(part.name);
      info->set_reason(part.reason);
      if (part.part) {
        info->set_partition_id(part.part->partition_id);
        info->set_min_block(part.part->min_block);
        info->set_max_block(part.part->max_block);
        info->set_level(part.part->level);
      }
      info->set_bytes_on_disk(part.bytes_on_disk);
      info->set_path(part.path);
    }
  }
  return grpc::Status::OK;
}

grpc::Status WorkerService::Optimize(grpc::ServerContext* context,
                                     const pb::OptimizeRequest* request,
                                     pb::OptimizeResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  return core::ToGrpcStatus(store_->Optimize(request->table(), request->final()));
}

grpc::Status WorkerService::ListMerges(grpc::ServerContext* context,
                                       const pb::ListMergesRequest* request,
                                       pb::ListMergesResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  core::wire::ToProto(store_->RunningMerges(), response);
  return grpc::Status::OK;
}

grpc::Status WorkerService::GetInfo(grpc::ServerContext* context,
                                    const pb::GetInfoRequest* request,
                                    pb::GetInfoResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  core::wire::ToProto(ProcessInfoOf(info_, std::chrono::steady_clock::now()), response);
  return grpc::Status::OK;
}

grpc::Status WorkerService::AttachPart(grpc::ServerContext* context,
                                       const pb::DetachedPartRequest* request,
                                       pb::DetachedPartResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  absl::StatusOr<std::shared_ptr<storage::Table>> table = store_->TableOrError(request->table());
  if (!table.ok()) return core::ToGrpcStatus(table.status());
  absl::StatusOr<std::string> part = (*table)->AttachPart(request->name());
  if (!part.ok()) return core::ToGrpcStatus(part.status());
  response->set_part(*part);
  return grpc::Status::OK;
}

grpc::Status WorkerService::DropDetachedPart(grpc::ServerContext* context,
                                             const pb::DetachedPartRequest* request,
                                             pb::DetachedPartResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  absl::StatusOr<std::shared_ptr<storage::Table>> table = store_->TableOrError(request->table());
  if (!table.ok()) return core::ToGrpcStatus(table.status());
  return core::ToGrpcStatus((*table)->DropDetachedPart(request->name()));
}

grpc::Status WorkerService::CheckTable(grpc::ServerContext* context,
                                       const pb::CheckTableRequest* request,
                                       pb::CheckTableResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  absl::StatusOr<std::shared_ptr<storage::Table>> table = store_->TableOrError(request->table());
  if (!table.ok()) return core::ToGrpcStatus(table.status());
  core::ScopedThreadNice heavy(core::HeavyWorkPriority(execute_nice_));  // reads the whole shard
  for (const storage::Table::PartCheck& check : (*table)->Check()) {
    pb::PartCheck* row = response->add_parts();
    row->set_part_path(check.part_path);
    row->set_is_passed(check.passed);
    row->set_message(check.message);
  }
  return grpc::Status::OK;
}

grpc::Status WorkerService::GetMetrics(grpc::ServerContext* context,
                                       const pb::GetMetricsRequest* request,
                                       pb::GetMetricsResponse* response) {
  if (grpc::Status denied = core::CheckInterServerSecret(*context); !denied.ok()) return denied;
  core::wire::ToProto(core::ReportOf(core::TakeMetricsSnapshot()), response);
  return grpc::Status::OK;
}

}  // namespace granite::worker
