// PartsRegistry: the active parts of one table, the immutable snapshot of them that every SELECT
// shares, block-number allocation, and the parts that merges replaced (deleted once unused).
//
// Snapshot protocol (DESIGN.md §5.1, §5.9). The registry keeps the authoritative set of active
// parts and the current PartsSnapshot, both behind the "parts_registry" SharedMutex:
//   - Snapshot() returns the current snapshot under the shared lock (a pointer copy), so all
//     SELECTs between two changes share one object, with its partition index already built.
//   - A writer (insert commit, merge) builds the next snapshot from the current one plus its
//     change without holding that lock, then applies the change to the set and publishes the
//     snapshot together under the exclusive lock (a pointer swap). Writers are serialized by a
//     separate "parts_registry_writers" mutex, which readers never take, so the O(parts) build
//     happens once per change, never under the readers' lock, and no reader ever finds the
//     snapshot missing and builds one itself.
//   - The snapshot is missing only after Reset (open). Then a reader copies the set and its
//     version under the shared lock, builds the snapshot without any lock and installs it under
//     the exclusive lock only if the version is still the one it copied. Without that check a
//     reader that built a snapshot before a writer's change could install it after the change,
//     and every later SELECT would miss the writer's part (or read a part a merge replaced).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "storage/part.h"
#include "storage/part_list.h"

namespace granite::storage {

// Immutable set of the parts a query reads.
struct PartsSnapshot {
  // A run of parts of one partition value: parts[begin, end).
  struct Partition {
    PartitionValue value;
    size_t begin = 0;
    size_t end = 0;
  };

  uint64_t version = 0;
  // Ordered by partition value, then by first block (PartKeyLess).
  PartList parts;
  uint64_t rows = 0;
  uint64_t granules = 0;
  uint64_t bytes_on_disk = 0;

  // Returns the runs of parts sharing a partition value, ascending. O(parts): for merges and
  // tests; pruning binary-searches `parts` instead.
  std::vector<Partition> Partitions() const;
};

// Holds one table's parts.
// Thread-safety: all methods may be called concurrently.
class PartsRegistry {
 public:
  PartsRegistry() = default;
  PartsRegistry(const PartsRegistry&) = delete;
  PartsRegistry& operator=(const PartsRegistry&) = delete;

  // Replaces the whole set (at open) and numbers new blocks after `max_block`.
  void Reset(std::vector<std::shared_ptr<const Part>> parts, uint64_t max_block)
      EXCLUDES(mu_, writers_mu_);

  // Returns the shared snapshot of the active parts, building it if a change invalidated it.
  std::shared_ptr<const PartsSnapshot> Snapshot() const EXCLUDES(mu_);
  // Builds a private snapshot from the active set without using or filling the cache (what every
  // query would pay without the shared snapshot; the setting use_parts_snapshot = 0).
  std::shared_ptr<const PartsSnapshot> BuildUncached() const EXCLUDES(mu_);

  // Takes the next block number for a part of partition `partition_id` about to be committed.
  // Until it is released (by Add or ReleaseBlock) no merge in that partition may cover it.
  uint64_t AllocateBlock(const std::string& partition_id) EXCLUDES(mu_);
  void ReleaseBlock(const std::string& partition_id, uint64_t block) EXCLUDES(mu_);
  // Takes `count` consecutive block numbers at once (a cloned replica's parts keep their relative
  // numbering above them) and returns the first; none of them is in flight.
  uint64_t ReserveBlocks(uint64_t count) EXCLUDES(mu_);
  // True when a block of `partition_id` in [min_block, max_block] is allocated but not released.
  bool InFlight(const std::string& partition_id, uint64_t min_block, uint64_t max_block) const
      EXCLUDES(mu_);

  // Add, Replace and Remove run at normal priority even on a thread a ScopedThreadNice lowered (a
  // background merge, a bulk insert; core/thread_priority.h): a SCHED_IDLE thread preempted while
  // it holds the writers' mutex would stall every small INSERT's commit behind it.
  //
  // Makes `parts` active and releases their blocks (their names' min_block), then publishes.
  void Add(const std::vector<std::shared_ptr<const Part>>& parts) EXCLUDES(mu_, writers_mu_);

  // Replaces `sources` by `merged` and publishes, if every source is still active and no block in
  // flight lies in merged's range; otherwise changes nothing and returns false. Replaced parts
  // become outdated: listed until TakeUnused() finds no query holding them.
  bool Replace(const std::vector<std::shared_ptr<const Part>>& sources,
               std::shared_ptr<const Part> merged) EXCLUDES(mu_, writers_mu_);

  // Removes `part` from the active set (a broken part being detached) and publishes; false if it
  // is not active. Unlike Replace, the part is not kept as outdated: the caller moves it away.
  bool Remove(const std::shared_ptr<const Part>& part) EXCLUDES(mu_, writers_mu_);

  // Makes `parts` the whole active set (a replica cloned from a peer) and publishes; the parts it
  // replaces become outdated, deleted once no query holds them.
  void ReplaceAll(const std::vector<std::shared_ptr<const Part>>& parts)
      EXCLUDES(mu_, writers_mu_);

  // Removes and returns the outdated parts no snapshot or query references any more; the caller
  // deletes their directories.
  std::vector<std::shared_ptr<const Part>> TakeUnused() EXCLUDES(mu_);
  // Returns the outdated parts (for system.parts, active = 0).
  std::vector<std::shared_ptr<const Part>> Outdated() const EXCLUDES(mu_);

  // Returns the partition values whose parts changed (Add, Replace, Remove) since the previous
  // call, and forgets them; sets *all instead when any partition may have changed (after Reset,
  // and before the first call). Table::ReserveMerge re-examines only these partitions, so looking
  // for a merge costs O(changes), not O(parts).
  std::vector<core::Value> TakeChangedPartitions(bool* all) EXCLUDES(mu_);

  // Test hook: runs in Snapshot() after a snapshot was built and before it is installed.
  void SetBeforeInstallHookForTest(std::function<void()> hook) EXCLUDES(mu_);

 private:
  // Orders parts by partition value, then first block.
  struct Key {
    core::Value partition;
    uint64_t min_block = 0;
    bool operator<(const Key& other) const {
      if (partition != other.partition) return partition < other.partition;
      return min_block < other.min_block;
    }
  };
  static Key KeyOf(const Part& part) {
    return {part.partition().value, part.part_name().min_block};
  }

  // Returns a snapshot of `parts` (in key order).
  static std::shared_ptr<PartsSnapshot> Build(const std::vector<std::shared_ptr<const Part>>& parts,
                                              uint64_t version);
  // Returns `base` without `removed` and with `added` (sharing its unchanged chunks).
  static std::shared_ptr<PartsSnapshot> Change(
      const PartsSnapshot& base, const std::vector<std::shared_ptr<const Part>>& added,
      const std::vector<std::shared_ptr<const Part>>& removed);
  bool InFlightLocked(const std::string& partition_id, uint64_t min_block,
                      uint64_t max_block) const REQUIRES_SHARED(mu_);
  // Copies the active set and version under the shared lock.
  std::pair<std::vector<std::shared_ptr<const Part>>, uint64_t> CopyActive() const
      EXCLUDES(mu_);

  core::Mutex writers_mu_{"parts_registry_writers"};  // held by Reset, Add and Replace
  mutable core::SharedMutex mu_{"parts_registry"};
  std::map<Key, std::shared_ptr<const Part>> active_ GUARDED_BY(mu_);
  std::vector<std::shared_ptr<const Part>> outdated_ GUARDED_BY(mu_);
  std::set<std::pair<std::string, uint64_t>> in_flight_ GUARDED_BY(mu_);  // partition, block
  uint64_t next_block_ GUARDED_BY(mu_) = 1;
  uint64_t version_ GUARDED_BY(mu_) = 1;
  // Null when a change invalidated it.
  mutable std::shared_ptr<const PartsSnapshot> snapshot_ GUARDED_BY(mu_);
  std::function<void()> before_install_hook_ GUARDED_BY(mu_);
  std::set<core::Value> changed_ GUARDED_BY(mu_);  // for TakeChangedPartitions
  bool all_changed_ GUARDED_BY(mu_) = true;
};

}  // namespace granite::storage
