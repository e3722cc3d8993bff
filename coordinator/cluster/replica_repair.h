// ReplicaRepair: the coordinator's background loop that brings the replicas of each shard to the
// same set of insert blocks (replicated_insert.h writes them, storage/block_log.h keeps them).
//
// Every `interval`:
//   1. Catalog. A replica that lacks a database, a table or the access entities that a peer of
//      its shard holds, in two passes in a row (its data directory was wiped; not a CREATE or
//      DROP caught half-way), gets them created from that peer's schema, so the table exists
//      there before its rows come back.
//   2. Blocks. For every table and shard it lists each replica's block ids (ListBlocks) and, with
//      etcd, the shard's log of committed blocks (shard_log.h), which it also trims. A
//      replica that lacks a block another replica has gets it re-sent: the coordinator fetches
//      the block's retained chunks from a peer that holds them (GetBlock), checks their checksum
//      (core/chunk_checksum.h) against the one the peer recorded when it committed the block,
//      and prepares and commits them on the replica under the block's id — deduplication on the
//      replica makes this safe against the original insert arriving late, or a second
//      coordinator's repair.
//   3. Part copy. A replica that lacks a block no reachable peer retains any more (wiped, or
//      down while its peers released the block), or whose rows stay fewer than a peer's with the
//      same blocks for kSuspectPasses passes (parts lost beside intact ids), copies the table
//      whole from the peer with the most blocks among those holding all of its own
//      (CloneReplica: worker to worker, worker/replica_cloner.h).
//   4. Release. A block every replica has is released: the peers drop its retained chunks
//      (ReleaseBlocks). Nothing is released while a replica does not answer, so a replica that
//      comes back after a short downtime catches up by re-sent blocks. Once a replica holds more
//      than 2 x replicated_deduplication_window ids (and a tenth), the replicas forget the ids of
//      the blocks settled on all of them beyond their 2 x window most recent
//      (storage/block_log.h Prune); a replica holding that many ids is not behind by a settled
//      block it lacks (it forgot it), so listings and ids stay bounded and no copy follows.
// Design and limits: docs/adr/0004-replicated-shards.md. The state of each replica (state,
// rows, blocks, lag, last error) is published to the WorkerSet's ReplicaMonitor for
// system.replicas and for the choice of replicas to read (a lagging one is read last).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "coordinator/cluster/replica_monitor.h"
#include "coordinator/cluster/worker_set.h"
#include "core/mutex.h"

namespace granite::coordinator {

// Thread-safety: RunOnce may run concurrently with the loop (each pass is idempotent); Start and
// the destructor from the owning thread.
class ReplicaRepair {
 public:
  static constexpr int kSuspectPasses = 3;

  explicit ReplicaRepair(const WorkerSet* workers,
                         std::chrono::milliseconds interval = std::chrono::milliseconds(1000));
  ~ReplicaRepair();
  ReplicaRepair(const ReplicaRepair&) = delete;
  ReplicaRepair& operator=(const ReplicaRepair&) = delete;

  void Start() EXCLUDES(stop_mu_);
  // One pass over every table and shard; returns the blocks copied to replicas that missed them
  // (a table copied whole counts the blocks it brought).
  size_t RunOnce() EXCLUDES(counts_mu_);

 private:
  struct Holdings;
  void Loop() EXCLUDES(stop_mu_);
  // Steps 2-4 for one table on one shard; appends each replica's state to `states`.
  size_t RepairShard(const std::string& table, uint64_t window, size_t shard, std::vector<Holdings>& holdings,
                     std::vector<ReplicaState>* states) EXCLUDES(counts_mu_);

  const WorkerSet* const workers_;
  const std::chrono::milliseconds interval_;
  core::Mutex counts_mu_{"replica_repair_counts"};
  std::vector<uint64_t> repaired_ GUARDED_BY(counts_mu_);  // per process: blocks copied to it
  std::vector<uint64_t> clones_ GUARDED_BY(counts_mu_);    // per process: tables copied whole
  // (table, process) -> consecutive passes with fewer rows than a peer holding the same blocks.
  std::map<std::pair<std::string, size_t>, int> suspect_ GUARDED_BY(counts_mu_);
  // (process, "table t" / "database d" / "access") a peer had and it lacked in the last pass.
  std::set<std::pair<size_t, std::string>> missing_catalog_ GUARDED_BY(counts_mu_);
  core::Mutex stop_mu_{"replica_repair_stop"};
  std::condition_variable_any stop_cv_;
  bool stopping_ GUARDED_BY(stop_mu_) = false;
  std::thread thread_;
};

}  // namespace granite::coordinator
