// PartMerger: writes the parts of one partition, contiguous in block order, as one new part — the
// heart of a merge. It reads every column of every source (checksums verified), concatenates them
// in block order, sorts the rows by the table's key (stably, so rows with equal keys keep their
// insertion order) and writes the result like PartWriter::Write does: into tmp_merge_<name>, fsync,
// rename to <name>, fsync parts/. Making the result visible and retiring the sources is the
// registry's job (PartsRegistry::Replace); a crash in between leaves both, and start-up drops the
// covered sources (storage/part_recovery.h).
//
// Memory: the merge holds its rows in memory, so MergeLimits::max_bytes bounds it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/part.h"
#include "storage/part_splitter.h"
#include "storage/part_writer.h"

namespace granite::storage {

// How far a merge got, for system.merges.
// Thread-safety: atomics, written by the merging thread, read by anyone.
struct MergeProgress {
  std::atomic<uint64_t> rows_read{0};
  std::atomic<uint64_t> rows_written{0};
  std::atomic<uint64_t> total_rows{0};
  std::atomic<uint64_t> total_bytes_compressed{0};
};

// Merges parts of one table.
// Thread-safety: Merge() may run concurrently for disjoint sources.
class PartMerger {
 public:
  PartMerger(std::shared_ptr<FileSystem> fs, std::shared_ptr<const TableSchema> schema,
             std::shared_ptr<const PartSplitter> splitter, std::string parts_dir,
             PartWriter::Options options);

  // Returns the name of the part that merging `sources` produces: their partition, first and last
  // block, and one level above the highest source. REQUIRES: sources non-empty, in block order.
  static PartName ResultName(const std::vector<std::shared_ptr<const Part>>& sources);

  // Merges `sources` (same partition, contiguous in block order) into part ResultName(sources),
  // durable and in place but not registered. `cancelled` is polled between steps.
  // Errors: QUERY_WAS_CANCELLED when cancelled; read errors of the sources (e.g.
  // CHECKSUM_DOESNT_MATCH naming table, part and column; then *broken, if given, is set to the
  // damaged source); CANNOT_WRITE_TO_FILE. On error nothing is left behind.
  absl::StatusOr<std::shared_ptr<const Part>> Merge(
      const std::vector<std::shared_ptr<const Part>>& sources, MergeProgress* progress,
      const std::atomic<bool>& cancelled,
      std::shared_ptr<const Part>* broken = nullptr) const;

 private:
  // Constant after construction.
  std::shared_ptr<FileSystem> fs_;
  std::shared_ptr<const TableSchema> schema_;
  std::shared_ptr<const PartSplitter> splitter_;
  std::string parts_dir_;
  PartWriter::Options options_;
};

}  // namespace granite::storage
