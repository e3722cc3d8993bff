// QueryExecutor: runs one SQL statement on the cluster — parse, then per statement kind: SELECT
// (bind, fan out or run locally, bucketed merge, final stage), INSERT, CREATE / DROP TABLE,
// SHOW TABLES, DESCRIBE. Formatting is left to the caller (the gRPC service).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/catalog.h"
#include "coordinator/query_context.h"
#include "coordinator/query_plan.h"
#include "coordinator/sql/ast.h"
#include "coordinator/worker_set.h"
#include "core/block.h"
#include "core/thread_pool.h"

namespace granite::coordinator {

// Holds what a statement produced.
struct QueryResult {
  bool has_rows = false;  // SELECT / SHOW / DESCRIBE: a result set to format
  std::vector<std::string> names;
  std::vector<core::TypeId> types;
  core::Block block;
  std::string format;  // FORMAT clause of the statement, empty if none
  uint64_t written_rows = 0;
};

// Executes statements against one cluster.
// Thread-safety: Execute() runs concurrently for many queries.
class QueryExecutor {
 public:
  QueryExecutor(const WorkerSet* workers, Catalog* catalog, core::ThreadPool* pool)
      : workers_(workers), catalog_(catalog), pool_(pool) {}

  // Runs `sql`; `input` is the data streamed with it (for INSERT ... FORMAT).
  absl::StatusOr<QueryResult> Execute(std::string_view sql, std::string_view input,
                                      QueryContext* query);

 private:
  absl::StatusOr<QueryResult> Select(const sql::SelectStatement& select, QueryContext* query);
  // Runs a planned SELECT and returns its result block.
  absl::StatusOr<core::Block> Run(const QueryPlan& plan, QueryContext* query);
  absl::StatusOr<core::Block> RunLocal(const QueryPlan& plan);
  absl::StatusOr<QueryResult> Insert(const sql::InsertStatement& insert, std::string_view input,
                                     QueryContext* query);
  absl::StatusOr<QueryResult> ShowTables(const sql::ShowTablesStatement& show);
  absl::StatusOr<QueryResult> Describe(const sql::DescribeStatement& describe);

  const WorkerSet* workers_;
  Catalog* catalog_;
  core::ThreadPool* pool_;
};

}  // namespace granite::coordinator
