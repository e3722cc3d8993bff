// ColumnFiles: the open data files of one scan's (part, column) pairs. MorselSource reads each
// column of a part one morsel (a few granules) at a time; each read used to open and close the
// column's file, an open + close per column per morsel (~3% of a worker's CPU on
// SELECT COUNT(*) FROM hits WHERE AdvEngineID <> 0). Now a file is opened on its first read and
// closed when the scan ends.
//
// A scan keeps at most kMaxFiles files open (parts x columns it reads); a wider scan opens a file
// per read as before, so many concurrent wide scans cannot run the process out of descriptors.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/file_system.h"
#include "storage/part.h"

namespace granite::worker {

// Holds one scan's open column files, by (part slot, source column position).
// Thread-safety: Get may run concurrently from many threads. Two threads that both find a file
// unopened both open it; one keeps its file, the other closes its own and uses the kept one.
class ColumnFiles {
 public:
  static constexpr size_t kMaxFiles = 48;
  // A part slot that caches nothing: Get returns nullptr.
  static constexpr size_t kNoSlot = ~size_t{0};

  // `parts` slots of `columns` source columns each. Caches nothing when parts * columns is above
  // kMaxFiles.
  ColumnFiles(size_t parts, size_t columns);
  ~ColumnFiles();
  ColumnFiles(const ColumnFiles&) = delete;
  ColumnFiles& operator=(const ColumnFiles&) = delete;

  // Returns the open data file of `part`'s schema column `column_index`, read at source position
  // `position` from part slot `part_slot`, or nullptr when this scan does not cache files (the
  // read then opens the file itself; also for part_slot kNoSlot). Errors: those of
  // Part::OpenColumn. REQUIRES: part_slot < parts or kNoSlot, position < columns; the same
  // (slot, position) always names the same part and column.
  absl::StatusOr<const storage::RandomAccessFile*> Get(const storage::Part& part, size_t part_slot,
                                                       size_t position,
                                                       size_t column_index) const;

  // Files opened so far (for tests).
  size_t opened() const { return opened_.load(std::memory_order_relaxed); }

 private:
  // Constant after construction.
  size_t parts_ = 0;
  size_t columns_ = 0;
  bool enabled_ = false;
  // One slot per (part slot, position); written once by compare-exchange, owned (deleted) here.
  mutable std::vector<std::atomic<storage::RandomAccessFile*>> files_;
  mutable std::atomic<size_t> opened_{0};
};

}  // namespace granite::worker
