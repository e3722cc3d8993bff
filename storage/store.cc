#include "storage/store.h"

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
  ASSIGN_OR_RETURN(std::vector<std::string> entries, files.ListDir(store->tables_dir_));
  bool removed = false;
  for (const std::string& entry : entries) {
    std::string dir = JoinPath(store->tables_dir_, entry);
    if (absl::StartsWith(entry, kTmpPrefix)) {
      RETURN_IF_ERROR(files.RemoveAll(dir));
      removed = true;
      continue;
    }
    absl::StatusOr<std::string> bytes = files.ReadFile(JoinPath(dir, kSchemaFileName));
    if (!bytes.ok()) return InTableDirectory(bytes.status(), dir);
    absl::StatusOr<TableSchema> schema = DecodeTableSchema(*bytes);
    if (!schema.ok()) return InTableDirectory(schema.status(), dir);
    if (EscapeTableName(schema->name) != entry) {
      return Error(ErrorCode::kCorruptedData,
                   absl::StrCat("Cannot open table directory ", dir, ": it holds table ",
                                schema->name));
    }
    std::string name = schema->name;
    ASSIGN_OR_RETURN(std::shared_ptr<Table> table,
                     Table::Open(store->fs_, dir, *std::move(schema)));
    core::WriterLock lock(store->catalog_mu_);
    store->tables_[name] = std::move(table);
  }
  if (removed) RETURN_IF_ERROR(files.SyncDir(store->tables_dir_));
  return store;
}

absl::Status Store::CreateTable(const TableSchema& schema, bool if_not_exists, bool or_replace) {
  RETURN_IF_ERROR(ValidateTableSchema(schema));
  RETURN_IF_ERROR(PartSplitter::Create(schema, /*strict=*/true).status());
  core::MutexLock ddl(ddl_mu_);
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
