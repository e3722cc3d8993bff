#include "coordinator/exec/catalog_statements.h"
#include "coordinator/exec/views.h"

#include <chrono>
#include <memory>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "coordinator/cluster/table_name.h"
#include "coordinator/cluster/worker_client.h"
#include "coordinator/exec/ddl_executor.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "core/types.h"

namespace granite::coordinator {
namespace {

using core::ErrorCode;
using core::worker_api::CatalogOpRequest;

// --- Name resolution -------------------------------------------------------------------------

absl::Status UnknownDatabase(const std::string& name) {
  return core::Error(ErrorCode::kUnknownDatabase, "Database " + name + " does not exist");
}

// Resolves table names as written against the current database and checks their databases.
class NameResolver {
 public:
  NameResolver(const QueryContext& query, const WorkerSet& workers, Catalog* catalog)
      : query_(query), workers_(workers), catalog_(catalog) {}

  // Resolves `*name` in place; `write` for statements that change the table.
  absl::Status Resolve(std::string* name, bool write) {
    std::string resolved = ResolveTableName(*name, query_.database);
    QualifiedTable parts = SplitTableName(resolved);
    if (parts.database == kSystemDatabase) {
      if (write) {
        return core::Error(ErrorCode::kDatabaseAccessDenied,
                           "Database system is read-only: cannot change table system." +
                               parts.table);
      }
    } else {
      RETURN_IF_ERROR(CheckDatabase(parts.database));
    }
    changed_ |= resolved != *name;
    *name = std::move(resolved);
    return absl::OkStatus();
  }

  absl::Status CheckDatabase(const std::string& database) {
    if (database == kDefaultDatabase || database == kSystemDatabase) return absl::OkStatus();
    RETURN_IF_ERROR(EnsureCatalog(workers_, catalog_));
    if (!catalog_->HasDatabase(database)) return UnknownDatabase(database);
    return absl::OkStatus();
  }

  bool changed() const { return changed_; }

 private:
  const QueryContext& query_;
  const WorkerSet& workers_;
  Catalog* catalog_;
  bool changed_ = false;
};

// --- Worker calls ---------------------------------------------------------------------------

absl::Status CatalogOpEverywhere(const WorkerSet& workers, const CatalogOpRequest& request) {
  return workers.CallAll([&](size_t i) {
    return WorkerClient(workers).CatalogOp(i, request, std::chrono::seconds(60));
  });
}

// Reloads the catalog from every worker, failing unless all answer (DDL changes every worker or
// none, so it must see them all first).
absl::Status ReloadCatalog(const WorkerSet& workers, Catalog* catalog, const std::string& what) {
  catalog->Invalidate();
  RETURN_IF_ERROR(EnsureCatalog(workers, catalog));
  return workers.CallAll([&](size_t i) -> absl::Status {
    absl::Status status =
        WorkerClient(workers).ListTables(i, std::chrono::seconds(60)).status();
    if (status.ok()) return status;
    return core::Error(core::CodeOf(status),
                       "Cannot " + what + ": worker " + std::to_string(i) + " (" +
                           workers.address(i) +
                           ") does not answer, and DDL changes every worker or none, so nothing "
                           "was changed (" + std::string(status.message()) + ")");
  });
}

// Runs `request` on every worker; if one fails, the catalog is reloaded by the next query.
absl::Status ApplyEverywhere(const CatalogStatementContext& context,
                             const CatalogOpRequest& request, const std::string& again) {
  absl::Status status = CatalogOpEverywhere(*context.workers, request);
  if (status.ok()) return status;
  context.catalog->Invalidate();
  return core::Error(core::CodeOf(status),
                     std::string(status.message()) + " (" + again +
                         " again completes it on the workers that did not change)");
}

// --- Statements -----------------------------------------------------------------------------

absl::Status CreateOrDropDatabase(const sql::DatabaseStatement& database,
                                  const CatalogStatementContext& context) {
  const std::string& name = database.name;
  const std::string verb = database.drop ? "drop" : "create";
  if (name.empty() || name.find('.') != std::string::npos) {
    return core::Error(ErrorCode::kBadArguments,
                       "Database name '" + name + "' is not allowed (empty or with a '.')");
  }
  core::MutexLock ddl(DdlMutex());
  RETURN_IF_ERROR(ReloadCatalog(*context.workers, context.catalog, verb + " database " + name));
  const bool exists = context.catalog->HasDatabase(name);
  CatalogOpRequest request;
  request.name = name;
  request.if_exists = true;
  if (!database.drop) {
    if (exists) {
      if (database.if_not_exists) return absl::OkStatus();
      return core::Error(ErrorCode::kDatabaseAlreadyExists, "Database " + name + " already exists");
    }
    request.kind = CatalogOpRequest::Kind::kCreateDatabase;
    RETURN_IF_ERROR(ApplyEverywhere(context, request, "CREATE DATABASE " + name));
    context.catalog->PutDatabase(name);
    return absl::OkStatus();
  }
  if (name == kSystemDatabase || name == kDefaultDatabase) {
    return core::Error(ErrorCode::kDatabaseAccessDenied, "Cannot drop database " + name);
  }
  if (!exists) {
    if (database.if_exists) return absl::OkStatus();
    return UnknownDatabase(name);
  }
  request.kind = CatalogOpRequest::Kind::kDropDatabase;
  RETURN_IF_ERROR(ApplyEverywhere(context, request, "DROP DATABASE " + name));
  context.catalog->RemoveDatabase(name);
  return absl::OkStatus();
}

absl::Status Truncate(const sql::TruncateStatement& truncate,
                      const CatalogStatementContext& context) {
  core::MutexLock ddl(DdlMutex());
  const std::string shown = DisplayTableName(truncate.table);
  RETURN_IF_ERROR(ReloadCatalog(*context.workers, context.catalog, "truncate table " + shown));
  absl::StatusOr<core::TableSchema> schema = context.catalog->Lookup(truncate.table);
  if (!schema.ok()) {
    if (truncate.if_exists && core::CodeOf(schema.status()) == ErrorCode::kUnknownTable) {
      return absl::OkStatus();
    }
    return schema.status();
  }
  CatalogOpRequest request;
  request.kind = CatalogOpRequest::Kind::kTruncateTable;
  request.name = truncate.table;
  return ApplyEverywhere(context, request, "TRUNCATE TABLE " + shown);
}

absl::Status Rename(const sql::RenameStatement& rename, const CatalogStatementContext& context) {
  core::MutexLock ddl(DdlMutex());
  RETURN_IF_ERROR(ReloadCatalog(*context.workers, context.catalog, "rename tables"));
  // Checked as a whole first, as if applied one after the other.
  std::map<std::string, std::optional<core::TableSchema>> after;
  auto lookup = [&](const std::string& name) -> std::optional<core::TableSchema> {
    if (auto it = after.find(name); it != after.end()) return it->second;
    return context.catalog->Find(name);
  };
  for (const auto& [from, to] : rename.renames) {
    if (!lookup(from)) {
      if (!after.contains(from)) RETURN_IF_ERROR(context.catalog->Lookup(from).status());
      return core::Error(ErrorCode::kUnknownTable,
                         "Table " + DisplayTableName(from) + " does not exist");
    }
    if (lookup(to)) {
      return core::Error(ErrorCode::kTableAlreadyExists,
                         "Table " + DisplayTableName(to) + " already exists");
    }
    core::TableSchema schema = *lookup(from);
    schema.name = to;
    after[from] = std::nullopt;
    after[to] = schema;
  }
  for (const auto& [from, to] : rename.renames) {
    CatalogOpRequest request;
    request.kind = CatalogOpRequest::Kind::kRenameTable;
    request.name = from;
    request.new_name = to;
    absl::Status status = CatalogOpEverywhere(*context.workers, request);
    if (!status.ok()) {
      context.catalog->Invalidate();
      return core::Error(core::CodeOf(status),
                         "Cannot rename table " + DisplayTableName(from) + " to " +
                             DisplayTableName(to) + ": " + std::string(status.message()) +
                             " (the workers may now disagree: system.tables shows the table "
                             "unusable, and RENAME or DROP on it converges them)");
    }
    std::optional<core::TableSchema> schema = context.catalog->Find(from);
    context.catalog->Remove(from);
    if (schema) {
      schema->name = to;
      context.catalog->Put(*schema);
    }
  }
  return absl::OkStatus();
}

// --- Result sets ----------------------------------------------------------------------------

QueryResult Rows(std::vector<std::string> names, std::vector<core::TypeId> types,
                 core::Block block, std::string format) {
  QueryResult result;
  result.has_rows = true;
  result.names = std::move(names);
  result.types = std::move(types);
  result.block = std::move(block);
  result.format = std::move(format);
  return result;
}

QueryResult StringRows(std::vector<std::string> names,
                       const std::vector<std::vector<std::string>>& rows, std::string format) {
  core::Block block;
  block.rows_without_columns = rows.size();
  for (size_t c = 0; c < names.size(); ++c) {
    auto column = std::make_shared<core::Column>(core::TypeId::kString);
    for (const auto& row : rows) column->AppendString(row[c]);
    block.columns.push_back(std::move(column));
  }
  std::vector<core::TypeId> types(names.size(), core::TypeId::kString);
  return Rows(std::move(names), std::move(types), std::move(block), std::move(format));
}

sql::ExprPtr Identifier(std::string name) {
  auto expr = std::make_shared<sql::Expr>();
  expr->kind = sql::ExprKind::kIdentifier;
  expr->name = std::move(name);
  return expr;
}

sql::ExprPtr Literal(std::string value) {
  auto expr = std::make_shared<sql::Expr>();
  expr->kind = sql::ExprKind::kLiteral;
  expr->value = std::move(value);
  return expr;
}

sql::ExprPtr Call(std::string name, std::vector<sql::ExprPtr> args) {
  auto expr = std::make_shared<sql::Expr>();
  expr->kind = sql::ExprKind::kFunction;
  expr->name = std::move(name);
  expr->args = std::move(args);
  return expr;
}

sql::ExprPtr And(sql::ExprPtr a, sql::ExprPtr b) {
  if (a == nullptr) return b;
  return Call("and", {std::move(a), std::move(b)});
}

sql::ExprPtr LikeCondition(const std::string& column, const std::string& pattern, bool negated,
                           bool ilike) {
  std::string function = ilike ? "ilike" : "like";
  if (negated) function = ilike ? "notILike" : "notLike";
  return Call(function, {Identifier(column), Literal(pattern)});
}

// SELECT <column> FROM system.<table> WHERE <where> ORDER BY <column> [FORMAT f]
sql::SelectStatement SystemSelect(std::string table, std::vector<std::string> columns,
                                  sql::ExprPtr where, std::string order, std::string format) {
  sql::SelectStatement select;
  for (std::string& column : columns) {
    if (column == "*") {
      auto star = std::make_shared<sql::Expr>();
      star->kind = sql::ExprKind::kStar;
      select.select.push_back(std::move(star));
    } else {
      select.select.push_back(Identifier(std::move(column)));
    }
  }
  sql::TableRef from;
  from.database = std::string(kSystemDatabase);
  from.name = std::move(table);
  select.from = std::move(from);
  select.where = std::move(where);
  if (!order.empty()) select.order_by.push_back(sql::OrderItem{Identifier(std::move(order))});
  select.format = std::move(format);
  return select;
}

absl::StatusOr<QueryResult> Describe(const sql::DescribeStatement& describe,
                                     const CatalogStatementContext& context) {
  std::vector<core::ColumnSchema> columns;
  QualifiedTable table = SplitTableName(describe.table);
  if (table.database == kSystemDatabase) {
    ASSIGN_OR_RETURN(LocalTable local, context.system_tables(table.table));
    for (size_t i = 0; i < local.names.size(); ++i) {
      columns.push_back(core::ColumnSchema{local.names[i], local.types[i]});
    }
  } else {
    RETURN_IF_ERROR(EnsureCatalog(*context.workers, context.catalog));
    ASSIGN_OR_RETURN(core::TableSchema schema, context.catalog->Lookup(describe.table));
    for (core::DeclaredColumn& declared : core::DeclaredColumns(schema)) {
      // DESCRIBE shows a named tuple's pretty name, as ClickHouse does.
      absl::StatusOr<std::optional<core::CompoundLayout>> layout =
          core::ParseCompoundType(declared.column.compound_type);
      if (layout.ok() && *layout) declared.column.compound_type = (*layout)->pretty_name;
      columns.push_back(std::move(declared.column));
    }
  }
  std::vector<std::vector<std::string>> rows;
  for (const core::ColumnSchema& column : columns) {
    rows.push_back({column.name, column.DeclaredTypeName(),
                    std::string(core::DefaultKindName(column.default_kind)),
                    column.default_expression, column.comment,
                    column.codec, ""});
  }
  return StringRows({"name", "type", "default_type", "default_expression", "comment",
                     "codec_expression", "ttl_expression"},
                    rows, describe.format);
}

absl::StatusOr<QueryResult> Show(const sql::ShowStatement& show, QueryContext* query,
                                 const CatalogStatementContext& context) {
  using Kind = sql::ShowStatement::Kind;
  switch (show.kind) {
    case Kind::kDatabases: {
      sql::ExprPtr where;
      if (show.has_like) where = LikeCondition("name", show.like, show.not_like, false);
      return context.run_select(SystemSelect("databases", {"name"}, where, "name", show.format));
    }
    case Kind::kProcesslist:
      return context.run_select(SystemSelect("processes", {"*"}, nullptr, "", show.format));
    case Kind::kCreateTable: {
      if (SplitTableName(show.table).database == kSystemDatabase) {
        return core::Error(ErrorCode::kNotImplemented,
                           "SHOW CREATE TABLE of a system table is not supported");
      }
      RETURN_IF_ERROR(EnsureCatalog(*context.workers, context.catalog));
      ASSIGN_OR_RETURN(core::TableSchema schema, context.catalog->Lookup(show.table));
      return StringRows({"statement"}, {{ShowCreateTableText(schema)}}, show.format);
    }
    case Kind::kExists: {
      QualifiedTable table = SplitTableName(show.table);
      bool exists = false;
      if (table.database == kSystemDatabase) {
        exists = context.system_tables(table.table).ok();
      } else {
        RETURN_IF_ERROR(EnsureCatalog(*context.workers, context.catalog));
        exists = context.catalog->Find(show.table).has_value();
      }
      auto column = std::make_shared<core::Column>(core::TypeId::kUInt8);
      column->Append<uint8_t>(exists ? 1 : 0);
      core::Block block;
      block.columns.push_back(std::move(column));
      return Rows({"result"}, {core::TypeId::kUInt8}, std::move(block), show.format);
    }
  }
  return core::Error(ErrorCode::kLogicalError, "Unknown SHOW statement");
}

absl::StatusOr<QueryResult> ShowTables(const sql::ShowTablesStatement& show, QueryContext* query,
                                       const CatalogStatementContext& context) {
  const std::string database = show.database.empty() ? query->database : show.database;
  if (database != kSystemDatabase && database != kDefaultDatabase) {
    RETURN_IF_ERROR(EnsureCatalog(*context.workers, context.catalog));
    if (!context.catalog->HasDatabase(database)) return UnknownDatabase(database);
  }
  if (database == kSystemDatabase) {
    // The system tables granite has, answered from the provider.
    std::vector<std::vector<std::string>> rows;
    for (const char* name : {"clusters", "columns", "current_roles", "databases",
                             "detached_parts", "enabled_roles", "events",
                             "grants", "locks", "merges", "metrics", "one", "parts", "processes",
                             "query_log", "quota_usage", "quotas", "replicas", "role_grants",
                             "roles", "row_policies", "settings", "tables", "users",
                             "workers"}) {
      rows.push_back({name});
    }
    return StringRows({"name"}, rows, show.format);
  }
  sql::ExprPtr where = Call("equals", {Identifier("database"), Literal(database)});
  if (show.has_like) where = And(where, LikeCondition("name", show.like, show.not_like, show.ilike));
  return context.run_select(SystemSelect("tables", {"name"}, where, "name", show.format));
}

bool IsPlainIdentifier(const std::string& name) {
  if (name.empty() || absl::ascii_isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

std::string KeyText(const std::vector<std::string>& key) {
  if (key.size() == 1) return key[0];
  return "(" + absl::StrJoin(key, ", ") + ")";
}

std::string SettingValue(const std::string& value) {
  double number;
  if (absl::SimpleAtod(value, &number)) return value;
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "'";
}

std::string QuotedString(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "'";
}

}  // namespace

std::string BackQuoted(const std::string& name) {
  std::string out = "`";
  for (char c : name) {
    if (c == '`' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "`";
}

std::string ShowCreateTableText(const core::TableSchema& schema) {
  QualifiedTable name = SplitTableName(schema.name);
  auto quoted = [](const std::string& part) {
    return IsPlainIdentifier(part) ? part : BackQuoted(part);
  };
  const bool view = schema.engine == kViewEngine;
  std::string text = std::string(view ? "CREATE VIEW " : "CREATE TABLE ") +
                     quoted(name.database) + "." + quoted(name.table) + "\n(\n";
  const std::vector<core::DeclaredColumn> declared = core::DeclaredColumns(schema);
  for (size_t i = 0; i < declared.size(); ++i) {
    const core::ColumnSchema& column = declared[i].column;
    text += "    " + BackQuoted(column.name) + " " + column.DeclaredTypeName();
    if (column.default_kind != core::DefaultKind::kNone) {
      text += " " + std::string(core::DefaultKindName(column.default_kind)) + " " +
              column.default_expression;
    }
    if (!column.comment.empty()) text += " COMMENT " + QuotedString(column.comment);
    text += (column.codec.empty() ? "" : " CODEC(" + column.codec + ")") +
            std::string(i + 1 < declared.size() ? ",\n" : "\n");
  }
  if (view) {
    auto query = schema.settings.find(kViewQuerySetting);
    return text + ")\nAS " + (query == schema.settings.end() ? std::string() : query->second);
  }
  absl::StrAppend(&text, ")\nENGINE = ", schema.engine.empty() ? "MergeTree" : schema.engine);
  if (!schema.partition_by.empty()) absl::StrAppend(&text, "\nPARTITION BY ", schema.partition_by);
  if (!schema.primary_key.empty() && schema.primary_key != schema.order_by) {
    absl::StrAppend(&text, "\nPRIMARY KEY ", KeyText(schema.primary_key));
  }
  absl::StrAppend(&text, "\nORDER BY ",
                  schema.order_by.empty() ? std::string("tuple()") : KeyText(schema.order_by));
  std::vector<std::string> settings;
  for (const auto& [key, value] : schema.settings) {
    settings.push_back(key + " = " + SettingValue(value));
  }
  if (!schema.sharding_key.empty()) {
    settings.push_back("sharding_key = " + SettingValue(absl::StrJoin(schema.sharding_key, ", ")));
  }
  if (!settings.empty()) absl::StrAppend(&text, "\nSETTINGS ", absl::StrJoin(settings, ", "));
  return text;
}

absl::StatusOr<std::optional<sql::Statement>> ResolveTableNames(const sql::Statement& statement,
                                                                const QueryContext& query,
                                                                const WorkerSet& workers,
                                                                Catalog* catalog) {
  NameResolver resolver(query, workers, catalog);
  if (query.database != kDefaultDatabase) RETURN_IF_ERROR(resolver.CheckDatabase(query.database));
  sql::Statement copy = statement;
  absl::Status status = std::visit(
      [&](auto& s) -> absl::Status {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, sql::CreateTableStatement> ||
                      std::is_same_v<T, sql::DropTableStatement>) {
          return resolver.Resolve(&s.name, true);
        } else if constexpr (std::is_same_v<T, sql::InsertStatement> ||
                             std::is_same_v<T, sql::OptimizeStatement> ||
                             std::is_same_v<T, sql::AlterSettingsStatement> ||
                             std::is_same_v<T, sql::AlterPartStatement> ||
                             std::is_same_v<T, sql::TruncateStatement>) {
          return resolver.Resolve(&s.table, true);
        } else if constexpr (std::is_same_v<T, sql::DescribeStatement> ||
                             std::is_same_v<T, sql::CheckTableStatement>) {
          return resolver.Resolve(&s.table, false);
        } else if constexpr (std::is_same_v<T, sql::ShowStatement>) {
          if (s.table.empty()) return absl::OkStatus();
          return resolver.Resolve(&s.table, false);
        } else if constexpr (std::is_same_v<T, sql::RenameStatement>) {
          for (auto& [from, to] : s.renames) {
            RETURN_IF_ERROR(resolver.Resolve(&from, true));
            RETURN_IF_ERROR(resolver.Resolve(&to, true));
          }
          return absl::OkStatus();
        } else if constexpr (std::is_same_v<T, sql::ShowTablesStatement>) {
          if (!s.database.empty()) return resolver.CheckDatabase(s.database);
          return absl::OkStatus();
        } else {
          return absl::OkStatus();
        }
      },
      copy);
  RETURN_IF_ERROR(status);
  if (!resolver.changed()) return std::optional<sql::Statement>();
  return std::optional<sql::Statement>(std::move(copy));
}

bool IsCatalogStatement(const sql::Statement& statement) {
  return std::holds_alternative<sql::DatabaseStatement>(statement) ||
         std::holds_alternative<sql::UseStatement>(statement) ||
         std::holds_alternative<sql::ShowStatement>(statement) ||
         std::holds_alternative<sql::ShowTablesStatement>(statement) ||
         std::holds_alternative<sql::TruncateStatement>(statement) ||
         std::holds_alternative<sql::RenameStatement>(statement) ||
         std::holds_alternative<sql::DescribeStatement>(statement);
}

absl::StatusOr<QueryResult> ExecuteCatalogStatement(const sql::Statement& statement,
                                                    QueryContext* query,
                                                    const CatalogStatementContext& context) {
  if (const auto* database = std::get_if<sql::DatabaseStatement>(&statement)) {
    RETURN_IF_ERROR(CreateOrDropDatabase(*database, context));
    return QueryResult{};
  }
  if (const auto* use = std::get_if<sql::UseStatement>(&statement)) {
    if (use->database != kDefaultDatabase && use->database != kSystemDatabase) {
      RETURN_IF_ERROR(EnsureCatalog(*context.workers, context.catalog));
      if (!context.catalog->HasDatabase(use->database)) return UnknownDatabase(use->database);
    }
    query->database = use->database;
    query->session_database = use->database;
    return QueryResult{};
  }
  if (const auto* show = std::get_if<sql::ShowStatement>(&statement)) {
    return Show(*show, query, context);
  }
  if (const auto* show = std::get_if<sql::ShowTablesStatement>(&statement)) {
    return ShowTables(*show, query, context);
  }
  if (const auto* truncate = std::get_if<sql::TruncateStatement>(&statement)) {
    RETURN_IF_ERROR(Truncate(*truncate, context));
    return QueryResult{};
  }
  if (const auto* rename = std::get_if<sql::RenameStatement>(&statement)) {
    RETURN_IF_ERROR(Rename(*rename, context));
    return QueryResult{};
  }
  if (const auto* describe = std::get_if<sql::DescribeStatement>(&statement)) {
    return Describe(*describe, context);
  }
  return core::Error(ErrorCode::kLogicalError, "Not a catalog statement");
}

}  // namespace granite::coordinator
