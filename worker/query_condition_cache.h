// QueryConditionCache: remembers, per part and per WHERE filter, the granules in which the filter
// matched no row, so the next query with the same filter skips them without reading a byte (as
// ClickHouse's query condition cache does). It sits between FragmentExecutor, which reports a
// morsel whose rows all failed the filter, and MorselSource, which leaves such granules out when
// it cuts the next fragment's morsels.
//
// Parts are immutable, so an entry never goes stale; it names its part by pointer and keeps a
// weak_ptr to tell a freed part's address reused by a new part. A filter is keyed by its
// serialized protobuf plus the names of the source columns its column indexes refer to. Filters
// calling a function whose result changes between calls (rand, now, ...) are never cached.
// Turned off per query with SETTINGS use_query_condition_cache = 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "core/plan/fragment.h"
#include "storage/part.h"

namespace granite::worker {

// Thread-safety: every method may be called from any thread.
class QueryConditionCache {
 public:
  // Holds at most `max_entries` (part, filter) entries; beyond, expired ones go first, then all.
  explicit QueryConditionCache(size_t max_entries = 65536);

  // Returns the process-wide cache of a worker.
  static QueryConditionCache& Global();

  // Returns the cache key of `fragment`'s filter, or "" when the fragment has no filter, the
  // filter must not be cached, or the fragment's settings turn the cache off.
  static std::string KeyOf(const core::plan::Fragment& fragment);

  // Returns one flag per granule of `part`: true when `key`'s filter matches no row of it.
  // Empty when nothing is known. REQUIRES: key is not empty.
  std::vector<bool> EmptyGranules(const std::shared_ptr<const storage::Part>& part,
                                  const std::string& key) const;

  // Records that no row of granules [begin, end) of `part` matches `key`'s filter.
  // REQUIRES: key is not empty; begin <= end <= part->granule_count().
  void MarkEmpty(const std::shared_ptr<const storage::Part>& part, const std::string& key,
                 size_t begin, size_t end);

  size_t size() const;

 private:
  struct Entry {
    std::weak_ptr<const storage::Part> part;
    std::vector<bool> empty;  // one per granule
  };
  using Key = std::pair<const storage::Part*, std::string>;

  // Constant after construction.
  const size_t max_entries_;

  // Protected by mu_: lookups (every query, every part) take it shared; only recording a
  // granule not yet known to be empty takes it exclusively.
  mutable core::SharedMutex mu_{"query_condition_cache"};
  std::map<Key, Entry> entries_ GUARDED_BY(mu_);
};

}  // namespace granite::worker
