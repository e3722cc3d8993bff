#include "worker/morsel_source.h"

#include <algorithm>
#include <chrono>

#include "core/error.h"
#include "core/status_macros.h"
#include "storage/part_recovery.h"
#include "worker/filter_ranges.h"
#include "worker/query_condition_cache.h"

namespace granite::worker {

namespace {

constexpr size_t kRowsPerMorsel = 65536;  // of a table function
// A table's morsel: whole granules up to kRowsPerTableMorsel rows and kMaxGranulesPerMorsel
// granules, at least one (one granule at the default index_granularity, 8,192). The shape it
// serves: filter + GROUP BY scans over several fixed-width columns with wide intermediates
// (Decimal arithmetic makes 16 bytes a row) read each column in several kernels; at 8,192 rows a
// block's columns and intermediates stay in a core's L2 between those kernels, at 65,536 rows
// (~3 MB) they did not and every pass went back to memory
// (bench/results/scan-copies-2026-11-30.md).
constexpr uint64_t kRowsPerTableMorsel = 8192;
constexpr size_t kMaxGranulesPerMorsel = 8;
// A column whose selected granules hold more than the uncompressed cache reads hits but inserts
// nothing: under LRU it would evict its own blocks before the scan repeats (every run pays the
// inserts, none hits) and flush what other queries keep hot. Per column, not per scan: a
// late-materialized top-N SELECT * lists every column but reads most of them for a few granules.
// A rule on the whole scan's bytes was tried first (at half and at all of the cache): it kept
// wide top-N scans from caching (bench/results/scanperf-2026-11-22.md).
uint64_t ColumnScanBytes(const std::vector<storage::SelectedPart>& selected, size_t column) {
  double bytes = 0;
  for (const storage::SelectedPart& part : selected) {
    if (part.data->rows() == 0) continue;
    uint64_t rows = 0;
    for (const storage::GranuleRange& range : part.granules) {
      rows += part.data->granule_first_row(range.end) - part.data->granule_first_row(range.begin);
    }
    bytes += static_cast<double>(part.data->column_uncompressed_bytes(column)) * rows /
             part.data->rows();
  }
  return static_cast<uint64_t>(bytes);
}

}  // namespace

absl::StatusOr<std::unique_ptr<MorselSource>> MorselSource::Open(const core::plan::Fragment& fragment,
                                                                 storage::Store* store) {
  std::unique_ptr<MorselSource> source(new MorselSource());
  source->string_sizes_ = fragment.scan.string_sizes;
  const core::plan::Scan& from = fragment.scan;
  if (from.function) {
    const core::TableFunction* function = core::FindTableFunction(from.function->name);
    if (function == nullptr) {
      return core::Error(core::ErrorCode::kUnknownFunction,
                         "Unknown table function " + from.function->name + " on this worker");
    }
    source->function_ = function;
    source->ordered_ = function->ordered;
    source->function_args_ = from.function->args;
    for (const std::string& name : from.columns) {
      size_t index = 0;
      while (index < function->columns.size() && function->columns[index].name != name) ++index;
      if (index == function->columns.size()) {
        return core::Error(core::ErrorCode::kNoSuchColumnInTable,
                           "There is no column " + name + " in table function " +
                               std::string(function->name));
      }
      source->function_columns_.push_back(index);
    }
    const core::RowSlice slice =
        core::SliceOf(function->rows(source->function_args_), fragment.worker_index,
                      std::max<uint32_t>(1, fragment.worker_count));
    source->total_rows_ = slice.end - slice.begin;
    source->function_begin_ = slice.begin;
    source->function_end_ = slice.end;
    // Rounded up without overflow: the slice may hold up to 2^64 - 1 rows.
    source->function_morsels_ = (slice.end - slice.begin) / kRowsPerMorsel +
                                ((slice.end - slice.begin) % kRowsPerMorsel != 0 ? 1 : 0);
    return source;
  }
  absl::StatusOr<std::shared_ptr<storage::Table>> table = store->TableOrError(from.table);
  if (!table.ok()) {
    if (core::CodeOf(table.status()) != core::ErrorCode::kUnknownTable) return table.status();
    const char* database = from.table.find('.') == std::string::npos ? "default." : "";
    return core::Error(core::ErrorCode::kUnknownTable,
                       "Table " + (database + from.table) + " does not exist on this worker");
  }
  source->table_ = *std::move(table);
  const storage::TableSchema& schema = source->table_->schema();
  for (const std::string& name : from.columns) {
    int index = schema.ColumnIndex(name);
    if (index < 0) {
      return core::Error(core::ErrorCode::kNoSuchColumnInTable,
                         "There is no column " + name + " in table " + from.table);
    }
    source->column_indexes_.push_back(index);
  }
  auto started = std::chrono::steady_clock::now();
  const core::Settings& settings = fragment.settings;
  source->snapshot_ = settings.use_parts_snapshot ? source->table_->Snapshot()
                                                  : source->table_->registry().BuildUncached();
  bool prune = settings.use_pruning;
  storage::PartPruner pruner(source->table_->splitter(),
                             prune ? RangesFromFilter(fragment, schema) : storage::ColumnRanges());
  std::vector<storage::SelectedPart> selected =
      pruner.Select(*source->snapshot_, &source->prune_stats_);
  source->choose_parts_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now() - started)
                                 .count();
  // use_pruning = 0 reads every granule: the query condition cache neither skips nor records.
  if (prune) source->condition_key_ = QueryConditionCache::KeyOf(fragment);
  if (settings.use_uncompressed_cache && storage::UncompressedCache::Global().enabled()) {
    source->cache_ = &storage::UncompressedCache::Global();
    for (size_t column : source->column_indexes_) {
      source->cache_insert_.push_back(ColumnScanBytes(selected, column) <=
                                      source->cache_->capacity());
    }
  }
  source->file_slots_.assign(source->snapshot_->parts.size(), ColumnFiles::kNoSlot);
  for (size_t i = 0; i < selected.size(); ++i) source->file_slots_[selected[i].part] = i;
  source->files_ =
      std::make_unique<ColumnFiles>(selected.size(), source->column_indexes_.size());
  for (const storage::SelectedPart& part : selected) {
    // Granules where this filter matched nothing before are left out (query_condition_cache.h).
    std::vector<bool> empty;
    if (!source->condition_key_.empty()) {
      empty = QueryConditionCache::Global().EmptyGranules(source->snapshot_->parts[part.part],
                                                          source->condition_key_);
    }
    auto skipped = [&](size_t g) { return g < empty.size() && empty[g]; };
    for (const storage::GranuleRange& range : part.granules) {
      size_t g = range.begin;
      while (g < range.end) {
        if (skipped(g)) {
          ++g;
          continue;
        }
        size_t end = g + 1;
        while (end < range.end && end - g < kMaxGranulesPerMorsel && !skipped(end) &&
               part.data->granule_first_row(end + 1) - part.data->granule_first_row(g) <=
                   kRowsPerTableMorsel) {
          ++end;
        }
        source->morsels_.push_back(Morsel{part.part, g, end, part.data});
        source->total_rows_ += part.data->granule_first_row(end) - part.data->granule_first_row(g);
        g = end;
      }
    }
  }
  return source;
}

Morsel MorselSource::morsel(uint64_t i) const {
  if (function_ == nullptr) return morsels_[i];
  // i < function_morsels_, so `at` lies inside the slice and neither sum wraps past 2^64.
  const uint64_t at = function_begin_ + i * kRowsPerMorsel;
  return Morsel{0, at, at + std::min<uint64_t>(kRowsPerMorsel, function_end_ - at)};
}

void MorselSource::NoteNoMatch(const Morsel& morsel) const {
  if (condition_key_.empty() || function_ != nullptr) return;
  QueryConditionCache::Global().MarkEmpty(snapshot_->parts[morsel.part], condition_key_,
                                          morsel.begin, morsel.end);
}

absl::Status MorselSource::Broken(const Morsel& morsel, const absl::Status& status) const {
  core::ErrorCode code = core::CodeOf(status);
  if (code != core::ErrorCode::kChecksumDoesntMatch && code != core::ErrorCode::kCorruptedData) {
    return status;
  }
  // The data of the part is damaged: the query fails naming it, and the part leaves the table.
  absl::StatusOr<bool> detached = table_->DetachBrokenPart(snapshot_->parts[morsel.part], status);
  if (!detached.ok() || !*detached) return status;
  return core::Error(code, std::string(status.message()) + "; the part was moved to detached/" +
                               storage::kBrokenPrefix + morsel.data->name());
}

absl::StatusOr<core::Block> MorselSource::Read(const Morsel& morsel) const {
  core::Block block;
  if (function_ != nullptr) {
    block.rows_without_columns = morsel.end - morsel.begin;
    for (size_t column : function_columns_) {
      block.columns.push_back(function_->produce(function_args_, column, morsel.begin, morsel.end));
    }
    return block;
  }
  const storage::Part& part = *morsel.data;
  block.rows_without_columns =
      part.granule_first_row(morsel.end) - part.granule_first_row(morsel.begin);
  for (size_t position = 0; position < column_indexes_.size(); ++position) {
    absl::StatusOr<core::ColumnPtr> column = ReadOne(morsel, position);
    if (!column.ok()) return Broken(morsel, column.status());
    block.columns.push_back(*std::move(column));
  }
  return block;
}

absl::StatusOr<core::ColumnPtr> MorselSource::ReadOne(const Morsel& morsel, size_t position) const {
  size_t index = column_indexes_[position];
  ASSIGN_OR_RETURN(const storage::RandomAccessFile* file,
                   files_->Get(*morsel.data, file_slots_[morsel.part], position, index));
  if (position < string_sizes_.size() && string_sizes_[position]) {
    return morsel.data->ReadStringSizes(index, morsel.begin, morsel.end, file, cache_);
  }
  return morsel.data->ReadColumn(index, morsel.begin, morsel.end, file, cache_,
                                 cache_ != nullptr && cache_insert_[position],
                                 position < codes_only_.size() && codes_only_[position]);
}

absl::StatusOr<core::Block> MorselSource::ReadColumns(const Morsel& morsel,
                                                      const std::vector<size_t>& positions) const {
  const storage::Part& part = *morsel.data;
  core::Block block;
  block.rows_without_columns =
      part.granule_first_row(morsel.end) - part.granule_first_row(morsel.begin);
  for (size_t position : positions) {
    absl::StatusOr<core::ColumnPtr> column = ReadOne(morsel, position);
    if (!column.ok()) return Broken(morsel, column.status());
    block.columns.push_back(*std::move(column));
  }
  return block;
}

}  // namespace granite::worker
