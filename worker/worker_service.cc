#include "worker/worker_service.h"

#include <thread>

#include "core/block_codec.h"
#include "core/error.h"
#include "core/rpc_status.h"
#include "core/status_macros.h"
#include "core/types.h"

namespace granite::worker {

namespace pb = granite::worker::v1;

namespace {

storage::TableSchema SchemaFromProto(const pb::TableSchema& proto) {
  storage::TableSchema schema;
  schema.name = proto.name();
  for (const pb::ColumnSpec& column : proto.columns()) {
    schema.columns.push_back({column.name(), static_cast<core::TypeId>(column.type())});
  }
  schema.order_by.assign(proto.order_by().begin(), proto.order_by().end());
  schema.primary_key.assign(proto.primary_key().begin(), proto.primary_key().end());
  schema.partition_by = proto.partition_by();
  schema.engine = proto.engine();
  for (const auto& [key, value] : proto.settings()) schema.settings[key] = value;
  return schema;
}

void SchemaToProto(const storage::TableSchema& schema, pb::TableSchema* proto) {
  proto->set_name(schema.name);
  for (const auto& column : schema.columns) {
    pb::ColumnSpec* spec = proto->add_columns();
    spec->set_name(column.name);
    spec->set_type(static_cast<uint32_t>(column.type));
  }
  for (const auto& key : schema.order_by) proto->add_order_by(key);
  for (const auto& key : schema.primary_key) proto->add_primary_key(key);
  proto->set_partition_by(schema.partition_by);
  proto->set_engine(schema.engine);
  for (const auto& [key, value] : schema.settings) (*proto->mutable_settings())[key] = value;
}

absl::StatusOr<core::Block> BlockFromProto(const pb::BlockData& data) {
  ASSIGN_OR_RETURN(std::string raw, core::DecompressLz4(data.data(), data.raw_size()));
  return core::DecodeBlock(raw);
}

}  // namespace

grpc::Status WorkerService::Execute(grpc::ServerContext* context, const pb::Fragment* fragment,
                                    grpc::ServerWriter<pb::FragmentChunk>* writer) {
  // The pool threads poll this flag between morsels; a watcher mirrors the RPC's cancellation.
  std::atomic<bool> cancelled{false};
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done.load()) {
      if (context->IsCancelled()) {
        cancelled = true;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  absl::Status status = executor_.Run(*fragment, cancelled, [&](const pb::FragmentChunk& chunk) {
    return writer->Write(chunk);
  });
  done = true;
  watcher.join();
  return core::ToGrpcStatus(status);
}

grpc::Status WorkerService::Insert(grpc::ServerContext* context, const pb::InsertRequest* request,
                                   pb::InsertResponse* response) {
  std::shared_ptr<storage::Table> table = store_->GetTable(request->table());
  if (!table) {
    return core::ToGrpcStatus(core::Error(core::ErrorCode::kUnknownTable,
                                          "Table default." + request->table() + " does not exist"));
  }
  absl::StatusOr<core::Block> block = BlockFromProto(request->block());
  if (!block.ok()) return core::ToGrpcStatus(block.status());
  absl::StatusOr<std::string> part = table->Insert(*block);
  if (!part.ok()) return core::ToGrpcStatus(part.status());
  response->set_rows(block->rows());
  response->set_part(*part);
  return grpc::Status::OK;
}

grpc::Status WorkerService::CreateTable(grpc::ServerContext* context,
                                        const pb::CreateTableRequest* request,
                                        pb::DdlResponse* response) {
  return core::ToGrpcStatus(store_->CreateTable(SchemaFromProto(request->schema()),
                                                request->if_not_exists(), request->or_replace()));
}

grpc::Status WorkerService::DropTable(grpc::ServerContext* context,
                                      const pb::DropTableRequest* request,
                                      pb::DdlResponse* response) {
  return core::ToGrpcStatus(store_->DropTable(request->name(), request->if_exists()));
}

grpc::Status WorkerService::ListTables(grpc::ServerContext* context,
                                       const pb::ListTablesRequest* request,
                                       pb::ListTablesResponse* response) {
  for (const auto& table : store_->Tables()) {
    pb::TableInfo* info = response->add_tables();
    SchemaToProto(table->schema(), info->mutable_schema());
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
  return grpc::Status::OK;
}

grpc::Status WorkerService::ListParts(grpc::ServerContext* context,
                                      const pb::ListPartsRequest* request,
                                      pb::ListPartsResponse* response) {
  for (const auto& table : store_->Tables()) {
    auto snapshot = table->Snapshot();
    for (const auto& part : snapshot->parts) {
      pb::PartInfo* info = response->add_parts();
      info->set_table(table->schema().name);
      info->set_name(part->name());
      info->set_rows(part->rows());
      info->set_bytes_on_disk(part->size_on_disk());
      info->set_active(true);
      info->set_partition("all");
    }
  }
  return grpc::Status::OK;
}

}  // namespace granite::worker
