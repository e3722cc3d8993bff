#include "storage/table.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "storage/part_writer.h"

namespace granite::storage {

using core::Error;
using core::ErrorCode;

Table::Table(std::shared_ptr<FileSystem> fs, std::string dir,
             std::shared_ptr<const TableSchema> schema)
    : fs_(std::move(fs)),
      dir_(std::move(dir)),
      parts_dir_(JoinPath(dir_, "parts")),
      schema_(std::move(schema)),
      granule_rows_(GranuleRowsOf(*schema_)) {}

absl::StatusOr<std::shared_ptr<Table>> Table::Open(std::shared_ptr<FileSystem> fs,
                                                   std::string dir, TableSchema schema) {
  std::shared_ptr<Table> table(
      new Table(fs, std::move(dir), std::make_shared<const TableSchema>(std::move(schema))));
  const std::string& parts_dir = table->parts_dir_;
  ASSIGN_OR_RETURN(std::vector<std::string> entries, fs->ListDir(parts_dir));

  auto snapshot = std::make_shared<PartsSnapshot>();
  snapshot->version = 1;
  uint64_t max_block = 0;
  bool removed = false;
  for (const std::string& entry : entries) {
    std::string path = JoinPath(parts_dir, entry);
    // Complete parts carry their final name; tmp_* directories are unfinished writes.
    std::optional<PartName> name = PartName::Parse(entry);
    absl::StatusOr<std::shared_ptr<const Part>> part =
        Error(ErrorCode::kCorruptedData, absl::StrCat("Leftover ", path));
    if (name) part = Part::Load(fs, table->schema_, path, *name);
    if (!part.ok()) {
      // Incomplete or broken parts are leftovers; other errors (I/O) must not delete data.
      if (core::CodeOf(part.status()) != ErrorCode::kCorruptedData) return part.status();
      RETURN_IF_ERROR(fs->RemoveAll(path));
      removed = true;
      continue;
    }
    max_block = std::max(max_block, name->max_block);
    snapshot->rows += (*part)->rows();
    snapshot->bytes_on_disk += (*part)->size_on_disk();
    snapshot->parts.push_back(*std::move(part));
  }
  if (removed) RETURN_IF_ERROR(fs->SyncDir(parts_dir));
  std::sort(snapshot->parts.begin(), snapshot->parts.end(), [](const auto& a, const auto& b) {
    return a->part_name().min_block < b->part_name().min_block;
  });
  table->next_block_.store(max_block + 1);
  {
    core::WriterLock lock(table->parts_mu_);
    table->snapshot_ = std::move(snapshot);
  }
  return table;
}

absl::Status Table::CheckBlock(const core::Block& block) const {
  const std::vector<ColumnSchema>& columns = schema_->columns;
  if (block.columns.size() != columns.size()) {
    return Error(ErrorCode::kNumberOfColumnsDoesntMatch,
                 absl::StrCat("Cannot insert into table ", name(), ": block has ",
                              block.columns.size(), " columns, table has ", columns.size()));
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    const core::Column& column = *block.columns[i];
    if (column.type() != columns[i].type) {
      return Error(ErrorCode::kTypeMismatch,
                   absl::StrCat("Cannot insert into table ", name(), ": column ", columns[i].name,
                                " has type ", core::ToAbsl(core::TypeName(columns[i].type)),
                                ", block has ", core::ToAbsl(core::TypeName(column.type()))));
    }
    if (column.size() != block.columns[0]->size()) {
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("Cannot insert into table ", name(), ": column ", columns[i].name,
                                " has ", column.size(), " rows, column ", columns[0].name, " has ",
                                block.columns[0]->size()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Table::Insert(const core::Block& block) {
  core::ReaderLock drop_lock(drop_mu_);
  if (dropped_) {
    return Error(ErrorCode::kUnknownTable,
                 absl::StrCat("Cannot insert into table ", name(), ": it was dropped"));
  }
  RETURN_IF_ERROR(CheckBlock(block));
  if (block.rows() == 0) return std::string();
  uint64_t number = next_block_.fetch_add(1);
  PartName part_name{number, number, 0};
  PartWriter::Options options;
  options.granule_rows = granule_rows_;
  PartWriter writer(fs_, schema_, parts_dir_, options);
  ASSIGN_OR_RETURN(std::shared_ptr<const Part> part, writer.Write(block, part_name));
  Publish(std::move(part));
  return part_name.ToString();
}

std::shared_ptr<const PartsSnapshot> Table::Snapshot() const {
  core::ReaderLock lock(parts_mu_);
  return snapshot_;
}

void Table::Publish(std::shared_ptr<const Part> part) {
  // Builds the next snapshot outside the exclusive lock and installs it only if no other writer
  // published in between (checked by version); otherwise rebuilds from the newer snapshot.
  while (true) {
    std::shared_ptr<const PartsSnapshot> current = Snapshot();
    auto next = std::make_shared<PartsSnapshot>();
    next->version = current->version + 1;
    next->rows = current->rows + part->rows();
    next->bytes_on_disk = current->bytes_on_disk + part->size_on_disk();
    next->parts.reserve(current->parts.size() + 1);
    next->parts = current->parts;
    auto at = std::upper_bound(next->parts.begin(), next->parts.end(), part,
                               [](const auto& a, const auto& b) {
                                 return a->part_name().min_block < b->part_name().min_block;
                               });
    next->parts.insert(at, part);
    {
      core::WriterLock lock(parts_mu_);
      if (snapshot_->version == current->version) {
        snapshot_ = std::move(next);
        break;
      }
    }
  }
}

void Table::MarkDropped() {
  core::WriterLock lock(drop_mu_);
  dropped_ = true;
}

void Table::Undrop() {
  core::WriterLock lock(drop_mu_);
  dropped_ = false;
}

}  // namespace granite::storage
