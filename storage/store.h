// Store: the worker's data directory — every table's shard, found again after a restart.
//
// Layout:
//   <data>/tables/<escaped table name>/schema       EncodeTableSchema() output
//   <data>/tables/<escaped table name>/parts/<part> see storage/part_format.h
// Table directory names escape every byte outside [A-Za-z0-9_-] as %XX, so any table name is a
// safe, distinct file name that never contains '.'. Directories being created or dropped are named
// tmp.create.* / tmp.drop.* and are deleted by Open(): CREATE writes the schema into a temporary
// directory and renames it into place; DROP renames the table away before deleting it. Either
// way a table directory that Open() sees is complete.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/mutex.h"
#include "storage/file_system.h"
#include "storage/merge_scheduler.h"
#include "storage/table.h"
#include "storage/table_schema.h"

namespace granite::storage {

// Holds the tables of one data directory.
// Thread-safety: all methods may be called concurrently. Lookups take the "catalog" lock shared;
// CREATE and DROP are serialized by the "ddl" lock and take "catalog" exclusively only to change
// the map. Lock order: ddl → catalog, ddl → Table's locks.
class Store {
 public:
  // Opens (creating if needed) the data directory: deletes leftover tmp.* table directories and
  // opens every table (see Table::Open for what happens to its parts).
  // Errors: I/O errors; CORRUPTED_DATA if a table's schema file is missing or damaged (the store
  // refuses to start rather than delete a table's data).
  static absl::StatusOr<std::unique_ptr<Store>> Open(std::string data_dir,
                                                     std::shared_ptr<FileSystem> fs = Posix());

  // Creates an empty table. If it exists: with `or_replace` the old table is dropped and replaced,
  // else with `if_not_exists` nothing happens, else TABLE_ALREADY_EXISTS.
  // Errors: see ValidateTableSchema; I/O errors (then no new table is visible, even after reopen).
  absl::Status CreateTable(const TableSchema& schema, bool if_not_exists, bool or_replace)
      EXCLUDES(ddl_mu_, catalog_mu_);

  // Drops a table and removes its directory, after waiting for running inserts into it (later
  // ones fail). UNKNOWN_TABLE if it does not exist and !if_exists. Queries that still hold a
  // snapshot of the table may fail with CANNOT_READ_FROM_FILE once its files are gone.
  absl::Status DropTable(std::string_view name, bool if_exists) EXCLUDES(ddl_mu_, catalog_mu_);

  // Returns the table, or null if it does not exist.
  std::shared_ptr<Table> GetTable(std::string_view name) const EXCLUDES(catalog_mu_);

  // Returns every table, sorted by name.
  std::vector<std::shared_ptr<Table>> Tables() const EXCLUDES(catalog_mu_);

  const std::string& data_dir() const { return data_dir_; }

  // Starts background merges of every table with `options` (storage/merge_scheduler.h).
  // REQUIRES: called once, before the store is used concurrently (worker start-up).
  void StartBackgroundMerges(const MergeOptions& options);
  // OPTIMIZE TABLE `name` [FINAL]: merges now (see MergeScheduler::Optimize).
  // Errors: UNKNOWN_TABLE; those of the merge.
  absl::Status Optimize(std::string_view name, bool final);
  // Returns the running merges (system.merges).
  std::vector<MergeInfo> RunningMerges() const;

 private:
  Store(std::string data_dir, std::shared_ptr<FileSystem> fs);

  // Removes `table` from the catalog and deletes its directory; if moving the directory away
  // fails, the table stays as it was.
  absl::Status DropLocked(const std::shared_ptr<Table>& table) REQUIRES(ddl_mu_);
  // Writes an empty table into tables/tmp.create.<escaped> and renames it into place.
  // With `replaced`, drops it just before the rename (if that rename then fails, neither table
  // remains).
  absl::Status WriteTableDirectory(const TableSchema& schema,
                                   const std::shared_ptr<Table>& replaced) REQUIRES(ddl_mu_);

  // Constant after construction.
  std::string data_dir_;
  std::string tables_dir_;
  std::shared_ptr<FileSystem> fs_;

  core::Mutex ddl_mu_{"ddl"};
  mutable core::SharedMutex catalog_mu_{"catalog"};
  std::map<std::string, std::shared_ptr<Table>, std::less<>> tables_ GUARDED_BY(catalog_mu_);

  // Declared last: destroyed first, so no merge outlives the tables.
  std::unique_ptr<MergeScheduler> merges_;
};

// Returns the directory name of table `name` (see the layout above).
std::string EscapeTableName(std::string_view name);

}  // namespace granite::storage
