#include "coordinator/ddl_executor.h"

#include <grpcpp/grpcpp.h>

#include <map>
#include <optional>
#include <set>

#include "core/error.h"
#include "core/settings/settings.h"
#include "core/rpc_status.h"
#include "core/status_macros.h"
#include "core/types.h"
#include "coordinator/sharding_key.h"
#include "coordinator/sql/parser.h"

namespace granite::coordinator {

namespace pb = granite::worker::v1;
using core::ErrorCode;

namespace {

constexpr auto kDdlTimeout = std::chrono::seconds(60);

void SetDeadline(grpc::ClientContext* context) {
  context->set_deadline(std::chrono::system_clock::now() + kDdlTimeout);
}

absl::StatusOr<pb::TableSchema> SchemaFrom(const sql::CreateTableStatement& create,
                                           size_t worker_count) {
  pb::TableSchema schema;
  schema.set_name(create.name);
  std::set<std::string> seen;
  for (const sql::ColumnDef& column : create.columns) {
    if (!seen.insert(column.name).second) {
      return core::Error(ErrorCode::kDuplicateColumn,
                         "Column " + column.name + " is declared twice in table " + create.name);
    }
    absl::StatusOr<core::TypeId> type = core::ParseType(column.type);
    if (!type.ok()) {
      return core::Error(ErrorCode::kUnknownType,
                         std::string(type.status().message()) + " (column " + column.name +
                             ", at position " + std::to_string(column.position + 1) + ")");
    }
    pb::ColumnSpec* spec = schema.add_columns();
    spec->set_name(column.name);
    spec->set_type(static_cast<uint32_t>(*type));
  }
  if (create.columns.empty()) {
    return core::Error(ErrorCode::kEmptyListOfColumnsPassed,
                       "Table " + create.name + " must have at least one column");
  }
  // Keys are stored as written; storage uses plain column names, and checks them below.
  auto add_keys = [&](const std::vector<sql::ExprPtr>& exprs,
                      google::protobuf::RepeatedPtrField<std::string>* out) -> absl::Status {
    for (const auto& expr : exprs) {
      std::string name = sql::ColumnName(*expr);
      if (expr->kind == sql::ExprKind::kIdentifier && !seen.count(expr->name)) {
        return core::Error(ErrorCode::kUnknownIdentifier,
                           "Missing column " + expr->name + " in the key of table " + create.name);
      }
      out->Add(std::move(name));
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(add_keys(create.order_by, schema.mutable_order_by()));
  RETURN_IF_ERROR(add_keys(create.primary_key, schema.mutable_primary_key()));
  if (create.partition_by) schema.set_partition_by(sql::ColumnName(*create.partition_by));
  schema.set_engine(create.engine.empty() ? "MergeTree" : create.engine);
  for (const auto& [key, value] : create.settings) {
    RETURN_IF_ERROR(core::TableSettings().Set(key, value));  // UNKNOWN_SETTING, BAD_ARGUMENTS
    if (key == kShardingKeySetting) {
      // Kept in its own fields (with the worker count the routing depends on), not as a setting.
      ASSIGN_OR_RETURN(std::vector<std::string> columns, ParseShardingKey(value, schema));
      for (std::string& column : columns) schema.add_sharding_key(std::move(column));
      schema.set_shard_count(static_cast<uint32_t>(worker_count));
      continue;
    }
    (*schema.mutable_settings())[key] = value;
  }
  return schema;
}

// Returns the number of rows of table `name` summed over every worker; fails if a worker does not
// answer (then emptiness cannot be proven).
absl::StatusOr<uint64_t> ClusterRowCount(const std::string& name, const WorkerSet& workers) {
  std::vector<uint64_t> rows(workers.size(), 0);
  RETURN_IF_ERROR(workers.CallAll([&](size_t i) -> absl::Status {
    grpc::ClientContext context;
    SetDeadline(&context);
    pb::ListTablesResponse response;
    RETURN_IF_ERROR(core::FromGrpcStatus(
        workers.stub(i)->ListTables(&context, pb::ListTablesRequest(), &response),
        workers.address(i)));
    for (const auto& table : response.tables()) {
      if (table.schema().name() == name) rows[i] += table.rows();
    }
    return absl::OkStatus();
  }));
  uint64_t total = 0;
  for (uint64_t count : rows) total += count;
  return total;
}

// Sends `request` to every worker, then records its schema in the catalog.
absl::Status CreateOnWorkers(const pb::CreateTableRequest& request, const WorkerSet& workers,
                             Catalog* catalog) {
  RETURN_IF_ERROR(workers.CallAll([&](size_t i) {
    grpc::ClientContext context;
    SetDeadline(&context);
    pb::DdlResponse response;
    return core::FromGrpcStatus(workers.stub(i)->CreateTable(&context, request, &response),
                                workers.address(i));
  }));
  catalog->Put(request.schema());
  return absl::OkStatus();
}

}  // namespace

absl::Status AlterTableSettings(const sql::AlterSettingsStatement& alter, const WorkerSet& workers,
                                Catalog* catalog) {
  RETURN_IF_ERROR(EnsureCatalog(workers, catalog));
  std::optional<pb::TableSchema> current = catalog->Find(alter.table);
  if (!current) {
    return core::Error(ErrorCode::kUnknownTable,
                       "Table default." + alter.table + " does not exist");
  }
  pb::TableSchema schema = *current;
  auto only_sharding_key = [&](const std::string& name) -> absl::Status {
    if (name == kShardingKeySetting) return absl::OkStatus();
    return core::Error(ErrorCode::kNotImplemented,
                       "ALTER TABLE default." + alter.table + " cannot change setting " + name +
                           ": only " + kShardingKeySetting + " can be changed");
  };
  for (const std::string& name : alter.reset) {
    RETURN_IF_ERROR(only_sharding_key(name));
    schema.clear_sharding_key();
    schema.set_shard_count(0);
  }
  for (const auto& [name, value] : alter.modify) {
    RETURN_IF_ERROR(core::TableSettings().Set(name, value));
    RETURN_IF_ERROR(only_sharding_key(name));
    ASSIGN_OR_RETURN(std::vector<std::string> columns, ParseShardingKey(value, schema));
    schema.clear_sharding_key();
    for (std::string& column : columns) schema.add_sharding_key(std::move(column));
    schema.set_shard_count(static_cast<uint32_t>(workers.size()));
  }
  ASSIGN_OR_RETURN(uint64_t rows, ClusterRowCount(alter.table, workers));
  if (rows > 0) {
    return core::Error(ErrorCode::kBadArguments,
                       "Cannot change sharding_key of table default." + alter.table +
                           ": it holds " + std::to_string(rows) +
                           " rows (the key decides which worker each row lives on, so it can be "
                           "changed only while the table is empty)");
  }
  pb::CreateTableRequest request;
  *request.mutable_schema() = schema;
  request.set_or_replace(true);  // the table is empty: replacing it loses nothing
  return CreateOnWorkers(request, workers, catalog);
}

absl::Status EnsureCatalog(const WorkerSet& workers, Catalog* catalog) {
  if (catalog->loaded()) return absl::OkStatus();
  // The union of every reachable worker's tables: one worker being down must not stop queries
  // that do not need it (system.workers, or tables the others hold a copy of the schema of).
  std::vector<pb::ListTablesResponse> responses(workers.size());
  std::vector<absl::Status> statuses(workers.size());
  workers.CallAll([&](size_t i) {
    grpc::ClientContext context;
    SetDeadline(&context);
    statuses[i] = core::FromGrpcStatus(
        workers.stub(i)->ListTables(&context, pb::ListTablesRequest(), &responses[i]),
        workers.address(i));
    return absl::OkStatus();
  }).IgnoreError();
  size_t answered = 0;
  for (const absl::Status& status : statuses) answered += status.ok();
  if (answered == 0) return statuses[0];
  std::map<std::string, pb::TableSchema> tables;
  for (const auto& response : responses) {
    for (const auto& table : response.tables()) tables[table.schema().name()] = table.schema();
  }
  std::vector<pb::TableSchema> schemas;
  for (auto& [name, schema] : tables) schemas.push_back(std::move(schema));
  catalog->Reset(schemas);
  return absl::OkStatus();
}

absl::Status CreateTable(const sql::CreateTableStatement& create, const WorkerSet& workers,
                         Catalog* catalog) {
  RETURN_IF_ERROR(EnsureCatalog(workers, catalog));
  ASSIGN_OR_RETURN(pb::TableSchema schema, SchemaFrom(create, workers.size()));
  if (catalog->Find(create.name)) {
    if (create.if_not_exists) return absl::OkStatus();
    if (!create.or_replace) {
      return core::Error(ErrorCode::kTableAlreadyExists,
                         "Table default." + create.name + " already exists");
    }
  }
  pb::CreateTableRequest request;
  *request.mutable_schema() = schema;
  request.set_if_not_exists(create.if_not_exists);
  request.set_or_replace(create.or_replace);
  return CreateOnWorkers(request, workers, catalog);
}

absl::Status DropTable(const sql::DropTableStatement& drop, const WorkerSet& workers,
                       Catalog* catalog) {
  RETURN_IF_ERROR(EnsureCatalog(workers, catalog));
  if (!catalog->Find(drop.name)) {
    if (drop.if_exists) return absl::OkStatus();
    return core::Error(ErrorCode::kUnknownTable, "Table default." + drop.name + " does not exist");
  }
  pb::DropTableRequest request;
  request.set_name(drop.name);
  request.set_if_exists(true);  // a worker that missed the CREATE must not fail the DROP
  RETURN_IF_ERROR(workers.CallAll([&](size_t i) {
    grpc::ClientContext context;
    SetDeadline(&context);
    pb::DdlResponse response;
    return core::FromGrpcStatus(workers.stub(i)->DropTable(&context, request, &response),
                                workers.address(i));
  }));
  catalog->Remove(drop.name);
  return absl::OkStatus();
}

}  // namespace granite::coordinator
