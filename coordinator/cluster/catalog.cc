#include "coordinator/cluster/catalog.h"

#include <iterator>

#include "coordinator/cluster/table_name.h"
#include "core/error.h"

namespace granite::coordinator {


std::optional<core::TableSchema> Catalog::Find(const std::string& name) const {
  core::ReaderLock lock(mu_);
  auto it = tables_.find(name);
  if (it == tables_.end() || !it->second.unusable.ok()) return std::nullopt;
  return it->second.schema;
}

absl::StatusOr<core::TableSchema> Catalog::Lookup(const std::string& name) const {
  core::ReaderLock lock(mu_);
  auto it = tables_.find(name);
  if (it == tables_.end()) {
    return core::Error(core::ErrorCode::kUnknownTable, "Table " + DisplayTableName(name) + " does not exist");
  }
  if (!it->second.unusable.ok()) return it->second.unusable;
  return it->second.schema;
}

std::vector<core::TableSchema> Catalog::All() const {
  core::ReaderLock lock(mu_);
  std::vector<core::TableSchema> out;
  for (const auto& [name, entry] : tables_) {
    if (entry.unusable.ok()) out.push_back(entry.schema);
  }
  return out;
}

std::vector<Catalog::Entry> Catalog::Entries() const {
  core::ReaderLock lock(mu_);
  std::vector<Entry> out;
  for (const auto& [name, entry] : tables_) out.push_back(entry);
  return out;
}

uint64_t Catalog::generation() const {
  core::ReaderLock lock(mu_);
  return generation_;
}

void Catalog::Put(const core::TableSchema& schema) {
  core::WriterLock lock(mu_);
  ++generation_;
  tables_[schema.name] = Entry{schema, absl::OkStatus()};
}

void Catalog::Remove(const std::string& name) {
  core::WriterLock lock(mu_);
  ++generation_;
  tables_.erase(name);
}

void Catalog::Reset(const std::vector<Entry>& entries) {
  core::WriterLock lock(mu_);
  tables_.clear();
  for (const Entry& entry : entries) tables_[entry.schema.name] = entry;
  loaded_ = true;
}

void Catalog::Reset(const std::vector<core::TableSchema>& schemas) {
  std::vector<Entry> entries;
  for (const core::TableSchema& schema : schemas) entries.push_back(Entry{schema, absl::OkStatus()});
  Reset(entries);
}

void Catalog::Invalidate() {
  core::WriterLock lock(mu_);
  ++generation_;
  loaded_ = false;
}

bool Catalog::loaded() const {
  core::ReaderLock lock(mu_);
  return loaded_;
}

void Catalog::ResetDatabases(const std::set<std::string>& created) {
  core::WriterLock lock(mu_);
  databases_ = created;
}

void Catalog::PutDatabase(const std::string& name) {
  core::WriterLock lock(mu_);
  ++generation_;
  databases_.insert(name);
}

void Catalog::RemoveDatabase(const std::string& name) {
  core::WriterLock lock(mu_);
  ++generation_;
  databases_.erase(name);
  for (auto it = tables_.begin(); it != tables_.end();) {
    it = SplitTableName(it->first).database == name ? tables_.erase(it) : std::next(it);
  }
}

bool Catalog::HasDatabase(const std::string& name) const {
  if (name == kDefaultDatabase || name == kSystemDatabase) return true;
  core::ReaderLock lock(mu_);
  if (databases_.contains(name)) return true;
  for (const auto& [table, entry] : tables_) {
    if (SplitTableName(table).database == name) return true;
  }
  return false;
}

std::vector<std::string> Catalog::Databases() const {
  std::set<std::string> all{std::string(kDefaultDatabase), std::string(kSystemDatabase)};
  core::ReaderLock lock(mu_);
  all.insert(databases_.begin(), databases_.end());
  for (const auto& [table, entry] : tables_) all.insert(SplitTableName(table).database);
  return std::vector<std::string>(all.begin(), all.end());
}

}  // namespace granite::coordinator
