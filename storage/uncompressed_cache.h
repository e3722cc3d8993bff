// UncompressedCache: a process-wide, size-bounded cache of decompressed granule blocks, so hot
// scans skip the pread, the XXH64 check and the LZ4 decode of blocks they read before (ClickHouse's
// uncompressed cache). Part::ReadColumn / ReadStringSizes consult it per granule when the caller
// passes one (worker/morsel_source.cc passes Global() unless SETTINGS use_uncompressed_cache = 0);
// a block enters it only after its checksum was verified and it decompressed to its full size.
//
// Decoded granules: a granule of a plain column (not Sparse, Array or LowCardinality's
// dictionary) that ReadColumn reads alone (a morsel at the default index_granularity) is kept
// decoded, as the core::Column the read returns (UncompressedBlock::decoded), and a hit returns
// that very column (shared, immutable: core/column.h) instead of copying its bytes into a new
// one; the other readers copy out of it as they do out of raw bytes.
//
// Keys: (Part::id(), column, granule). A part id is a per-process generation number that no later
// part reuses, so a part that replaces another under the same name never hits the old part's
// entries; ~Part erases its entries from Global() (ErasePart), others age out by LRU.
//
// Layout: kDefaultShards shards chosen by key hash, each with its own named Mutex
// ("uncompressed_cache"), a flat hash map holding each entry's block, and a recency list of keys;
// capacity is split evenly across shards. A hit takes one shard lock (never waited for: a busy
// shard counts as a miss), marks the entry referenced in its map slot and copies a shared_ptr:
// values are immutable and shared, so an eviction never frees bytes a reader is still copying
// from. Eviction is LRU with a second chance (CLOCK): the list's oldest entry goes unless it was
// referenced since it last reached the end, in which case it moves to the front unreferenced. A
// hit then touches the map's slot alone; moving the entry on every hit (a node-based map and a
// list splice) cost about 1 us of cache misses per granule read, 8% of a scan of hot columns. Each shard also
// indexes its entries by part, so ErasePart costs the part's own entries, not a walk of the shard
// (parts go on every merge; a walk under the lock stalled concurrent scans and INSERTs).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/column.h"
#include "core/mutex.h"

namespace granite::storage {

// One granule block: its decompressed bytes, or the granule decoded as a column. Immutable once
// in the cache.
// Its bytes are the server's, not the query's that read them first: they are allocated and
// freed under the server's MemoryTracker (core/memory/memory_tracker.h), so a scan that fills
// the cache does not run into its own max_memory_usage, and an eviction during another query
// does not credit that query. A reader holds a decoded column through DecodedColumn, which
// keeps the whole block alive, so the column is freed with the block, under the server's tracker.
struct UncompressedBlock {
  // `n` raw bytes, to be filled before the block is shared.
  explicit UncompressedBlock(size_t n);
  // A decoded granule. REQUIRES: its buffers were allocated under the server's tracker
  // (core::MemoryTrackerScope(nullptr)).
  explicit UncompressedBlock(core::Column column);
  ~UncompressedBlock();
  UncompressedBlock(const UncompressedBlock&) = delete;
  UncompressedBlock& operator=(const UncompressedBlock&) = delete;
  std::unique_ptr<char[]> data;  // raw bytes; null when `decoded` is set
  size_t size;                   // bytes held (decoded: the column's ByteSize)
  std::optional<core::Column> decoded;
};
using UncompressedBlockPtr = std::shared_ptr<const UncompressedBlock>;

// Returns the decoded column of `block` as a ColumnPtr that shares the block's ownership.
// REQUIRES: block->decoded.
inline core::ColumnPtr DecodedColumn(const UncompressedBlockPtr& block) {
  return core::ColumnPtr(block, &*block->decoded);
}

// Thread-safety: every method may be called concurrently from any thread.
class UncompressedCache {
 public:
  static constexpr size_t kDefaultShards = 16;

  struct Key {
    uint64_t part_id = 0;
    uint32_t column = 0;
    uint32_t granule = 0;
    bool operator==(const Key& other) const = default;
  };

  // Holds at most `capacity_bytes` of block data (plus bookkeeping); 0 disables the cache.
  // REQUIRES: shards >= 1.
  explicit UncompressedCache(uint64_t capacity_bytes, size_t shards = kDefaultShards);
  UncompressedCache(const UncompressedCache&) = delete;
  UncompressedCache& operator=(const UncompressedCache&) = delete;

  // Returns the worker's cache. Starts with capacity 0 (disabled) until SetCapacity; registers the
  // gauge granite_uncompressed_cache_bytes (system.metrics UncompressedCacheBytes) on first use.
  static UncompressedCache& Global();

  // Returns the default capacity for a machine with `physical_bytes` of RAM: 1/8 of it, at most
  // 8 GiB (ClickHouse's historical uncompressed_cache_size). The blocks of hot columns are what
  // repeated scans read; an eighth leaves the rest for hash tables, sorts and the page cache.
  static uint64_t DefaultCapacityFor(uint64_t physical_bytes);
  // DefaultCapacityFor the smaller of this machine's RAM and its cgroup's memory limit; 0 when
  // neither can be read.
  static uint64_t DefaultCapacity();

  // Changes the capacity, evicting down to it. 0 disables and empties the cache.
  void SetCapacity(uint64_t capacity_bytes);
  uint64_t capacity() const { return capacity_.load(std::memory_order_relaxed); }
  bool enabled() const { return capacity() > 0; }

  // Lookup and Insert take their shard's lock with Mutex::try_lock_briefly: a busy shard is a
  // miss (Insert keeps nothing). The holder may be a SCHED_IDLE scan thread preempted with the
  // lock held (waits of 150-300 us each, bench/results/parts-2026-11-23.md, Session 7), while a
  // miss costs one block's pread and decompression.
  // Returns the block of `key`, or nullptr (counting a hit or a miss).
  UncompressedBlockPtr Lookup(const Key& key);
  // Inserts `block` under `key` (replacing nothing if the key is present), then evicts least
  // recently used blocks of its shard down to the shard's share. A block larger than the share is
  // not cached. No-op when disabled.
  void Insert(const Key& key, UncompressedBlockPtr block);
  // Drops every block of part `part_id`.
  void ErasePart(uint64_t part_id);

  // Returns the bytes of block data held now, and the number of blocks.
  uint64_t bytes() const;
  size_t entries() const;

 private:
  struct KeyHash {
    size_t operator()(const Key& key) const;
  };
  using Lru = std::list<Key>;  // most recently inserted or given a second chance first
  struct Entry {
    UncompressedBlockPtr block;
    Lru::iterator position;
    bool referenced = false;  // hit since it last reached the list's end
  };

  struct Shard {
    core::Mutex mu{"uncompressed_cache"};
    Lru lru GUARDED_BY(mu);
    absl::flat_hash_map<Key, Entry, KeyHash> map GUARDED_BY(mu);
    // The (column, granule) of every entry, by part id (PartSlot packs them).
    std::unordered_map<uint64_t, std::unordered_set<uint64_t>> per_part GUARDED_BY(mu);
    uint64_t bytes GUARDED_BY(mu) = 0;
  };

  Shard& ShardOf(const Key& key);
  // A key's column and granule in one number, for Shard::per_part.
  static uint64_t PartSlot(const Key& key) { return uint64_t{key.column} << 32 | key.granule; }
  // Evicts from the back of `shard` until its bytes fit `limit` (second chance: see Layout).
  void EvictLocked(Shard& shard, uint64_t limit) REQUIRES(shard.mu);
  // Removes the entry at the back of `shard`'s list.
  void EraseLastLocked(Shard& shard) REQUIRES(shard.mu);
  uint64_t ShardLimit() const { return capacity() / shards_.size(); }

  std::atomic<uint64_t> capacity_;
  // Constant after construction (the vector; each shard guards itself).
  std::vector<std::unique_ptr<Shard>> shards_;
};

}  // namespace granite::storage
