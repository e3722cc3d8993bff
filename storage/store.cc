#include "storage/store.h"

#include <cstdio>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "storage/part_splitter.h"

namespace granite::storage {
namespace {

using core::Error;
using core::ErrorCode;

constexpr char kTmpPrefix[] = "tmp.";
constexpr char kCreatePrefix[] = "tmp.create.";
constexpr char kDropPrefix[] = "tmp.drop.";
constexpr char kSchemaFileName[] = "schema";

// Prefixes an error from opening a table directory with the directory's path.
absl::Status InTableDirectory(const absl::Status& status, const std::string& dir) {
  ErrorCode code = core::CodeOf(status) == ErrorCode::kCannotReadFromFile
                       ? ErrorCode::kCannotReadFromFile
                       : ErrorCode::kCorruptedData;
  return Error(code, absl::StrCat("Cannot open table directory ", dir, ": ", status.message()));
}

// Returns "database.table" for messages: tables of database `default` have no prefix (store.h).
std::string Qualified(std::string_view name) {
  if (name.find('.') != std::string_view::npos) return std::string(name);
  return absl::StrCat("default.", core::ToAbsl(name));
}

}  // namespace

std::string EscapeTableName(std::string_view name) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : name) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-';
    if (plain) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string UnescapeTableName(std::string_view escaped) {
  std::string out;
  for (size_t i = 0; i < escaped.size(); ++i) {
    if (escaped[i] != '%') {
      out.push_back(escaped[i]);
      continue;
    }
    int value = 0;
    if (i + 2 >= escaped.size()) return std::string(escaped);
    for (size_t k = 1; k <= 2; ++k) {
      char c = escaped[i + k];
      int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (digit < 0) return std::string(escaped);
      value = value * 16 + digit;
    }
    out.push_back(static_cast<char>(value));
    i += 2;
  }
  return out;
}

Store::Store(std::string data_dir, std::shared_ptr<FileSystem> fs)
    : data_dir_(std::move(data_dir)),
      tables_dir_(JoinPath(data_dir_, "tables")),
      fs_(std::move(fs)),
      merges_(std::make_unique<MergeScheduler>([this] { return Tables(); }, MergeOptions())) {}

void Store::StartBackgroundMerges(const MergeOptions& options) {
  merges_ = std::make_unique<MergeScheduler>([this] { return Tables(); }, options);
  merges_->Start();
}

absl::Status Store::Optimize(std::string_view name, bool final) {
  std::shared_ptr<Table> table = GetTable(name);
  if (table == nullptr) {
    return Error(ErrorCode::kUnknownTable,
                 absl::StrCat("Table ", std::string(name), " does not exist"));
  }
  return merges_->Optimize(table, final);
}

std::vector<MergeInfo> Store::RunningMerges() const { return merges_->Running(); }

absl::StatusOr<std::unique_ptr<Store>> Store::Open(std::string data_dir,
                                                   std::shared_ptr<FileSystem> fs) {
  std::unique_ptr<Store> store(new Store(std::move(data_dir), std::move(fs)));
  FileSystem& files = *store->fs_;
  RETURN_IF_ERROR(files.CreateDirs(store->tables_dir_));
  RETURN_IF_ERROR(store->OpenDatabases());
  ASSIGN_OR_RETURN(std::vector<std::string> entries, files.ListDir(store->tables_dir_));
  bool removed = false;
  for (const std::string& entry : entries) {
    std::string dir = JoinPath(store->tables_dir_, entry);
    if (absl::StartsWith(entry, kTmpPrefix)) {
      RETURN_IF_ERROR(files.RemoveAll(dir));
      removed = true;
      continue;
    }
    store->OpenTableDirectory(entry);
  }
  if (removed) RETURN_IF_ERROR(files.SyncDir(store->tables_dir_));
  return store;
}

void Store::OpenTableDirectory(const std::string& entry) {
  std::string dir = JoinPath(tables_dir_, entry);
  std::string name = UnescapeTableName(entry);
  FinishRename(dir, entry);
  absl::StatusOr<std::shared_ptr<Table>> table = [&]() -> absl::StatusOr<std::shared_ptr<Table>> {
    absl::StatusOr<std::string> bytes = fs_->ReadFile(JoinPath(dir, kSchemaFileName));
    if (!bytes.ok()) return InTableDirectory(bytes.status(), dir);
    absl::StatusOr<TableSchema> schema = DecodeTableSchema(*bytes);
    if (!schema.ok()) return InTableDirectory(schema.status(), dir);
    if (EscapeTableName(schema->name) != entry) {
      return Error(ErrorCode::kCorruptedData,
                   absl::StrCat("Cannot open table directory ", dir, ": it holds table ",
                                schema->name));
    }
    absl::StatusOr<std::shared_ptr<Table>> opened = Table::Open(fs_, dir, *std::move(schema));
    if (!opened.ok()) return InTableDirectory(opened.status(), dir);
    return opened;
  }();
  core::WriterLock lock(catalog_mu_);
  if (table.ok()) {
    tables_[name] = *std::move(table);
    return;
  }
  // One damaged table must not keep the worker from serving the others; its files stay as they
  // are for inspection or repair.
  std::fprintf(stderr, "granite worker: table %s is broken and will not be served: %s\n",
               name.c_str(), std::string(table.status().message()).c_str());
  broken_[name] = Broken{dir, std::string(table.status().message())};
}

absl::Status Store::CreateTable(const TableSchema& schema, bool if_not_exists, bool or_replace) {
  RETURN_IF_ERROR(ValidateTableSchema(schema));
  RETURN_IF_ERROR(PartSplitter::Create(schema.Stored(), /*strict=*/true).status());
  core::MutexLock ddl(ddl_mu_);
  if (std::optional<std::string> broken = BrokenReason(schema.name)) {
    if (!or_replace) {
      return Error(ErrorCode::kTableAlreadyExists,
                   absl::StrCat("Table ", schema.name, " already exists but is broken (", *broken,
                                "): DROP TABLE or CREATE OR REPLACE TABLE it"));
    }
    RETURN_IF_ERROR(DropBrokenLocked(schema.name));
  }
  std::shared_ptr<Table> existing = GetTable(schema.name);
  if (existing != nullptr && !or_replace) {
    if (if_not_exists) return absl::OkStatus();
    return Error(ErrorCode::kTableAlreadyExists,
                 absl::StrCat("Table ", schema.name, " already exists"));
  }
  RETURN_IF_ERROR(WriteTableDirectory(schema, existing));
  std::string dir = JoinPath(tables_dir_, EscapeTableName(schema.name));
  absl::StatusOr<std::shared_ptr<Table>> table = Table::Open(fs_, dir, schema);
  if (!table.ok()) {  // only an I/O error listing the new, empty parts directory gets here
    (void)fs_->RemoveAll(dir);
    (void)fs_->SyncDir(tables_dir_);
    return table.status();
  }
  core::WriterLock lock(catalog_mu_);
  tables_[schema.name] = *std::move(table);
  return absl::OkStatus();
}

absl::Status Store::WriteTableDirectory(const TableSchema& schema,
                                        const std::shared_ptr<Table>& replaced) {
  std::string escaped = EscapeTableName(schema.name);
  std::string tmp = JoinPath(tables_dir_, absl::StrCat(kCreatePrefix, escaped));
  std::string final_dir = JoinPath(tables_dir_, escaped);
  (void)fs_->RemoveAll(tmp);  // left by an earlier failed attempt
  bool renamed = false;
  absl::Status status = fs_->CreateDir(tmp);
  if (status.ok()) status = fs_->CreateDir(JoinPath(tmp, "parts"));
  if (status.ok()) {
    status = WriteFileSynced(*fs_, JoinPath(tmp, kSchemaFileName), EncodeTableSchema(schema));
  }
  if (status.ok()) status = fs_->SyncDir(tmp);
  if (status.ok() && replaced != nullptr) status = DropLocked(replaced);
  if (status.ok()) {
    status = fs_->Rename(tmp, final_dir);
    renamed = status.ok();
  }
  if (status.ok()) status = fs_->SyncDir(tables_dir_);
  if (!status.ok()) {
    (void)fs_->RemoveAll(tmp);
    if (renamed) (void)fs_->RemoveAll(final_dir);
    (void)fs_->SyncDir(tables_dir_);
  }
  return status;
}

absl::Status Store::DropTable(std::string_view name, bool if_exists) {
  core::MutexLock ddl(ddl_mu_);
  if (BrokenReason(name)) return DropBrokenLocked(std::string(name));
  std::shared_ptr<Table> table = GetTable(name);
  if (table == nullptr) {
    if (if_exists) return absl::OkStatus();
    return Error(ErrorCode::kUnknownTable,
                 absl::StrCat("Table ", std::string(name), " does not exist"));
  }
  return DropLocked(table);
}

absl::Status Store::DropLocked(const std::shared_ptr<Table>& table) {
  table->MarkDropped();  // waits for running inserts, so none writes into the directory below
  // Renaming first makes the drop atomic: a crash leaves a tmp.drop.* directory, not half a table.
  std::string trash =
      JoinPath(tables_dir_, absl::StrCat(kDropPrefix, EscapeTableName(table->name())));
  (void)fs_->RemoveAll(trash);  // left by an earlier failed attempt
  if (absl::Status status = fs_->Rename(table->directory(), trash); !status.ok()) {
    table->Undrop();  // nothing changed on disk: the table stays as it was
    return status;
  }
  {
    core::WriterLock lock(catalog_mu_);
    tables_.erase(table->name());
  }
  RETURN_IF_ERROR(fs_->SyncDir(tables_dir_));
  (void)fs_->RemoveAll(trash);  // if this fails, the next Open() removes it
  return absl::OkStatus();
}

absl::Status Store::DropBrokenLocked(const std::string& name) {
  std::string dir;
  {
    core::ReaderLock lock(catalog_mu_);
    auto it = broken_.find(name);
    if (it == broken_.end()) return absl::OkStatus();
    dir = it->second.dir;
  }
  std::string trash = JoinPath(tables_dir_, absl::StrCat(kDropPrefix, EscapeTableName(name)));
  (void)fs_->RemoveAll(trash);  // left by an earlier failed attempt
  RETURN_IF_ERROR(fs_->Rename(dir, trash));
  {
    core::WriterLock lock(catalog_mu_);
    broken_.erase(name);
  }
  RETURN_IF_ERROR(fs_->SyncDir(tables_dir_));
  (void)fs_->RemoveAll(trash);  // if this fails, the next Open() removes it
  return absl::OkStatus();
}

std::optional<std::string> Store::BrokenReason(std::string_view name) const {
  core::ReaderLock lock(catalog_mu_);
  auto it = broken_.find(name);
  if (it == broken_.end()) return std::nullopt;
  return it->second.error;
}

absl::StatusOr<std::shared_ptr<Table>> Store::TableOrError(std::string_view name) const {
  core::ReaderLock lock(catalog_mu_);
  if (auto it = tables_.find(name); it != tables_.end()) return it->second;
  if (auto it = broken_.find(name); it != broken_.end()) {
    return Error(ErrorCode::kCorruptedData,
                 absl::StrCat("Table ", Qualified(name),
                              " is broken on this worker and cannot be read or written: ",
                              it->second.error,
                              " (DROP TABLE removes it, CREATE OR REPLACE TABLE replaces it)"));
  }
  return Error(ErrorCode::kUnknownTable,
               absl::StrCat("Table ", Qualified(name), " does not exist"));
}

std::map<std::string, std::string> Store::BrokenTables() const {
  core::ReaderLock lock(catalog_mu_);
  std::map<std::string, std::string> out;
  for (const auto& [name, broken] : broken_) out[name] = broken.error;
  return out;
}

std::shared_ptr<Table> Store::GetTable(std::string_view name) const {
  core::ReaderLock lock(catalog_mu_);
  auto it = tables_.find(name);
  return it == tables_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<Table>> Store::Tables() const {
  core::ReaderLock lock(catalog_mu_);
  std::vector<std::shared_ptr<Table>> out;
  out.reserve(tables_.size());
  for (const auto& [name, table] : tables_) out.push_back(table);
  return out;
}

}  // namespace granite::storage
