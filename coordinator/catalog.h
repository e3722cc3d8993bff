// Catalog: the coordinator's view of table schemas. Workers own the truth (each persists its
// tables); the coordinator loads the schemas from them and updates its copy after DDL.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/mutex.h"
#include "granite/worker/v1/worker.pb.h"

namespace granite::coordinator {

// Holds table schemas by name.
// Thread-safety: read-mostly; lookups take the shared side of the "catalog" lock.
class Catalog {
 public:
  std::optional<granite::worker::v1::TableSchema> Find(const std::string& name) const
      EXCLUDES(mu_);
  std::vector<granite::worker::v1::TableSchema> All() const EXCLUDES(mu_);  // sorted by name
  void Put(const granite::worker::v1::TableSchema& schema) EXCLUDES(mu_);
  void Remove(const std::string& name) EXCLUDES(mu_);
  // Replaces the whole catalog (after loading it from a worker) and marks it loaded.
  void Reset(const std::vector<granite::worker::v1::TableSchema>& schemas) EXCLUDES(mu_);
  bool loaded() const EXCLUDES(mu_);

 private:
  mutable core::SharedMutex mu_{"catalog"};
  std::map<std::string, granite::worker::v1::TableSchema> tables_ GUARDED_BY(mu_);
  bool loaded_ GUARDED_BY(mu_) = false;
};

}  // namespace granite::coordinator
