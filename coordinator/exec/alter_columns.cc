#include "coordinator/exec/alter_columns.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "coordinator/cluster/table_name.h"
#include "coordinator/cluster/worker_client.h"
#include "coordinator/exec/column_defaults.h"
#include "coordinator/planner/column_expressions.h"
#include "coordinator/exec/ddl_executor.h"
#include "coordinator/exec/table_write_gate.h"
#include "coordinator/sql/ast_build.h"
#include "core/codec_spec.h"
#include "core/error.h"
#include "core/schema_error_codes.h"
#include "core/status_macros.h"
#include "core/types.h"

namespace granite::coordinator {

using core::DefaultKind;
using core::ErrorCode;
using Kind = sql::AlterColumnCommand::Kind;

namespace {

constexpr auto kAlterTimeout = std::chrono::seconds(60);

// True when `text` (a key expression as written) mentions column `name` as a whole identifier.
bool Mentions(const std::string& text, const std::string& name) {
  auto is_word = [](char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const bool starts = at == 0 || !is_word(text[at - 1]);
    const size_t end = at + name.size();
    const bool ends = end == text.size() || !is_word(text[end]);
    if (starts && ends) return true;
  }
  return false;
}

// Returns `text` (an expression as written) with identifier `from` renamed to `to`: whole words
// outside string literals. ClickHouse's RENAME COLUMN renames the column in other columns'
// expressions too.
std::string RenameIdentifier(const std::string& text, const std::string& from,
                             const std::string& to) {
  auto is_word = [](char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '\'') {  // a string literal, copied as it is
      size_t end = i + 1;
      while (end < text.size() && text[end] != '\'') end += text[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, text.size());
      out.append(text, i, end - i);
      i = end;
      continue;
    }
    if (is_word(text[i]) && (i == 0 || !is_word(text[i - 1]))) {
      size_t end = i;
      while (end < text.size() && is_word(text[end])) ++end;
      const std::string word = text.substr(i, end - i);
      out += word == from ? to : word;
      i = end;
      continue;
    }
    out.push_back(text[i++]);
  }
  return out;
}

bool IsKeyColumn(const core::TableSchema& schema, const std::string& name) {
  for (const auto* key : {&schema.order_by, &schema.primary_key, &schema.sharding_key}) {
    for (const std::string& expr : *key) {
      if (Mentions(expr, name)) return true;
    }
  }
  return Mentions(schema.partition_by, name);
}

// Returns `def`'s type (declared, or UInt8 for a column typed by its expression later) and codec.
absl::Status ApplyDeclaration(const sql::ColumnDef& def, core::ColumnSchema* column) {
  if (!def.type.empty()) {
    std::optional<core::EnumType> enum_type;
    absl::StatusOr<core::TypeId> type = core::ParseColumnType(def.type, &enum_type);
    if (!type.ok()) {
      const ErrorCode code = core::CodeOf(type.status());
      return core::Error(code == ErrorCode::kIllegalTypeOfArgument ||
                                 code == ErrorCode::kBadArguments || core::MentionsEnum(def.type)
                             ? code
                             : ErrorCode::kUnknownType,
                         std::string(type.status().message()) + " (column " + def.name + ")");
    }
    if (def.nullable && !core::IsNullable(*type)) type = core::MakeNullable(*type);
    column->type = *type;
    column->low_cardinality = core::DeclaresLowCardinality(def.type, *type);
    column->enum_type = std::move(enum_type);
  }
  if (!def.codec.empty()) {
    ASSIGN_OR_RETURN(core::CodecSpec spec, core::ParseCodecSpec(def.codec, column->type, def.name));
    column->codec = spec.ToString();
  }
  if (!def.default_kind.empty()) {
    column->default_kind = def.default_kind == "DEFAULT"        ? DefaultKind::kDefault
                           : def.default_kind == "MATERIALIZED" ? DefaultKind::kMaterialized
                                                                : DefaultKind::kAlias;
    std::optional<std::string> formatted =
        def.default_expr ? FormatColumnExpression(*def.default_expr) : std::nullopt;
    column->default_expression = formatted ? *formatted : def.default_text;
  }
  if (!def.comment.empty()) column->comment = def.comment;
  return absl::OkStatus();
}

// The schema being altered, with, per column, the name it has in the table before the ALTER
// (empty for an added column).
struct Draft {
  core::TableSchema schema;
  std::vector<std::string> source;
  std::vector<bool> typeless;

  int Find(const std::string& name) const { return schema.ColumnIndex(name); }
};

absl::Status NotFound(const std::string& name, const std::string& what) {
  return core::Error(core::kNotFoundColumnInBlock,
                     "Wrong column name. Cannot find column `" + name + "` to " + what);
}

// The positions of compound column `name`'s subcolumns in `draft`, first and count; count 0
// when they are not all there.
std::pair<int, size_t> SubcolumnRange(const Draft& draft, const std::string& name,
                                      const core::CompoundLayout& layout) {
  const int first = draft.Find(core::SubcolumnName(name, layout.suffixes[0]));
  if (first < 0) return {first, 0};
  for (size_t i = 0; i < layout.suffixes.size(); ++i) {
    if (draft.Find(core::SubcolumnName(name, layout.suffixes[i])) != first + static_cast<int>(i)) {
      return {first, 0};
    }
  }
  return {first, layout.suffixes.size()};
}

// Applies a command to a Tuple or Map column (one being added, or one the table has): ADD,
// DROP, RENAME and COMMENT act on its subcolumns together; MODIFY is not supported yet.
// Returns false when the command is not about one.
absl::StatusOr<bool> ApplyToCompound(const sql::AlterColumnCommand& command,
                                     const core::TableSchema& before, Draft* draft) {
  const std::string& name = command.column.name;
  auto& columns = draft->schema.columns;
  auto& compounds = draft->schema.compound_columns;
  if (command.kind == Kind::kAdd) {
    ASSIGN_OR_RETURN(std::optional<core::CompoundLayout> layout,
                     core::ParseCompoundType(command.column.type));
    if (!layout) return false;
    if (draft->Find(name) >= 0 || core::FindCompoundColumn(draft->schema, name) != nullptr) {
      if (command.if_exists) return true;
      return core::Error(ErrorCode::kDuplicateColumn,
                         "Cannot add column `" + name + "`: column with this name already exists");
    }
    if (!command.column.default_kind.empty() || !command.column.codec.empty() ||
        command.column.nullable || command.column.not_null) {
      return core::Error(ErrorCode::kNotImplemented,
                         "A " + layout->type_name +
                             " column with a default, a codec or NULL is not supported yet "
                             "(column " + name + ")");
    }
    size_t at = columns.size();
    if (command.first) {
      at = 0;
    } else if (!command.after.empty()) {
      int after = draft->Find(command.after);
      if (const core::CompoundColumn* other = core::FindCompoundColumn(draft->schema, command.after)) {
        ASSIGN_OR_RETURN(std::optional<core::CompoundLayout> other_layout,
                         core::ParseCompoundType(other->type));
        auto [first, count] = SubcolumnRange(*draft, other->name, *other_layout);
        after = count == 0 ? -1 : first + static_cast<int>(count) - 1;
      }
      if (after < 0) {
        return core::Error(ErrorCode::kNoSuchColumnInTable,
                           "Wrong column name. Cannot find column " + command.after +
                               " to insert after");
      }
      at = after + 1;
    }
    for (size_t i = 0; i < layout->suffixes.size(); ++i) {
      core::ColumnSchema sub{core::SubcolumnName(name, layout->suffixes[i]), layout->types[i]};
      if (draft->Find(sub.name) >= 0) {
        return core::Error(ErrorCode::kDuplicateColumn,
                           "Cannot add column `" + name + "`: its subcolumn " + sub.name +
                               " is a column already");
      }
      sub.comment = command.column.comment;
      columns.insert(columns.begin() + at + i, std::move(sub));
      draft->source.insert(draft->source.begin() + at + i, std::string());
      draft->typeless.insert(draft->typeless.begin() + at + i, false);
    }
    if (!layout->nested) compounds.push_back(core::CompoundColumn{name, layout->type_name});
    return true;
  }
  const core::CompoundColumn* compound = core::FindCompoundColumn(draft->schema, name);
  if (compound == nullptr) return false;
  ASSIGN_OR_RETURN(std::optional<core::CompoundLayout> layout,
                   core::ParseCompoundType(compound->type));
  auto [first, count] = SubcolumnRange(*draft, name, *layout);
  if (count == 0) {
    return core::Error(ErrorCode::kLogicalError,
                       "The subcolumns of " + name + " are missing from table " + before.name);
  }
  const size_t index = compound - compounds.data();
  switch (command.kind) {
    case Kind::kDrop:
      if (columns.size() == count) {
        return core::Error(ErrorCode::kEmptyListOfColumnsPassed,
                           "Cannot DROP or CLEAR all columns of table " + before.name);
      }
      columns.erase(columns.begin() + first, columns.begin() + first + count);
      draft->source.erase(draft->source.begin() + first, draft->source.begin() + first + count);
      draft->typeless.erase(draft->typeless.begin() + first,
                            draft->typeless.begin() + first + count);
      compounds.erase(compounds.begin() + index);
      return true;
    case Kind::kRename:
      if (draft->Find(command.new_name) >= 0 ||
          core::FindCompoundColumn(draft->schema, command.new_name) != nullptr) {
        return core::Error(ErrorCode::kDuplicateColumn, "Cannot rename to `" + command.new_name +
                                                            "`: column with this name already exists");
      }
      for (size_t i = 0; i < count; ++i) {
        columns[first + i].name = core::SubcolumnName(command.new_name, layout->suffixes[i]);
      }
      compounds[index].name = command.new_name;
      return true;
    case Kind::kComment:
      for (size_t i = 0; i < count; ++i) columns[first + i].comment = command.column.comment;
      return true;
    case Kind::kModify: {
      // The same kind of value; each subcolumn takes its new type (parts written before convert
      // as they are read, as for any column). A tuple's elements match by name, as ClickHouse's:
      // a new name is a new element (its default in old rows), a missing one is dropped.
      ASSIGN_OR_RETURN(std::optional<core::CompoundLayout> to,
                       core::ParseCompoundType(command.column.type));
      const bool by_name = to && !to->map && !to->array && !to->nested && !layout->map &&
                           !layout->array && !layout->nested;
      if (!to || to->map != layout->map || to->array != layout->array ||
          to->nested != layout->nested || (!by_name && to->suffixes != layout->suffixes) ||
          !command.column.default_kind.empty() || !command.column.codec.empty()) {
        return core::Error(ErrorCode::kNotImplemented,
                           "ALTER MODIFY COLUMN of " + compound->type + " column " + name +
                               " to " + (command.column.type.empty() ? std::string("a default")
                                                                     : command.column.type) +
                               " is not supported yet (a Map's or an array's elements may only "
                               "change their types)");
      }
      std::vector<core::ColumnSchema> subs;
      std::vector<std::string> sources;
      std::vector<bool> typeless;
      std::vector<bool> kept(count, false);
      for (size_t i = 0; i < to->suffixes.size(); ++i) {
        size_t old = 0;
        while (old < count && layout->suffixes[old] != to->suffixes[i]) ++old;
        core::ColumnSchema sub{core::SubcolumnName(name, to->suffixes[i]), to->types[i]};
        std::string source;
        if (old < count) {
          kept[old] = true;
          sub = columns[first + old];
          source = draft->source[first + old];
          if (sub.type != to->types[i] && IsKeyColumn(before, sub.name)) {
            return core::Error(core::kAlterOfColumnIsForbidden,
                               "ALTER of key column " + sub.name + " from type " +
                                   std::string(core::TypeName(sub.type)) + " to type " +
                                   std::string(core::TypeName(to->types[i])) +
                                   " is not safe because it can change the representation of "
                                   "primary key");
          }
          sub.type = to->types[i];
        }
        subs.push_back(std::move(sub));
        sources.push_back(std::move(source));
        typeless.push_back(false);
      }
      for (size_t old = 0; old < count; ++old) {
        if (!kept[old] && IsKeyColumn(before, columns[first + old].name)) {
          return core::Error(core::kAlterOfColumnIsForbidden,
                             "Trying to ALTER DROP key " + columns[first + old].name +
                                 " column which is a part of key expression");
        }
      }
      columns.erase(columns.begin() + first, columns.begin() + first + count);
      columns.insert(columns.begin() + first, subs.begin(), subs.end());
      draft->source.erase(draft->source.begin() + first, draft->source.begin() + first + count);
      draft->source.insert(draft->source.begin() + first, sources.begin(), sources.end());
      draft->typeless.erase(draft->typeless.begin() + first,
                            draft->typeless.begin() + first + count);
      draft->typeless.insert(draft->typeless.begin() + first, typeless.begin(), typeless.end());
      compounds[index].type = to->type_name;
      return true;
    }
    default:
      return core::Error(ErrorCode::kNotImplemented,
                         "This ALTER of a " + compound->type + " column (" + name +
                             ") is not supported yet");
  }
}

absl::Status Apply(const sql::AlterColumnCommand& command, const core::TableSchema& before,
                   Draft* draft) {
  ASSIGN_OR_RETURN(bool compound, ApplyToCompound(command, before, draft));
  if (compound) return absl::OkStatus();
  const std::string& name = command.column.name;
  for (const core::CompoundColumn& parent : draft->schema.compound_columns) {
    if (name.size() > parent.name.size() && name.compare(0, parent.name.size() + 1,
                                                         parent.name + ".") == 0) {
      return core::Error(ErrorCode::kNotImplemented,
                         "Cannot alter " + name + ", a subcolumn of " + parent.name +
                             ": alter the whole column");
    }
  }
  const int index = draft->Find(name);
  auto& columns = draft->schema.columns;
  switch (command.kind) {
    case Kind::kAdd: {
      if (index >= 0) {
        if (command.if_exists) return absl::OkStatus();
        return core::Error(ErrorCode::kDuplicateColumn,
                           "Cannot add column `" + name + "`: column with this name already exists");
      }
      core::ColumnSchema column;
      column.name = name;
      RETURN_IF_ERROR(ApplyDeclaration(command.column, &column));
      size_t at = columns.size();
      if (command.first) {
        at = 0;
      } else if (!command.after.empty()) {
        const int after = draft->Find(command.after);
        if (after < 0) {
          return core::Error(ErrorCode::kNoSuchColumnInTable,
                             "Wrong column name. Cannot find column " + command.after +
                                 " to insert after");
        }
        at = after + 1;
      }
      columns.insert(columns.begin() + at, std::move(column));
      draft->source.insert(draft->source.begin() + at, std::string());
      draft->typeless.insert(draft->typeless.begin() + at, command.column.type.empty());
      return absl::OkStatus();
    }
    case Kind::kDrop:
      if (index < 0) return command.if_exists ? absl::OkStatus() : NotFound(name, "drop");
      if (IsKeyColumn(before, name)) {
        return core::Error(core::kAlterOfColumnIsForbidden,
                           "Trying to ALTER DROP key " + name +
                               " column which is a part of key expression");
      }
      if (columns.size() == 1) {
        return core::Error(ErrorCode::kEmptyListOfColumnsPassed,
                           "Cannot DROP or CLEAR all columns of table " + before.name);
      }
      columns.erase(columns.begin() + index);
      draft->source.erase(draft->source.begin() + index);
      draft->typeless.erase(draft->typeless.begin() + index);
      return absl::OkStatus();
    case Kind::kRename:
      if (index < 0) return command.if_exists ? absl::OkStatus() : NotFound(name, "rename");
      if (draft->Find(command.new_name) >= 0) {
        return core::Error(ErrorCode::kDuplicateColumn, "Cannot rename to `" + command.new_name +
                                                            "`: column with this name already exists");
      }
      if (IsKeyColumn(before, name)) {
        return core::Error(core::kAlterOfColumnIsForbidden,
                           "Trying to ALTER RENAME key " + name +
                               " column which is a part of key expression");
      }
      columns[index].name = command.new_name;
      for (core::ColumnSchema& column : columns) {
        if (column.default_kind == DefaultKind::kNone) continue;
        column.default_expression =
            RenameIdentifier(column.default_expression, name, command.new_name);
      }
      return absl::OkStatus();
    case Kind::kModify: {
      if (index < 0) {
        if (command.if_exists) return absl::OkStatus();
        return core::Error(core::kNotFoundColumnInBlock,
                           "Wrong column. Cannot find column `" + name + "` to modify");
      }
      core::ColumnSchema column = columns[index];
      RETURN_IF_ERROR(ApplyDeclaration(command.column, &column));
      if (column.type != columns[index].type && IsKeyColumn(before, name)) {
        return core::Error(core::kAlterOfColumnIsForbidden,
                           "ALTER of key column " + name + " from type " +
                               std::string(core::TypeName(columns[index].type)) + " to type " +
                               std::string(core::TypeName(column.type)) +
                               " is not safe because it can change the representation of "
                               "primary key");
      }
      columns[index] = std::move(column);
      return absl::OkStatus();
    }
    case Kind::kComment:
      if (index < 0) {
        if (command.if_exists) return absl::OkStatus();
        return core::Error(core::kNotFoundColumnInBlock,
                           "Wrong column name. Cannot find column `" + name + "` to comment");
      }
      columns[index].comment = command.column.comment;
      return absl::OkStatus();
  }
  return absl::OkStatus();
}

bool SameStoredLayout(const core::TableSchema& a, const core::TableSchema& b,
                      const std::vector<std::string>& source) {
  // The stored columns must be the same columns (by origin), types and order.
  std::vector<std::string> old_stored, new_stored;
  std::vector<core::TypeId> old_types, new_types;
  for (const auto& column : a.columns) {
    if (!column.stored()) continue;
    old_stored.push_back(column.name);
    old_types.push_back(column.type);
  }
  for (size_t i = 0; i < b.columns.size(); ++i) {
    if (!b.columns[i].stored()) continue;
    const int origin = a.ColumnIndex(source[i]);
    if (origin < 0 || !a.columns[origin].stored()) return false;
    new_stored.push_back(source[i]);
    new_types.push_back(b.columns[i].type);
  }
  return old_stored == new_stored && old_types == new_types;
}

absl::Status RequireAllWorkers(const WorkerSet& workers, const std::string& table) {
  return workers.CallAll([&](size_t i) -> absl::Status {
    absl::Status status = WorkerClient(workers).ListTables(i, kAlterTimeout).status();
    if (status.ok()) return status;
    return core::Error(core::CodeOf(status),
                       "Cannot alter table " + table + ": worker " + std::to_string(i) + " (" +
                           workers.address(i) +
                           ") does not answer, and DDL changes every worker or none, so nothing "
                           "was changed (" + std::string(status.message()) + ")");
  });
}

absl::Status AlterSchemaEverywhere(const WorkerSet& workers, const core::TableSchema& schema) {
  core::worker_api::CatalogOpRequest request;
  request.kind = core::worker_api::CatalogOpRequest::Kind::kAlterSchema;
  request.name = schema.name;
  request.schema = schema;
  return workers.CallAll([&](size_t i) {
    return WorkerClient(workers).CatalogOp(i, request, kAlterTimeout);
  });
}

absl::Status RenameEverywhere(const WorkerSet& workers, const std::string& from,
                              const std::string& to) {
  core::worker_api::CatalogOpRequest request;
  request.kind = core::worker_api::CatalogOpRequest::Kind::kRenameTable;
  request.name = from;
  request.new_name = to;
  return workers.CallAll([&](size_t i) {
    return WorkerClient(workers).CatalogOp(i, request, kAlterTimeout);
  });
}

std::string Token() {
  static thread_local std::mt19937_64 random(std::random_device{}());
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  uint64_t bits = random();
  for (int i = 0; i < 8; ++i, bits >>= 4) token.push_back(kHex[bits & 15]);
  return token;
}

// Rewrites the table's rows into the schema `next` (see the file comment), keeping only the rows
// `keep` selects when it is set.
absl::Status Mutate(const core::TableSchema& before, const Draft& draft, const WorkerSet& workers,
                    Catalog* catalog, const InsertRunner& run_insert, sql::ExprPtr keep = nullptr) {
  const core::TableSchema& next = draft.schema;
  const std::string token = Token();
  const std::string fresh = before.name + "__alter_new_" + token;
  const std::string old = before.name + "__alter_old_" + token;
  // The copy may give the values of columns that stay MATERIALIZED: created as DEFAULT, then
  // switched back by a metadata change.
  core::TableSchema copy = next;
  copy.name = fresh;
  sql::InsertStatement insert;
  insert.table = fresh;
  sql::SelectStatement select;
  for (size_t i = 0; i < next.columns.size(); ++i) {
    if (!next.columns[i].stored() || draft.source[i].empty()) continue;
    const int origin = before.ColumnIndex(draft.source[i]);
    if (origin < 0 || !before.columns[origin].stored()) continue;  // was an ALIAS: computed
    if (copy.columns[i].default_kind == DefaultKind::kMaterialized) {
      copy.columns[i].default_kind = DefaultKind::kDefault;
    }
    insert.columns.push_back(next.columns[i].name);
    select.select.push_back(sql::MakeColumn("", draft.source[i]));
  }
  RETURN_IF_ERROR(CreateTableWithSchema(copy, false, false, workers, catalog));
  auto undo = [&](absl::Status status) {
    sql::DropTableStatement drop;
    drop.name = fresh;
    drop.if_exists = true;
    DropTable(drop, workers, catalog).IgnoreError();
    return status;
  };
  if (!select.select.empty()) {
    QualifiedTable table = SplitTableName(before.name);
    sql::TableRef from;
    from.database = table.database;
    from.name = table.table;
    select.from = std::move(from);
    select.where = std::move(keep);
    insert.select = std::make_shared<sql::SelectStatement>(std::move(select));
    if (absl::Status copied = run_insert(insert); !copied.ok()) return undo(copied);
  }
  core::TableSchema final_schema = next;
  final_schema.name = fresh;
  if (final_schema != copy) {
    if (absl::Status status = AlterSchemaEverywhere(workers, final_schema); !status.ok()) {
      return undo(status);
    }
  }
  core::MutexLock ddl(DdlMutex());
  catalog->Invalidate();
  RETURN_IF_ERROR(RenameEverywhere(workers, before.name, old));
  if (absl::Status status = RenameEverywhere(workers, fresh, before.name); !status.ok()) {
    return core::Error(core::CodeOf(status),
                       std::string(status.message()) + " (ALTER TABLE " + before.name +
                           " was interrupted: its rows are in table " + old + ")");
  }
  workers.CallAll([&](size_t i) {
    return WorkerClient(workers).DropTable(i, old, /*if_exists=*/true, kAlterTimeout);
  }).IgnoreError();
  return absl::OkStatus();
}

}  // namespace

absl::Status AlterColumns(const sql::AlterSettingsStatement& alter, const WorkerSet& workers,
                          Catalog* catalog, const InsertRunner& run_insert) {
  core::TableSchema before;
  {
    core::MutexLock ddl(DdlMutex());
    RETURN_IF_ERROR(EnsureCatalog(workers, catalog));
    ASSIGN_OR_RETURN(before, catalog->Lookup(alter.table));
  }
  // No INSERT into the table from here to the swap (exec/table_write_gate.h); then its schema
  // again, as an ALTER that held the gate before may have changed it.
  std::unique_lock<std::shared_mutex> gate = LockTableForRewrite(before.name);
  {
    core::MutexLock ddl(DdlMutex());
    RETURN_IF_ERROR(EnsureCatalog(workers, catalog));
    ASSIGN_OR_RETURN(before, catalog->Lookup(alter.table));
  }
  if (before.engine == "View") {
    return core::Error(ErrorCode::kNotImplemented,
                       "ALTER of columns is not supported by storage View (" +
                           DisplayTableName(before.name) + ")");
  }
  Draft draft{before, {}, {}};
  for (const auto& column : before.columns) {
    draft.source.push_back(column.name);
    draft.typeless.push_back(false);
  }
  if (alter.delete_where) {
    // Rows where the condition is true go; NULL keeps the row, as in ClickHouse.
    RETURN_IF_ERROR(RequireAllWorkers(workers, DisplayTableName(before.name)));
    return Mutate(before, draft, workers, catalog, run_insert,
                  sql::MakeCall("not", {sql::MakeCall("ifNull", {alter.delete_where,
                                                                 sql::MakeLiteral(uint64_t{0})})}));
  }
  for (const sql::AlterColumnCommand& command : alter.columns) {
    RETURN_IF_ERROR(Apply(command, before, &draft));
  }
  RETURN_IF_ERROR(CheckColumnDefaults(draft.typeless, &draft.schema));
  if (draft.schema == before) return absl::OkStatus();
  RETURN_IF_ERROR(RequireAllWorkers(workers, DisplayTableName(before.name)));
  if (SameStoredLayout(before, draft.schema, draft.source)) {
    core::MutexLock ddl(DdlMutex());
    absl::Status status = AlterSchemaEverywhere(workers, draft.schema);
    if (!status.ok()) {
      catalog->Invalidate();
      return status;
    }
    catalog->Put(draft.schema);
    return absl::OkStatus();
  }
  return Mutate(before, draft, workers, catalog, run_insert);
}

}  // namespace granite::coordinator
