#include "coordinator/catalog.h"

namespace granite::coordinator {

namespace pb = granite::worker::v1;

std::optional<pb::TableSchema> Catalog::Find(const std::string& name) const {
  core::ReaderLock lock(mu_);
  auto it = tables_.find(name);
  if (it == tables_.end()) return std::nullopt;
  return it->second;
}

std::vector<pb::TableSchema> Catalog::All() const {
  core::ReaderLock lock(mu_);
  std::vector<pb::TableSchema> out;
  for (const auto& [name, schema] : tables_) out.push_back(schema);
  return out;
}

void Catalog::Put(const pb::TableSchema& schema) {
  core::WriterLock lock(mu_);
  tables_[schema.name()] = schema;
}

void Catalog::Remove(const std::string& name) {
  core::WriterLock lock(mu_);
  tables_.erase(name);
}

void Catalog::Reset(const std::vector<pb::TableSchema>& schemas) {
  core::WriterLock lock(mu_);
  tables_.clear();
  for (const auto& schema : schemas) tables_[schema.name()] = schema;
  loaded_ = true;
}

bool Catalog::loaded() const {
  core::ReaderLock lock(mu_);
  return loaded_;
}

}  // namespace granite::coordinator
