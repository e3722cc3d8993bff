// ReplicaRepair: the coordinator's background loop that brings the replicas of each shard to the
// same set of insert blocks (replicated_insert.h writes them, storage/block_log.h keeps them).
//
// Every `interval`, for every table and shard, it lists each replica's block ids (ListBlocks).
// A replica that lacks a block another replica has gets it: the coordinator fetches the block's
// retained chunks from a peer that holds them (GetBlock), checks their checksum
// (core/chunk_checksum.h) against the one the peer recorded when it committed the block, and
// prepares and commits them on the replica under the block's id — deduplication on the replica
// makes this safe against the original insert arriving late, or a second coordinator's repair.
// A block every replica has is released: the peers drop its retained chunks (ReleaseBlocks).
// Nothing is released while a replica does not answer, so a replica that comes back after any
// downtime catches up. The design and its limits (blocks travel through the coordinator; ids are
// not pruned; a wiped replica's older rows are not rebuilt) are in docs/adr/0003.
// The state of each replica (reachable, blocks, blocks behind, last error) is published to the
// WorkerSet's ReplicaMonitor for system.replicas.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <thread>
#include <vector>

#include "coordinator/cluster/worker_set.h"
#include "core/mutex.h"

namespace granite::coordinator {

// Thread-safety: RunOnce may run concurrently with the loop (each pass is idempotent); Start and
// the destructor from the owning thread.
class ReplicaRepair {
 public:
  explicit ReplicaRepair(const WorkerSet* workers,
                         std::chrono::milliseconds interval = std::chrono::milliseconds(1000));
  ~ReplicaRepair();
  ReplicaRepair(const ReplicaRepair&) = delete;
  ReplicaRepair& operator=(const ReplicaRepair&) = delete;

  void Start() EXCLUDES(stop_mu_);
  // One pass over every table and shard; returns the blocks copied to replicas that missed them.
  size_t RunOnce();

 private:
  void Loop() EXCLUDES(stop_mu_);

  const WorkerSet* const workers_;
  const std::chrono::milliseconds interval_;
  core::Mutex repaired_mu_{"replica_repair_counts"};
  std::vector<uint64_t> repaired_ GUARDED_BY(repaired_mu_);  // per process: blocks copied to it
  core::Mutex stop_mu_{"replica_repair_stop"};
  std::condition_variable_any stop_cv_;
  bool stopping_ GUARDED_BY(stop_mu_) = false;
  std::thread thread_;
};

}  // namespace granite::coordinator
