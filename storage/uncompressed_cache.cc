#include "storage/uncompressed_cache.h"

#include <algorithm>
#include <iterator>

#include "core/memory/memory_tracker.h"
#include "core/metrics/callback_metrics.h"
#include "core/metrics/events.h"

namespace granite::storage {

UncompressedBlock::UncompressedBlock(size_t n) : size(n) {
  core::MemoryTrackerScope server(nullptr);
  data.reset(new char[n]);
}

UncompressedBlock::UncompressedBlock(core::Column column) {
  core::MemoryTrackerScope server(nullptr);
  size = column.ByteSize();
  decoded.emplace(std::move(column));
}

UncompressedBlock::~UncompressedBlock() {
  core::MemoryTrackerScope server(nullptr);
  data.reset();
  decoded.reset();
}

size_t UncompressedCache::KeyHash::operator()(const Key& key) const {
  uint64_t h = key.part_id * 0x9E3779B97F4A7C15ULL;
  h ^= (uint64_t{key.column} << 32 | key.granule) + 0x7F4A7C159E3779B9ULL + (h << 6) + (h >> 2);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return static_cast<size_t>(h);
}

UncompressedCache::UncompressedCache(uint64_t capacity_bytes, size_t shards)
    : capacity_(capacity_bytes) {
  shards_.reserve(shards);
  for (size_t i = 0; i < shards; ++i) shards_.push_back(std::make_unique<Shard>());
}

UncompressedCache& UncompressedCache::Global() {
  // Leaked on purpose: parts destroyed during static destruction still call ErasePart.
  static UncompressedCache* cache = [] {
    auto* created = new UncompressedCache(0);
    static auto* gauge = new core::CallbackRegistration(core::RegisterGauge(
        "granite_uncompressed_cache_bytes", "UncompressedCacheBytes",
        "Decompressed granule bytes held by the uncompressed cache",
        [created] { return static_cast<int64_t>(created->bytes()); }));
    (void)gauge;
    return created;
  }();
  return *cache;
}

uint64_t UncompressedCache::DefaultCapacityFor(uint64_t physical_bytes) {
  return std::min<uint64_t>(physical_bytes / 8, uint64_t{8} << 30);
}

uint64_t UncompressedCache::DefaultCapacity() {
  // The smaller of RAM and the cgroup's limit: in a small pod, an eighth of the node's RAM
  // would outgrow the process's own memory limit.
  const int64_t memory = core::DefaultServerMemoryLimit(1.0);
  return memory > 0 ? DefaultCapacityFor(static_cast<uint64_t>(memory)) : 0;
}

UncompressedCache::Shard& UncompressedCache::ShardOf(const Key& key) {
  // The top bits: the map inside the shard uses the low ones.
  return *shards_[(KeyHash()(key) >> 40) % shards_.size()];
}

void UncompressedCache::SetCapacity(uint64_t capacity_bytes) {
  capacity_.store(capacity_bytes, std::memory_order_relaxed);
  uint64_t limit = ShardLimit();
  for (auto& shard : shards_) {
    core::MutexLock lock(shard->mu);
    EvictLocked(*shard, limit);
  }
}

UncompressedBlockPtr UncompressedCache::Lookup(const Key& key) {
  Shard& shard = ShardOf(key);
  if (shard.mu.try_lock_briefly()) {
    core::MutexLock lock(shard.mu, std::adopt_lock);
    auto it = shard.map.find(key);
    if (it != shard.map.end()) {
      it->second.referenced = true;
      UncompressedBlockPtr block = it->second.block;
      core::CountEvent(core::Event::kUncompressedCacheHits);
      return block;
    }
  }
  core::CountEvent(core::Event::kUncompressedCacheMisses);
  return nullptr;
}

void UncompressedCache::Insert(const Key& key, UncompressedBlockPtr block) {
  uint64_t limit = ShardLimit();
  if (block == nullptr || block->size > limit) return;
  Shard& shard = ShardOf(key);
  size_t size = block->size;
  if (!shard.mu.try_lock_briefly()) return;
  core::MutexLock lock(shard.mu, std::adopt_lock);
  if (shard.map.contains(key)) return;
  shard.lru.push_front(key);
  shard.map.emplace(key, Entry{std::move(block), shard.lru.begin()});
  shard.per_part[key.part_id].insert(PartSlot(key));
  shard.bytes += size;
  core::CountEvent(core::Event::kUncompressedCacheBytesInserted, size);
  EvictLocked(shard, limit);
}

void UncompressedCache::EraseLastLocked(Shard& shard) {
  const Key key = shard.lru.back();
  auto entry = shard.map.find(key);
  shard.bytes -= entry->second.block->size;
  auto part = shard.per_part.find(key.part_id);
  part->second.erase(PartSlot(key));
  if (part->second.empty()) shard.per_part.erase(part);
  shard.map.erase(entry);
  shard.lru.pop_back();
}

void UncompressedCache::EvictLocked(Shard& shard, uint64_t limit) {
  uint64_t evicted = 0;
  while (shard.bytes > limit && !shard.lru.empty()) {
    Entry& last = shard.map.find(shard.lru.back())->second;
    if (last.referenced) {  // a second chance: to the front, unreferenced
      last.referenced = false;
      shard.lru.splice(shard.lru.begin(), shard.lru, last.position);
      continue;
    }
    EraseLastLocked(shard);
    ++evicted;
  }
  if (evicted > 0) core::CountEvent(core::Event::kUncompressedCacheEvictions, evicted);
}

void UncompressedCache::ErasePart(uint64_t part_id) {
  // SetCapacity(0) emptied every shard; a block inserted while it ran is never served again
  // (its part is gone) and leaves with the next eviction.
  if (!enabled()) return;
  for (auto& shard : shards_) {
    core::MutexLock lock(shard->mu);
    auto part = shard->per_part.find(part_id);
    if (part == shard->per_part.end()) continue;
    for (uint64_t slot : part->second) {
      Key key{part_id, static_cast<uint32_t>(slot >> 32), static_cast<uint32_t>(slot)};
      auto entry = shard->map.find(key);
      shard->bytes -= entry->second.block->size;
      shard->lru.erase(entry->second.position);
      shard->map.erase(entry);
    }
    shard->per_part.erase(part);
  }
}

uint64_t UncompressedCache::bytes() const {
  uint64_t total = 0;
  for (const auto& shard : shards_) {
    core::MutexLock lock(shard->mu);
    total += shard->bytes;
  }
  return total;
}

size_t UncompressedCache::entries() const {
  size_t total = 0;
  for (const auto& shard : shards_) {
    core::MutexLock lock(shard->mu);
    total += shard->map.size();
  }
  return total;
}

}  // namespace granite::storage
