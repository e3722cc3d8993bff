// Store's databases, RENAME TABLE and TRUNCATE TABLE (the layout is described in store.h).
#include <cstdio>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "storage/part_splitter.h"
#include "storage/store.h"

namespace granite::storage {
namespace {

using core::Error;
using core::ErrorCode;

constexpr char kDatabasesDir[] = "databases";
constexpr char kSchemaFileName[] = "schema";
constexpr char kRenamedSchemaFileName[] = "schema.renamed";
constexpr char kAlteredSchemaFileName[] = "schema.altered";

// True when parts written with `from`'s stored columns read as `to`'s: same count, types and
// order (parts name their column files by position).
bool SameStoredLayout(const TableSchema& from, const TableSchema& to) {
  const TableSchema a = from.Stored();
  const TableSchema b = to.Stored();
  if (a.columns.size() != b.columns.size()) return false;
  for (size_t i = 0; i < a.columns.size(); ++i) {
    if (a.columns[i].type != b.columns[i].type) return false;
  }
  return true;
}

}  // namespace

absl::Status Store::OpenDatabases() {
  std::string dir = JoinPath(data_dir_, kDatabasesDir);
  RETURN_IF_ERROR(fs_->CreateDirs(dir));
  ASSIGN_OR_RETURN(std::vector<std::string> entries, fs_->ListDir(dir));
  core::WriterLock lock(catalog_mu_);
  for (const std::string& entry : entries) databases_.insert(UnescapeTableName(entry));
  return absl::OkStatus();
}

void Store::FinishRename(const std::string& dir, const std::string& entry) {
  std::string renamed = JoinPath(dir, kRenamedSchemaFileName);
  absl::StatusOr<std::string> bytes = fs_->ReadFile(renamed);
  if (!bytes.ok()) return;  // the usual case: no rename was interrupted here
  absl::StatusOr<TableSchema> schema = DecodeTableSchema(*bytes);
  // Written before the directory moved: it names the directory's new name once the move happened.
  if (schema.ok() && EscapeTableName(schema->name) == entry) {
    if (fs_->Rename(renamed, JoinPath(dir, kSchemaFileName)).ok()) {
      (void)fs_->SyncDir(dir);
      std::fprintf(stderr, "granite worker: finished the interrupted rename of table %s\n",
                   schema->name.c_str());
      return;
    }
  }
  (void)fs_->RemoveAll(renamed);  // the move never happened: the table keeps its old name
}

absl::Status Store::CreateDatabase(std::string_view name, bool if_not_exists) {
  core::MutexLock ddl(ddl_mu_);
  {
    core::ReaderLock lock(catalog_mu_);
    if (databases_.contains(name)) {
      if (if_not_exists) return absl::OkStatus();
      return Error(ErrorCode::kDatabaseAlreadyExists,
                   absl::StrCat("Database ", core::ToAbsl(name), " already exists"));
    }
  }
  std::string parent = JoinPath(data_dir_, kDatabasesDir);
  RETURN_IF_ERROR(fs_->CreateDir(JoinPath(parent, EscapeTableName(name))));
  RETURN_IF_ERROR(fs_->SyncDir(parent));
  core::WriterLock lock(catalog_mu_);
  databases_.insert(std::string(name));
  return absl::OkStatus();
}

absl::Status Store::DropDatabase(std::string_view name, bool if_exists) {
  core::MutexLock ddl(ddl_mu_);
  const std::string prefix = absl::StrCat(core::ToAbsl(name), ".");
  std::vector<std::shared_ptr<Table>> tables;
  std::vector<std::string> broken;
  bool exists = false;
  {
    core::ReaderLock lock(catalog_mu_);
    exists = databases_.contains(name);
    for (const auto& [table_name, table] : tables_) {
      if (absl::StartsWith(table_name, prefix)) tables.push_back(table);
    }
    for (const auto& [table_name, reason] : broken_) {
      if (absl::StartsWith(table_name, prefix)) broken.push_back(table_name);
    }
  }
  if (!exists && tables.empty() && broken.empty()) {
    if (if_exists) return absl::OkStatus();
    return Error(ErrorCode::kUnknownDatabase,
                 absl::StrCat("Database ", core::ToAbsl(name), " does not exist"));
  }
  // Tables first, the database last: a crash in between leaves a database that DROP finishes.
  for (const auto& table : tables) RETURN_IF_ERROR(DropLocked(table));
  for (const auto& table_name : broken) RETURN_IF_ERROR(DropBrokenLocked(table_name));
  if (exists) {
    std::string parent = JoinPath(data_dir_, kDatabasesDir);
    RETURN_IF_ERROR(fs_->RemoveAll(JoinPath(parent, EscapeTableName(name))));
    RETURN_IF_ERROR(fs_->SyncDir(parent));
    core::WriterLock lock(catalog_mu_);
    databases_.erase(std::string(name));
  }
  return absl::OkStatus();
}

std::vector<std::string> Store::Databases() const {
  core::ReaderLock lock(catalog_mu_);
  return std::vector<std::string>(databases_.begin(), databases_.end());
}

absl::Status Store::RenameTable(std::string_view from, std::string_view to) {
  core::MutexLock ddl(ddl_mu_);
  if (std::optional<std::string> broken = BrokenReason(from)) {
    return Error(ErrorCode::kCorruptedData,
                 absl::StrCat("Cannot rename table ", core::ToAbsl(from),
                              ": it is broken on this worker (", *broken, ")"));
  }
  std::shared_ptr<Table> table = GetTable(from);
  if (table == nullptr) {
    return Error(ErrorCode::kUnknownTable,
                 absl::StrCat("Table ", core::ToAbsl(from), " does not exist"));
  }
  if (GetTable(to) != nullptr || BrokenReason(to)) {
    return Error(ErrorCode::kTableAlreadyExists,
                 absl::StrCat("Table ", core::ToAbsl(to), " already exists"));
  }
  TableSchema schema = table->declared_schema();
  schema.name = std::string(to);
  const std::string old_dir = table->directory();
  const std::string new_dir = JoinPath(tables_dir_, EscapeTableName(to));
  RETURN_IF_ERROR(
      WriteFileSynced(*fs_, JoinPath(old_dir, kRenamedSchemaFileName), EncodeTableSchema(schema)));
  table->MarkDropped();  // waits for running inserts; later ones fail
  if (absl::Status moved = fs_->Rename(old_dir, new_dir); !moved.ok()) {
    (void)fs_->RemoveAll(JoinPath(old_dir, kRenamedSchemaFileName));
    table->Undrop();
    return moved;
  }
  RETURN_IF_ERROR(fs_->SyncDir(tables_dir_));
  RETURN_IF_ERROR(fs_->Rename(JoinPath(new_dir, kRenamedSchemaFileName),
                              JoinPath(new_dir, kSchemaFileName)));
  RETURN_IF_ERROR(fs_->SyncDir(new_dir));
  ASSIGN_OR_RETURN(std::shared_ptr<Table> renamed, Table::Open(fs_, new_dir, std::move(schema)));
  core::WriterLock lock(catalog_mu_);
  tables_.erase(table->name());
  tables_[std::string(to)] = std::move(renamed);
  return absl::OkStatus();
}

absl::Status Store::AlterTableSchema(std::string_view name, const TableSchema& schema) {
  RETURN_IF_ERROR(ValidateTableSchema(schema));
  core::MutexLock ddl(ddl_mu_);
  ASSIGN_OR_RETURN(std::shared_ptr<Table> table, TableOrError(name));
  if (schema.name != table->name()) {
    return Error(ErrorCode::kBadArguments,
                 absl::StrCat("ALTER of table ", core::ToAbsl(name), " names table ", schema.name));
  }
  if (table->declared_schema() == schema) return absl::OkStatus();  // a repeated ALTER
  if (!SameStoredLayout(table->declared_schema(), schema) &&
      !table->Snapshot()->parts.empty()) {
    return Error(ErrorCode::kNotImplemented,
                 absl::StrCat("Cannot change the stored columns of table ", schema.name,
                              " in place: it has parts"));
  }
  RETURN_IF_ERROR(PartSplitter::Create(schema.Stored(), /*strict=*/true).status());
  const std::string dir = table->directory();
  const std::string altered = JoinPath(dir, kAlteredSchemaFileName);
  RETURN_IF_ERROR(WriteFileSynced(*fs_, altered, EncodeTableSchema(schema)));
  table->MarkDropped();  // waits for running inserts and merges; later ones fail
  if (absl::Status renamed = fs_->Rename(altered, JoinPath(dir, kSchemaFileName)); !renamed.ok()) {
    (void)fs_->RemoveAll(altered);
    table->Undrop();
    return renamed;
  }
  RETURN_IF_ERROR(fs_->SyncDir(dir));
  // No merge runs now, so no part becomes outdated after this list is taken.
  std::set<std::string> outdated;
  for (const auto& part : table->registry().Outdated()) outdated.insert(part->name());
  absl::StatusOr<std::shared_ptr<Table>> reopened = Table::Open(fs_, dir, schema, outdated);
  if (!reopened.ok()) {
    // The ALTER did not happen: the old schema goes back, the table keeps serving as it was.
    absl::Status restored = WriteFileSynced(*fs_, altered, EncodeTableSchema(table->declared_schema()));
    if (restored.ok()) restored = fs_->Rename(altered, JoinPath(dir, kSchemaFileName));
    if (restored.ok()) restored = fs_->SyncDir(dir);
    if (restored.ok()) table->Undrop();
    return reopened.status();
  }
  core::WriterLock lock(catalog_mu_);
  tables_[std::string(name)] = *std::move(reopened);
  return absl::OkStatus();
}

absl::Status Store::TruncateTable(std::string_view name, bool if_exists) {
  std::shared_ptr<Table> table = GetTable(name);
  if (table == nullptr) {
    if (if_exists && !BrokenReason(name)) return absl::OkStatus();
    return TableOrError(name).status();
  }
  // An empty table of the same schema replaces it (the coordinator serializes DDL).
  return CreateTable(table->declared_schema(), /*if_not_exists=*/false, /*or_replace=*/true);
}

}  // namespace granite::storage
