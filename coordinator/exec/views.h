// Views (CREATE VIEW name [(c1, c2)] AS SELECT ...): stored like a table, as a schema with
// ENGINE = View on every worker, its SELECT's text in the schema's settings under
// kViewQuerySetting (with a column list, wrapped so that its columns carry those names). Storage
// never reads that setting (unknown table settings are kept as they are). A SELECT naming a view
// reads it as a subquery (ExpandViews), so a view always shows its tables' current rows.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/sql/ast.h"
#include "core/table_schema.h"

namespace granite::coordinator {

inline constexpr char kViewEngine[] = "View";
inline constexpr char kViewQuerySetting[] = "view_query";

bool IsView(const core::TableSchema& schema);

// The schema of `create` (a CREATE VIEW) whose SELECT gives columns `names` of `types`.
// Errors: NUMBER_OF_COLUMNS_DOESNT_MATCH (a column list of another length), DUPLICATE_COLUMN.
absl::StatusOr<core::TableSchema> ViewSchema(const sql::CreateTableStatement& create,
                                             const std::vector<std::string>& names,
                                             const std::vector<core::TypeId>& types,
                                             uint32_t shard_count);

// The view a table reference names, if it names one (nullopt for tables, table functions,
// subqueries and unknown names).
using ViewLookup =
    std::function<std::optional<core::TableSchema>(const sql::TableRef& ref)>;

// Returns `select` with each FROM / JOIN table that names a view replaced by the view's SELECT
// (aliased by the view's name unless the reference has an alias). Errors: those of parsing a
// stored view (CORRUPTED_DATA-like syntax errors name the view).
absl::StatusOr<sql::SelectStatement> ExpandViews(const sql::SelectStatement& select,
                                                 const ViewLookup& lookup);

}  // namespace granite::coordinator
