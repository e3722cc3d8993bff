// Catalog: the coordinator's view of table schemas. Workers own the truth (each persists its
// tables); the coordinator loads the schemas from them and updates its copy after DDL.
// A table that not every worker holds with the same schema (an interrupted CREATE or DROP, a
// worker's data restored from elsewhere) or that a worker reports broken (storage/store.h) is
// *unusable*: it is kept with the reason, so a query on it fails saying what is wrong and which
// workers, while All() (system.tables, SHOW TABLES) lists only usable tables.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/mutex.h"
#include "core/table_schema.h"

namespace granite::coordinator {

// Holds table schemas by name.
// Thread-safety: read-mostly; lookups take the shared side of the "catalog" lock.
class Catalog {
 public:
  struct Entry {
    core::TableSchema schema;
    absl::Status unusable;  // OK for a usable table, else the error a query on it gets
  };

  // Returns the schema of a usable table, else nullopt.
  std::optional<core::TableSchema> Find(const std::string& name) const
      EXCLUDES(mu_);
  // Returns the schema of a usable table; UNKNOWN_TABLE if there is none of that name, else the
  // error that makes it unusable.
  absl::StatusOr<core::TableSchema> Lookup(const std::string& name) const
      EXCLUDES(mu_);
  std::vector<core::TableSchema> All() const EXCLUDES(mu_);  // usable, by name
  std::vector<Entry> Entries() const EXCLUDES(mu_);  // usable or not, by name
  void Put(const core::TableSchema& schema) EXCLUDES(mu_);
  void Remove(const std::string& name) EXCLUDES(mu_);
  // Replaces the whole catalog (after loading it from the workers) and marks it loaded.
  void Reset(const std::vector<Entry>& entries) EXCLUDES(mu_);
  // The same with every table usable.
  void Reset(const std::vector<core::TableSchema>& schemas) EXCLUDES(mu_);
  // Marks the catalog stale (after a DDL that may have left workers disagreeing): the next
  // EnsureCatalog loads it again.
  void Invalidate() EXCLUDES(mu_);
  bool loaded() const EXCLUDES(mu_);
  // Counts the changes made by Put, Remove, Invalidate and the database edits (not by the
  // Resets): a loader that saw it move while it listed the workers knows a change (from another
  // coordinator, through etcd) may be missing from its listing.
  uint64_t generation() const EXCLUDES(mu_);

  // Databases: `default` and `system` always exist; others once created on the workers (or
  // while a table's name carries them, table_name.h). ResetDatabases replaces the created ones.
  void ResetDatabases(const std::set<std::string>& created) EXCLUDES(mu_);
  void PutDatabase(const std::string& name) EXCLUDES(mu_);
  void RemoveDatabase(const std::string& name) EXCLUDES(mu_);
  bool HasDatabase(const std::string& name) const EXCLUDES(mu_);
  std::vector<std::string> Databases() const EXCLUDES(mu_);  // sorted

 private:
  mutable core::SharedMutex mu_{"catalog"};
  std::map<std::string, Entry> tables_ GUARDED_BY(mu_);
  bool loaded_ GUARDED_BY(mu_) = false;
  uint64_t generation_ GUARDED_BY(mu_) = 0;
  std::set<std::string> databases_ GUARDED_BY(mu_);
};

}  // namespace granite::coordinator
