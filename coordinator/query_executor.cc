#include "coordinator/query_executor.h"

#include "core/block_sort.h"
#include "core/error.h"
#include "core/fragment_pipeline.h"
#include "core/status_macros.h"
#include "coordinator/binder.h"
#include "coordinator/bucketed_merger.h"
#include "coordinator/ddl_executor.h"
#include "coordinator/fan_out.h"
#include "coordinator/final_stage.h"
#include "coordinator/insert_executor.h"
#include "coordinator/sql/parser.h"
#include "coordinator/system_tables.h"

namespace granite::coordinator {

namespace pb = granite::worker::v1;
using core::ErrorCode;
using core::TypeId;

namespace {

// Builds a one-String-column-per-name result from rows of strings.
QueryResult StringTable(std::vector<std::string> names,
                        const std::vector<std::vector<std::string>>& rows) {
  QueryResult result;
  result.has_rows = true;
  result.names = std::move(names);
  result.types.assign(result.names.size(), TypeId::kString);
  result.block.rows_without_columns = rows.size();
  for (size_t c = 0; c < result.names.size(); ++c) {
    auto column = std::make_shared<core::Column>(TypeId::kString);
    for (const auto& row : rows) column->AppendString(row[c]);
    result.block.columns.push_back(std::move(column));
  }
  return result;
}

std::vector<core::AggregateSpec> SpecsOf(const pb::Fragment& fragment) {
  std::vector<core::AggregateSpec> specs;
  for (const auto& call : fragment.aggregates()) {
    core::AggregateSpec spec;
    spec.name = call.name();
    for (const auto& arg : call.args()) spec.arg_types.push_back(static_cast<TypeId>(arg.type()));
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace

absl::StatusOr<QueryResult> QueryExecutor::Execute(std::string_view sql, std::string_view input,
                                                   QueryContext* query) {
  ASSIGN_OR_RETURN(sql::Statement statement, sql::ParseStatement(sql));
  if (auto* select = std::get_if<sql::SelectStatement>(&statement)) return Select(*select, query);
  if (auto* insert = std::get_if<sql::InsertStatement>(&statement)) {
    return Insert(*insert, input, query);
  }
  if (auto* create = std::get_if<sql::CreateTableStatement>(&statement)) {
    RETURN_IF_ERROR(CreateTable(*create, *workers_, catalog_));
    return QueryResult{};
  }
  if (auto* drop = std::get_if<sql::DropTableStatement>(&statement)) {
    RETURN_IF_ERROR(DropTable(*drop, *workers_, catalog_));
    return QueryResult{};
  }
  if (auto* show = std::get_if<sql::ShowTablesStatement>(&statement)) return ShowTables(*show);
  if (auto* describe = std::get_if<sql::DescribeStatement>(&statement)) return Describe(*describe);
  return core::Error(ErrorCode::kNotImplemented, "This statement is not supported yet");
}

absl::StatusOr<QueryResult> QueryExecutor::Select(const sql::SelectStatement& select,
                                                  QueryContext* query) {
  RETURN_IF_ERROR(EnsureCatalog(*workers_, catalog_));
  Binder binder(
      catalog_,
      [this](const std::string& name) { return BuildSystemTable(name, *workers_, *catalog_); },
      workers_->size());
  ASSIGN_OR_RETURN(QueryPlan plan, binder.Bind(select));
  QueryResult result;
  result.has_rows = true;
  result.names = plan.names;
  result.types = plan.types;
  result.format = plan.format;
  ASSIGN_OR_RETURN(result.block, Run(plan, query));
  return result;
}

absl::StatusOr<core::Block> QueryExecutor::RunLocal(const QueryPlan& plan) {
  ASSIGN_OR_RETURN(auto pipeline, core::FragmentPipeline::Compile(plan.fragment));
  ASSIGN_OR_RETURN(auto state, pipeline->NewLocalState());
  RETURN_IF_ERROR(pipeline->Consume(*state, plan.local_input));
  std::vector<std::unique_ptr<core::FragmentPipeline::LocalState>> states;
  states.push_back(std::move(state));
  if (!pipeline->aggregating()) return pipeline->FinishRows(std::move(states));
  ASSIGN_OR_RETURN(std::vector<core::Block> buckets,
                   pipeline->FinishBuckets(std::move(states), nullptr));
  BucketedMerger merger(pipeline->key_types(), pipeline->aggregate_specs(), 1, pool_);
  for (uint32_t b = 0; b < buckets.size(); ++b) merger.Add(0, b, std::move(buckets[b]));
  return merger.Finish();
}

absl::StatusOr<core::Block> QueryExecutor::Run(const QueryPlan& plan, QueryContext* query) {
  core::Block stage;
  if (plan.source == SourceKind::kLocal) {
    ASSIGN_OR_RETURN(stage, RunLocal(plan));
  } else if (plan.fragment.aggregate()) {
    std::vector<TypeId> key_types;
    for (const auto& key : plan.fragment.group_keys()) {
      key_types.push_back(static_cast<TypeId>(key.type()));
    }
    BucketedMerger merger(key_types, SpecsOf(plan.fragment), workers_->size(), pool_);
    RETURN_IF_ERROR(FanOut(*workers_, plan.fragment, query, &merger).status());
    ASSIGN_OR_RETURN(stage, merger.Finish());
    query->merge_ns += merger.merge_ns();
  } else {
    ASSIGN_OR_RETURN(auto per_worker, FanOut(*workers_, plan.fragment, query, nullptr));
    std::vector<core::Block> blocks;
    for (auto& worker_blocks : per_worker) {
      for (auto& block : worker_blocks) blocks.push_back(std::move(block));
    }
    stage = core::ConcatBlocks(blocks);
  }
  return RunFinalStage(plan, stage);
}

absl::StatusOr<QueryResult> QueryExecutor::Insert(const sql::InsertStatement& insert,
                                                  std::string_view input, QueryContext* query) {
  RETURN_IF_ERROR(EnsureCatalog(*workers_, catalog_));
  std::optional<pb::TableSchema> schema = catalog_->Find(insert.table);
  if (!schema) {
    return core::Error(ErrorCode::kUnknownTable, "Table default." + insert.table + " does not exist");
  }
  SelectRunner run_select = [&](const sql::SelectStatement& select) -> absl::StatusOr<core::Block> {
    ASSIGN_OR_RETURN(QueryResult result, Select(select, query));
    return result.block;
  };
  QueryResult result;
  ASSIGN_OR_RETURN(result.written_rows,
                   ExecuteInsert(insert, input, *schema, *workers_, run_select));
  return result;
}

absl::StatusOr<QueryResult> QueryExecutor::ShowTables(const sql::ShowTablesStatement& show) {
  RETURN_IF_ERROR(EnsureCatalog(*workers_, catalog_));
  std::vector<std::vector<std::string>> rows;
  for (const auto& schema : catalog_->All()) rows.push_back({schema.name()});
  QueryResult result = StringTable({"name"}, rows);
  result.format = show.format;
  return result;
}

absl::StatusOr<QueryResult> QueryExecutor::Describe(const sql::DescribeStatement& describe) {
  RETURN_IF_ERROR(EnsureCatalog(*workers_, catalog_));
  std::optional<pb::TableSchema> schema = catalog_->Find(describe.table);
  if (!schema) {
    return core::Error(ErrorCode::kUnknownTable,
                       "Table default." + describe.table + " does not exist");
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& column : schema->columns()) {
    rows.push_back({column.name(), std::string(core::TypeName(static_cast<TypeId>(column.type()))),
                    "", "", "", "", ""});
  }
  QueryResult result = StringTable({"name", "type", "default_type", "default_expression", "comment",
                                    "codec_expression", "ttl_expression"},
                                   rows);
  result.format = describe.format;
  return result;
}

}  // namespace granite::coordinator
