#include "coordinator/cluster/catalog.h"

#include "core/error.h"

namespace granite::coordinator {

namespace pb = granite::worker::v1;

std::optional<pb::TableSchema> Catalog::Find(const std::string& name) const {
  core::ReaderLock lock(mu_);
  auto it = tables_.find(name);
  if (it == tables_.end() || !it->second.unusable.ok()) return std::nullopt;
  return it->second.schema;
}

absl::StatusOr<pb::TableSchema> Catalog::Lookup(const std::string& name) const {
  core::ReaderLock lock(mu_);
  auto it = tables_.find(name);
  if (it == tables_.end()) {
    return core::Error(core::ErrorCode::kUnknownTable, "Table default." + name + " does not exist");
  }
  if (!it->second.unusable.ok()) return it->second.unusable;
  return it->second.schema;
}

std::vector<pb::TableSchema> Catalog::All() const {
  core::ReaderLock lock(mu_);
  std::vector<pb::TableSchema> out;
  for (const auto& [name, entry] : tables_) {
    if (entry.unusable.ok()) out.push_back(entry.schema);
  }
  return out;
}

void Catalog::Put(const pb::TableSchema& schema) {
  core::WriterLock lock(mu_);
  tables_[schema.name()] = Entry{schema, absl::OkStatus()};
}

void Catalog::Remove(const std::string& name) {
  core::WriterLock lock(mu_);
  tables_.erase(name);
}

void Catalog::Reset(const std::vector<Entry>& entries) {
  core::WriterLock lock(mu_);
  tables_.clear();
  for (const Entry& entry : entries) tables_[entry.schema.name()] = entry;
  loaded_ = true;
}

void Catalog::Reset(const std::vector<pb::TableSchema>& schemas) {
  std::vector<Entry> entries;
  for (const pb::TableSchema& schema : schemas) entries.push_back(Entry{schema, absl::OkStatus()});
  Reset(entries);
}

void Catalog::Invalidate() {
  core::WriterLock lock(mu_);
  loaded_ = false;
}

bool Catalog::loaded() const {
  core::ReaderLock lock(mu_);
  return loaded_;
}

}  // namespace granite::coordinator
