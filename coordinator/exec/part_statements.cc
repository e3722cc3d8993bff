#include "coordinator/exec/part_statements.h"

#include "coordinator/cluster/table_name.h"
#include "coordinator/cluster/worker_client.h"

#include <chrono>

#include "core/error.h"
#include "core/status_macros.h"
#include "coordinator/exec/ddl_executor.h"

namespace granite::coordinator {

using core::ErrorCode;
using core::TypeId;

namespace {

// Verifying reads whole parts: generous, as OPTIMIZE's.
constexpr auto kPartStatementTimeout = std::chrono::minutes(30);

}  // namespace

absl::Status AlterPart(const sql::AlterPartStatement& alter, const core::Settings& settings,
                       const WorkerSet& workers, Catalog* catalog) {
  RETURN_IF_ERROR(EnsureCatalog(workers, catalog));
  RETURN_IF_ERROR(catalog->Lookup(alter.table).status());
  if (alter.drop_detached && !settings.allow_drop_detached) {
    return core::Error(ErrorCode::kSupportIsDisabled,
                       "Cannot execute query: DROP DETACHED PART is disabled (see "
                       "allow_drop_detached setting)");
  }
  std::vector<absl::Status> results(workers.size());
  (void)workers.CallAll([&](size_t i) {
    const core::worker_api::DetachedPartRequest request{alter.table, alter.part};
    const WorkerClient client(workers);
    results[i] = alter.drop_detached
                     ? client.DropDetachedPart(i, request, kPartStatementTimeout)
                     : client.AttachPart(i, request, kPartStatementTimeout).status();
    return absl::OkStatus();
  });
  size_t done = 0;
  for (size_t i = 0; i < workers.size(); ++i) {
    if (results[i].ok()) {
      ++done;
    } else if (core::CodeOf(results[i]) != ErrorCode::kNoSuchDataPart) {
      return core::Error(core::CodeOf(results[i]),
                         "Worker " + std::to_string(i) + " (" + workers.address(i) +
                             "): " + std::string(results[i].message()));
    }
  }
  if (done == 0) {
    return core::Error(ErrorCode::kNoSuchDataPart,
                       "No detached part " + alter.part + " in table " + DisplayTableName(alter.table) +
                           " on any worker (system.detached_parts lists them)");
  }
  return absl::OkStatus();
}

absl::StatusOr<QueryResult> CheckTable(const sql::CheckTableStatement& check,
                                       const core::Settings& settings, const WorkerSet& workers,
                                       Catalog* catalog) {
  RETURN_IF_ERROR(EnsureCatalog(workers, catalog));
  RETURN_IF_ERROR(catalog->Lookup(check.table).status());
  std::vector<std::vector<core::worker_api::PartCheck>> responses(workers.size());
  RETURN_IF_ERROR(workers.CallAll([&](size_t i) -> absl::Status {
    ASSIGN_OR_RETURN(responses[i],
                     WorkerClient(workers).CheckTable(i, check.table, kPartStatementTimeout));
    return absl::OkStatus();
  }));
  QueryResult result;
  result.has_rows = true;
  result.format = check.format;
  if (settings.check_query_single_value_result) {
    bool passed = true;
    for (const auto& response : responses) {
      for (const auto& part : response) passed = passed && part.is_passed;
    }
    auto column = std::make_shared<core::Column>(TypeId::kUInt8);
    column->Append<uint8_t>(passed ? 1 : 0);
    result.names = {"result"};
    result.types = {TypeId::kUInt8};
    result.block.columns.push_back(std::move(column));
    result.block.rows_without_columns = 1;
    return result;
  }
  auto path = std::make_shared<core::Column>(TypeId::kString);
  auto passed = std::make_shared<core::Column>(TypeId::kUInt8);
  auto message = std::make_shared<core::Column>(TypeId::kString);
  auto worker = std::make_shared<core::Column>(TypeId::kUInt32);
  size_t rows = 0;
  for (size_t i = 0; i < responses.size(); ++i) {
    for (const auto& part : responses[i]) {
      path->AppendString(part.part_path);
      passed->Append<uint8_t>(part.is_passed ? 1 : 0);
      message->AppendString(part.message);
      worker->Append<uint32_t>(static_cast<uint32_t>(i));
      ++rows;
    }
  }
  result.names = {"part_path", "is_passed", "message", "worker"};
  result.types = {TypeId::kString, TypeId::kUInt8, TypeId::kString, TypeId::kUInt32};
  result.block.columns = {path, passed, message, worker};
  result.block.rows_without_columns = rows;
  return result;
}

}  // namespace granite::coordinator
