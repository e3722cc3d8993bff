// MorselSource: cuts a fragment's input into morsels (granule ranges of parts, or ranges of
// rows of a table function) that pool threads pull one at a time, and reads a morsel into a
// block. For a table it takes the parts snapshot and keeps only the parts and granules that the
// fragment's filter can match (worker/filter_ranges.h, storage/part_pruner.h) and lists their
// morsels. The morsels of a table function (core/table_functions/table_function.h) are never
// listed: morsel i is computed when asked for, so a source of any N (up to 2^64 - 1) costs
// constant memory and time to open, and a LIMIT or a cancellation that stops the scan early has
// paid only for the morsels it read.
//
// Settings (Fragment.settings, from SELECT ... SETTINGS): use_parts_snapshot = 0 builds a private
// snapshot of the parts for this query instead of sharing the table's (what every query paid
// before the shared snapshot; for benchmarks); use_pruning = 0 reads every granule, skipping
// none by key ranges or by the query condition cache (for tests that compare pruned and unpruned
// answers); use_uncompressed_cache = 0 neither reads nor fills
// the worker's cache of decompressed granules (storage/uncompressed_cache.h); a column whose
// selected granules are larger than the cache reads it but does not fill it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/block.h"
#include "core/table_functions/table_function.h"
#include "core/plan/fragment.h"
#include "storage/part_pruner.h"
#include "storage/store.h"
#include "worker/column_files.h"

namespace granite::worker {

// One unit of scan work.
struct Morsel {
  size_t part = 0;   // index into the snapshot's parts (tables)
  size_t begin = 0;  // first granule (tables) or first row (table functions)
  size_t end = 0;    // one past the last granule / row
  const storage::Part* data = nullptr;  // the part (tables); the snapshot keeps it alive
};

// Lists the morsels of one fragment's source and reads them.
// Thread-safety: Read() may run concurrently from many threads after construction.
class MorselSource {
 public:
  // Opens the source of `fragment`: a table of `store` (its current parts snapshot, held until
  // this object dies) or a table function's rows sliced by worker_index / worker_count.
  // Source columns marked in Scan::string_sizes are read as their values' sizes (UInt64,
  // coordinator/planner/rules/string_size_reads.h); parts are pruned with Scan::prune_filter
  // when set, else the filter.
  static absl::StatusOr<std::unique_ptr<MorselSource>> Open(const core::plan::Fragment& fragment,
                                                            storage::Store* store);

  // Makes Read() hand the source columns marked in `columns` (by position) over as dictionary
  // codes with empty strings where a part stores them dictionary-encoded
  // (core::FragmentPipeline::codes_only_columns: the pipeline Read() feeds reads nothing else).
  // REQUIRES: called before any Read; ReadColumns (late materialization) is not used.
  void SetCodesOnly(std::vector<bool> columns) { codes_only_ = std::move(columns); }

  // Returns the number of morsels; morsel(i) for i below it is the i-th.
  uint64_t morsel_count() const { return function_ ? function_morsels_ : morsels_.size(); }
  // Returns morsel `i`. REQUIRES: i < morsel_count().
  Morsel morsel(uint64_t i) const;
  // Returns the listed morsels of a table source. REQUIRES: a table source.
  const std::vector<Morsel>& table_morsels() const { return morsels_; }
  // Returns the table schema's index of source column `position`. REQUIRES: a table source.
  size_t schema_index(size_t position) const { return column_indexes_[position]; }
  // Reads the fragment's source columns of one morsel. A part whose data fails its checksum is
  // detached from the table (Table::DetachBrokenPart) and the error says so.
  absl::StatusOr<core::Block> Read(const Morsel& morsel) const;
  // Reads only the source columns at `positions` (indexes into Fragment.source.columns) of one
  // table morsel, in that order. REQUIRES: a table source; every position < source column count.
  absl::StatusOr<core::Block> ReadColumns(const Morsel& morsel,
                                          const std::vector<size_t>& positions) const;
  // Records that no row of `morsel` passed the fragment's filter, so later fragments with the
  // same filter skip its granules (query_condition_cache.h). No-op without a cacheable filter.
  // REQUIRES: every row of the morsel went through the filter.
  void NoteNoMatch(const Morsel& morsel) const;
  // True for an ordered table function (numbers, not numbers_mt): a single thread must produce
  // rows in order.
  bool ordered() const { return ordered_; }
  uint64_t total_rows() const { return total_rows_; }
  // Parts and granules of the table vs those selected by pruning (zeros for table functions).
  const storage::PruneStats& prune_stats() const { return prune_stats_; }
  // The column files this scan keeps open (column_files.h). REQUIRES: a table source.
  const ColumnFiles& column_files() const { return *files_; }
  // Nanoseconds spent taking the snapshot and choosing parts and granules.
  uint64_t choose_parts_ns() const { return choose_parts_ns_; }

 private:
  MorselSource() = default;
  // Returns `status` of a failed read of `morsel`, detaching the part when its data is broken.
  absl::Status Broken(const Morsel& morsel, const absl::Status& status) const;
  // Reads source column `position` of `morsel`.
  absl::StatusOr<core::ColumnPtr> ReadOne(const Morsel& morsel, size_t position) const;

  // Constant after construction.
  std::shared_ptr<storage::Table> table_;
  std::shared_ptr<const storage::PartsSnapshot> snapshot_;
  std::vector<size_t> column_indexes_;  // schema index per source column
  std::vector<bool> string_sizes_;      // per source column: read the sizes only
  std::vector<bool> codes_only_;        // per source column: SetCodesOnly
  std::vector<Morsel> morsels_;  // a table's
  // A table function: this worker's slice [function_begin_, function_end_) of its rows in
  // function_morsels_ morsels; function_columns_ are the indexes of the source columns in it.
  const core::TableFunction* function_ = nullptr;
  core::TableFunctionArgs function_args_;
  std::vector<size_t> function_columns_;
  uint64_t function_begin_ = 0;
  uint64_t function_end_ = 0;
  uint64_t function_morsels_ = 0;
  // The column files of the selected parts, opened once per scan (column_files.h).
  std::unique_ptr<ColumnFiles> files_;
  std::vector<size_t> file_slots_;  // by snapshot part index: its slot in files_
  std::string condition_key_;  // QueryConditionCache::KeyOf the fragment; "" = not cached
  storage::UncompressedCache* cache_ = nullptr;  // null with use_uncompressed_cache = 0
  std::vector<bool> cache_insert_;  // by position: false for a column larger than the cache
  storage::PruneStats prune_stats_;
  uint64_t choose_parts_ns_ = 0;
  bool ordered_ = false;
  uint64_t total_rows_ = 0;
};

}  // namespace granite::worker
