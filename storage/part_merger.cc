#include "storage/part_merger.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/block_sort.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::storage {
namespace {

absl::Status Cancelled(const TableSchema& schema) {
  return core::Error(core::ErrorCode::kQueryWasCancelled,
                     absl::StrCat("Merge in table ", schema.name, " was cancelled"));
}

}  // namespace

PartMerger::PartMerger(std::shared_ptr<FileSystem> fs, std::shared_ptr<const TableSchema> schema,
                       std::shared_ptr<const PartSplitter> splitter, std::string parts_dir,
                       PartWriter::Options options)
    : fs_(std::move(fs)),
      schema_(std::move(schema)),
      splitter_(std::move(splitter)),
      parts_dir_(std::move(parts_dir)),
      options_(options) {}

PartName PartMerger::ResultName(const std::vector<std::shared_ptr<const Part>>& sources) {
  PartName name = sources.front()->part_name();
  for (const auto& source : sources) {
    name.min_block = std::min(name.min_block, source->part_name().min_block);
    name.max_block = std::max(name.max_block, source->part_name().max_block);
    name.level = std::max(name.level, source->level());
  }
  ++name.level;
  return name;
}

absl::StatusOr<std::shared_ptr<const Part>> PartMerger::Merge(
    const std::vector<std::shared_ptr<const Part>>& sources, MergeProgress* progress,
    const std::atomic<bool>& cancelled, std::shared_ptr<const Part>* broken) const {
  uint64_t total_rows = 0, total_compressed = 0;
  for (const auto& source : sources) {
    total_rows += source->rows();
    total_compressed += source->size_on_disk();
  }
  progress->total_rows = total_rows;
  progress->total_bytes_compressed = total_compressed;

  // Reads every source whole, column by column.
  std::vector<core::Block> blocks;
  blocks.reserve(sources.size());
  for (const auto& source : sources) {
    if (cancelled.load()) return Cancelled(*schema_);
    core::Block block;
    block.rows_without_columns = source->rows();
    for (size_t c = 0; c < schema_->columns.size(); ++c) {
      absl::StatusOr<core::ColumnPtr> column = source->ReadColumn(c, 0, source->granule_count());
      if (!column.ok()) {
        core::ErrorCode code = core::CodeOf(column.status());
        bool damaged = code == core::ErrorCode::kChecksumDoesntMatch ||
                       code == core::ErrorCode::kCorruptedData;
        if (damaged && broken != nullptr) *broken = source;
        return column.status();
      }
      block.columns.push_back(*std::move(column));
    }
    blocks.push_back(std::move(block));
    progress->rows_read += source->rows();
  }
  core::Block all = core::ConcatBlocks(blocks);
  blocks.clear();
  if (cancelled.load()) return Cancelled(*schema_);
  ASSIGN_OR_RETURN(PartSplitter::Piece piece,
                   splitter_->Sort(all, sources.front()->partition()));
  if (cancelled.load()) return Cancelled(*schema_);
  PartWriter writer(fs_, schema_, parts_dir_, options_);
  ASSIGN_OR_RETURN(std::shared_ptr<const Part> merged,
                   writer.Write(piece.block, piece.description, ResultName(sources),
                                kMergeTmpPrefix));
  progress->rows_written = merged->rows();
  return merged;
}

}  // namespace granite::storage
