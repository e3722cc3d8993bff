// Store: the worker's data directory — every table's shard, found again after a restart.
//
// Layout:
//   <data>/tables/<escaped table name>/schema       EncodeTableSchema() output
//   <data>/tables/<escaped table name>/parts/<part> see storage/part_format.h
//   <data>/databases/<escaped database name>/       one empty directory per CREATE DATABASE
// Databases are a name prefix: table t of database d is the table named "d.t" (directory
// d%2Et); the tables of database `default` have no prefix, so data directories older than
// databases open unchanged. RENAME TABLE moves the directory, then installs the new schema file
// written beforehand as schema.renamed (Open() finishes a rename a crash interrupted).
// Table directory names escape every byte outside [A-Za-z0-9_-] as %XX, so any table name is a
// safe, distinct file name that never contains '.'. Directories being created or dropped are named
// tmp.create.* / tmp.drop.* and are deleted by Open(): CREATE writes the schema into a temporary
// directory and renames it into place; DROP renames the table away before deleting it. Either
// way a table directory that Open() sees is complete.
// A table whose directory cannot be opened (a damaged or missing schema file, a key that no longer
// compiles, an I/O error) is kept as a *broken* table: its directory is left untouched, it is not
// served (TableOrError names the reason), DROP TABLE removes it and CREATE OR REPLACE replaces it.
// One broken table never stops the worker from serving the others.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
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
  // opens every table (see Table::Open for what happens to its parts). A table that fails to open
  // is logged to stderr and kept as broken (see above); its data is never deleted.
  // Errors: I/O errors creating or listing the tables directory.
  static absl::StatusOr<std::unique_ptr<Store>> Open(std::string data_dir,
                                                     std::shared_ptr<FileSystem> fs = Posix());

  // Creates an empty table. If it exists: with `or_replace` the old table is dropped and replaced,
  // else with `if_not_exists` nothing happens, else TABLE_ALREADY_EXISTS. A broken table of that
  // name is replaced with `or_replace`, else TABLE_ALREADY_EXISTS says it is broken.
  // Errors: see ValidateTableSchema; I/O errors (then no new table is visible, even after reopen).
  absl::Status CreateTable(const TableSchema& schema, bool if_not_exists, bool or_replace)
      EXCLUDES(ddl_mu_, catalog_mu_);

  // Drops a table (or a broken table) and removes its directory, after waiting for running
  // inserts into it (later ones fail). UNKNOWN_TABLE if it does not exist and !if_exists. Queries that still hold a
  // snapshot of the table may fail with CANNOT_READ_FROM_FILE once its files are gone.
  absl::Status DropTable(std::string_view name, bool if_exists) EXCLUDES(ddl_mu_, catalog_mu_);

  // Returns the table, or null if it does not exist.
  std::shared_ptr<Table> GetTable(std::string_view name) const EXCLUDES(catalog_mu_);

  // Returns the table; UNKNOWN_TABLE if it does not exist, CORRUPTED_DATA naming the reason if
  // it is broken.
  absl::StatusOr<std::shared_ptr<Table>> TableOrError(std::string_view name) const
      EXCLUDES(catalog_mu_);

  // Returns every table, sorted by name (broken tables are not among them).
  std::vector<std::shared_ptr<Table>> Tables() const EXCLUDES(catalog_mu_);

  // Returns the broken tables: name -> why it could not be opened.
  std::map<std::string, std::string> BrokenTables() const EXCLUDES(catalog_mu_);

  const std::string& data_dir() const { return data_dir_; }
  const std::shared_ptr<FileSystem>& file_system() const { return fs_; }

  // Databases (store_catalog.cc). CreateDatabase: DATABASE_ALREADY_EXISTS unless
  // `if_not_exists`; DropDatabase drops every table named "<name>.*" (broken ones too), then the
  // database; UNKNOWN_DATABASE unless `if_exists` when neither the database nor such a table
  // exists. Databases() lists the created ones, sorted.
  absl::Status CreateDatabase(std::string_view name, bool if_not_exists)
      EXCLUDES(ddl_mu_, catalog_mu_);
  absl::Status DropDatabase(std::string_view name, bool if_exists) EXCLUDES(ddl_mu_, catalog_mu_);
  std::vector<std::string> Databases() const EXCLUDES(catalog_mu_);
  // RENAME TABLE: moves table `from` (waiting for its running inserts) to the unused name `to`.
  // Errors: UNKNOWN_TABLE, TABLE_ALREADY_EXISTS, CORRUPTED_DATA for a broken table, I/O errors
  // (then the table keeps its old name).
  absl::Status RenameTable(std::string_view from, std::string_view to)
      EXCLUDES(ddl_mu_, catalog_mu_);
  // ALTER TABLE on columns: makes `schema` the declared schema of table `name` (store_catalog.cc).
  // The columns its parts hold must keep their types and order, unless the table has no parts:
  // names, defaults, comments, codecs (parts record the codec they were written with) and ALIAS
  // columns may change. The schema file is replaced atomically, then the table is opened again
  // (waiting for its running inserts). A table whose schema already is `schema` is left as is.
  // Errors: UNKNOWN_TABLE, CORRUPTED_DATA for a broken table, ValidateTableSchema's,
  // NOT_IMPLEMENTED when the stored columns would change under existing parts, I/O errors (then
  // the table keeps its schema).
  absl::Status AlterTableSchema(std::string_view name, const TableSchema& schema)
      EXCLUDES(ddl_mu_, catalog_mu_);
  // TRUNCATE TABLE: replaces the table by an empty one of the same schema.
  absl::Status TruncateTable(std::string_view name, bool if_exists) EXCLUDES(ddl_mu_, catalog_mu_);

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
  // Moves broken table `name`'s directory away, forgets it and deletes the directory.
  absl::Status DropBrokenLocked(const std::string& name) REQUIRES(ddl_mu_);
  // Returns why table `name` is broken, or nullopt if it is not a broken table.
  std::optional<std::string> BrokenReason(std::string_view name) const EXCLUDES(catalog_mu_);
  // Opens the table in directory `entry` of tables/, or records it as broken.
  void OpenTableDirectory(const std::string& entry);
  // Reads databases/ into databases_ (creating the directory).
  absl::Status OpenDatabases();
  // Installs a schema.renamed left in `dir` by an interrupted RENAME TABLE (see the layout).
  void FinishRename(const std::string& dir, const std::string& entry);

  // Constant after construction.
  std::string data_dir_;
  std::string tables_dir_;
  std::shared_ptr<FileSystem> fs_;

  core::Mutex ddl_mu_{"ddl"};
  mutable core::SharedMutex catalog_mu_{"catalog"};
  std::map<std::string, std::shared_ptr<Table>, std::less<>> tables_ GUARDED_BY(catalog_mu_);
  struct Broken {
    std::string dir;    // its directory
    std::string error;  // what kept it from opening
  };
  std::map<std::string, Broken, std::less<>> broken_ GUARDED_BY(catalog_mu_);
  std::set<std::string, std::less<>> databases_ GUARDED_BY(catalog_mu_);

  // Declared last: destroyed first, so no merge outlives the tables.
  std::unique_ptr<MergeScheduler> merges_;
};

// Returns the directory name of table `name` (see the layout above).
std::string EscapeTableName(std::string_view name);
// Returns the table name of directory name `escaped` (the inverse of EscapeTableName), or
// `escaped` itself if it is not such a name.
std::string UnescapeTableName(std::string_view escaped);

}  // namespace granite::storage
