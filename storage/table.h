// Table: one table's shard on this worker — its schema and its registry of active parts.
// Inserts write a new part (storage/part_writer.h) and then publish a new PartsSnapshot; SELECTs
// take the current snapshot and read its parts without holding any lock.
//
// Snapshot publication: the registry holds a shared_ptr to an immutable PartsSnapshot. Readers
// copy that pointer under the shared side of the "parts_registry" lock (a few nanoseconds); a
// writer builds the next snapshot from the current one and swaps it in under the exclusive side,
// so the copy-and-swap is atomic and no update is lost. The version number increases with every
// publication; a future writer that builds a snapshot outside the lock (a merge) must check it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/block.h"
#include "core/mutex.h"
#include "storage/file_system.h"
#include "storage/part.h"
#include "storage/table_schema.h"

namespace granite::storage {

// Immutable set of the parts a query reads, ordered by block number.
struct PartsSnapshot {
  uint64_t version = 0;
  std::vector<std::shared_ptr<const Part>> parts;
  uint64_t rows = 0;
  uint64_t bytes_on_disk = 0;
};

// Holds one table's schema and active parts.
// Thread-safety: all methods may be called concurrently; Insert() calls run in parallel (they
// share only the block-number counter and the brief publication step).
class Table {
 public:
  // Opens the table stored in `dir` (which holds `schema` and `parts/`): deletes leftovers in
  // parts/ (tmp_* directories, unparsable names, parts missing or failing files), loads every
  // complete part and resumes block numbering after the largest one.
  // Errors: CANNOT_READ_FROM_FILE / CANNOT_WRITE_TO_FILE on I/O errors.
  static absl::StatusOr<std::shared_ptr<Table>> Open(std::shared_ptr<FileSystem> fs,
                                                     std::string dir, TableSchema schema);

  const TableSchema& schema() const { return *schema_; }
  const std::string& name() const { return schema_->name; }
  const std::string& directory() const { return dir_; }

  // Writes the rows of `block` as ONE new durable part and only then makes it visible; returns
  // the part's name, or "" for a block of 0 rows (nothing is written).
  // REQUIRES: block.columns are in schema order.
  // Errors: NUMBER_OF_COLUMNS_DOESNT_MATCH, TYPE_MISMATCH, BAD_ARGUMENTS (columns of different
  // lengths), UNKNOWN_TABLE (dropped), CANNOT_WRITE_TO_FILE. On error nothing becomes visible.
  absl::StatusOr<std::string> Insert(const core::Block& block) EXCLUDES(drop_mu_, parts_mu_);

  // Returns the current set of parts; holding it keeps those parts readable.
  std::shared_ptr<const PartsSnapshot> Snapshot() const EXCLUDES(parts_mu_);

  uint64_t rows() const { return Snapshot()->rows; }
  uint64_t bytes_on_disk() const { return Snapshot()->bytes_on_disk; }

  // Waits for running inserts to finish and makes later ones fail with UNKNOWN_TABLE. Called by
  // Store before it moves the table's directory away; Undrop() reverts it if that fails.
  void MarkDropped() EXCLUDES(drop_mu_);
  void Undrop() EXCLUDES(drop_mu_);

 private:
  Table(std::shared_ptr<FileSystem> fs, std::string dir, std::shared_ptr<const TableSchema> schema);

  absl::Status CheckBlock(const core::Block& block) const;
  // Adds `part` to a new snapshot and publishes it.
  void Publish(std::shared_ptr<const Part> part) EXCLUDES(parts_mu_);

  // Constant after construction.
  std::shared_ptr<FileSystem> fs_;
  std::string dir_;
  std::string parts_dir_;
  std::shared_ptr<const TableSchema> schema_;
  size_t granule_rows_;

  // Next block number; each insert takes one.
  std::atomic<uint64_t> next_block_{1};

  // Held shared by every running insert, exclusively by MarkDropped().
  core::SharedMutex drop_mu_{"table_drop"};
  bool dropped_ GUARDED_BY(drop_mu_) = false;

  mutable core::SharedMutex parts_mu_{"parts_registry"};
  std::shared_ptr<const PartsSnapshot> snapshot_ GUARDED_BY(parts_mu_);
};

}  // namespace granite::storage
