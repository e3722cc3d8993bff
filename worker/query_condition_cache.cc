#include "worker/query_condition_cache.h"

#include <string_view>

#include "core/wire/plan_codec.h"

namespace granite::worker {

namespace {

// Functions whose value is not fixed by their arguments: a filter calling one is never cached.
// Nor is one holding an IN set as a column (plan::Expr::Kind::kSet): the key would be as large
// as the set, which comes from a subquery whose answer changes with its tables.
bool Volatile(const core::plan::Expr& expr) {
  if (expr.is_set()) return true;
  if (!expr.is_call()) return false;
  const std::string& name = expr.function;
  for (std::string_view v : {"rand", "rand32", "rand64", "randConstant", "generateUUIDv4", "now",
                             "now64", "today", "yesterday", "uptime", "rowNumberInBlock",
                             "rowNumberInAllBlocks", "blockNumber"}) {
    if (name == v) return true;
  }
  for (const core::plan::Expr& arg : expr.args) {
    if (Volatile(arg)) return true;
  }
  return false;
}

}  // namespace

QueryConditionCache::QueryConditionCache(size_t max_entries) : max_entries_(max_entries) {}

QueryConditionCache& QueryConditionCache::Global() {
  static QueryConditionCache* cache = new QueryConditionCache();
  return *cache;
}

std::string QueryConditionCache::KeyOf(const core::plan::Fragment& fragment) {
  if (!fragment.filter || !fragment.scan.is_table()) return "";
  if (!fragment.settings.use_query_condition_cache) return "";
  if (Volatile(*fragment.filter)) return "";
  std::string key = fragment.scan.table;
  for (const std::string& column : fragment.scan.columns) {
    key.push_back('\0');
    key += column;
  }
  key.push_back('\1');
  return key + core::wire::EncodeExpr(*fragment.filter);
}

std::vector<bool> QueryConditionCache::EmptyGranules(
    const std::shared_ptr<const storage::Part>& part, const std::string& key) const {
  core::ReaderLock lock(mu_);
  auto it = entries_.find(Key(part.get(), key));
  if (it == entries_.end() || it->second.part.lock() != part) return {};
  return it->second.empty;
}

void QueryConditionCache::MarkEmpty(const std::shared_ptr<const storage::Part>& part,
                                    const std::string& key, size_t begin, size_t end) {
  {
    // Double-checked: a repeated query re-reports granules the cache already knows.
    core::ReaderLock lock(mu_);
    auto it = entries_.find(Key(part.get(), key));
    if (it != entries_.end() && it->second.part.lock() == part) {
      const std::vector<bool>& empty = it->second.empty;
      size_t g = begin;
      while (g < end && g < empty.size() && empty[g]) ++g;
      if (g >= end || g >= empty.size()) return;
    }
  }
  core::WriterLock lock(mu_);
  auto it = entries_.find(Key(part.get(), key));
  if (it != entries_.end() && it->second.part.lock() != part) {
    entries_.erase(it);  // a new part at a freed part's address
    it = entries_.end();
  }
  if (it == entries_.end()) {
    if (entries_.size() >= max_entries_) {
      for (auto e = entries_.begin(); e != entries_.end();) {
        e = e->second.part.expired() ? entries_.erase(e) : std::next(e);
      }
      if (entries_.size() >= max_entries_) entries_.clear();
    }
    Entry entry;
    entry.part = part;
    entry.empty.assign(part->granule_count(), false);
    it = entries_.emplace(Key(part.get(), key), std::move(entry)).first;
  }
  std::vector<bool>& empty = it->second.empty;
  for (size_t g = begin; g < end && g < empty.size(); ++g) empty[g] = true;
}

size_t QueryConditionCache::size() const {
  core::ReaderLock lock(mu_);
  return entries_.size();
}

}  // namespace granite::worker
