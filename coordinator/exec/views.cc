#include "coordinator/exec/views.h"

#include <set>

#include "core/error.h"
#include "core/status_macros.h"
#include "coordinator/exec/catalog_statements.h"
#include "coordinator/sql/parser.h"

namespace granite::coordinator {

using core::ErrorCode;

bool IsView(const core::TableSchema& schema) { return schema.engine == kViewEngine; }

absl::StatusOr<core::TableSchema> ViewSchema(const sql::CreateTableStatement& create,
                                             const std::vector<std::string>& names,
                                             const std::vector<core::TypeId>& types,
                                             uint32_t shard_count) {
  core::TableSchema schema;
  schema.name = create.name;
  schema.engine = kViewEngine;
  schema.shard_count = shard_count;
  std::string query = create.view_query;
  std::vector<std::string> columns = names;
  if (!create.view_columns.empty()) {
    if (create.view_columns.size() != names.size()) {
      return core::Error(ErrorCode::kNumberOfColumnsDoesntMatch,
                         "The view " + create.name + " names " +
                             std::to_string(create.view_columns.size()) +
                             " columns but its SELECT gives " + std::to_string(names.size()));
    }
    query = "SELECT ";
    for (size_t i = 0; i < names.size(); ++i) {
      query += (i > 0 ? ", " : "") + BackQuoted(names[i]) + " AS " +
               BackQuoted(create.view_columns[i]);
    }
    query += " FROM (" + create.view_query + ")";
    columns = create.view_columns;
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (!seen.insert(columns[i]).second) {
      return core::Error(ErrorCode::kDuplicateColumn,
                         "Column " + columns[i] + " appears twice in view " + create.name);
    }
    schema.columns.push_back({columns[i], types[i]});
  }
  schema.settings[kViewQuerySetting] = query;
  return schema;
}

absl::StatusOr<sql::SelectStatement> ExpandViews(const sql::SelectStatement& select,
                                                 const ViewLookup& lookup) {
  sql::SelectStatement out = select;
  auto expand = [&lookup](sql::TableRef* ref) -> absl::Status {
    if (ref->is_function || ref->subquery) return absl::OkStatus();
    std::optional<core::TableSchema> view = lookup(*ref);
    if (!view) return absl::OkStatus();
    auto query = view->settings.find(kViewQuerySetting);
    if (query == view->settings.end()) {
      return core::Error(ErrorCode::kCorruptedData, "View " + ref->name + " has no query");
    }
    absl::StatusOr<sql::Statement> parsed = sql::ParseStatement(query->second);
    if (!parsed.ok() || !std::holds_alternative<sql::SelectStatement>(*parsed)) {
      return core::Error(ErrorCode::kCorruptedData,
                         "The stored query of view " + ref->name + " does not parse: " +
                             std::string(parsed.status().message()));
    }
    ref->subquery = std::make_shared<sql::SelectStatement>(
        std::get<sql::SelectStatement>(*std::move(parsed)));
    if (ref->alias.empty()) ref->alias = ref->name;
    ref->name.clear();
    ref->database.clear();
    return absl::OkStatus();
  };
  if (out.from) RETURN_IF_ERROR(expand(&*out.from));
  for (sql::JoinClause& join : out.joins) RETURN_IF_ERROR(expand(&join.table));
  return out;
}

}  // namespace granite::coordinator
