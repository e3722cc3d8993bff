// WorkerSet: the coordinator's connections to its workers. Each worker gets two gRPC channels
// (two TCP connections): one carries the SELECT fragment streams, the other everything else —
// INSERTs, DDL, system tables. A connection's HTTP/2 transport is driven by whichever thread
// sends or reads on it; when SELECT threads run lowered (--query_thread_nice, SCHED_IDLE) and
// share the connection with an INSERT, the INSERT's messages can wait behind a preempted SELECT
// thread. Separate connections keep an INSERT's round trips off the SELECTs' transport. That is
// not enough on its own: gRPC's pollers serve every connection of the process, so a SELECT thread
// also calls into gRPC at normal priority (core::ScopedNormalPriority around each call).
//
// Topology: S shards x R replicas. The worker processes are numbered shard-major (process
// s * R + r is replica r of shard s), so with R = 1 process i is shard i, as before replicas.
// size() counts processes: DDL, catalog and system-table calls (CallAll) reach every replica;
// fragments and insert routing work in shards (shard_count()).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "coordinator/cluster/replica_monitor.h"

#include "granite/worker/v1/worker.grpc.pb.h"

namespace granite::coordinator {

class ShardLog;

// True for a worker address on this host (loopback or a Unix socket): compressing what is sent
// there only costs CPU on both ends.
bool OnLoopback(const std::string& address);

// Holds two stubs per worker address.
// Thread-safety: immutable after construction; stubs are safe for concurrent calls.
class WorkerSet {
 public:
  // REQUIRES: replicas >= 1 and addresses.size() is a multiple of replicas.
  explicit WorkerSet(const std::vector<std::string>& addresses, size_t replicas = 1);

  size_t size() const { return addresses_.size(); }  // worker processes (every replica)
  size_t shard_count() const { return addresses_.size() / replicas_; }
  size_t replica_count() const { return replicas_; }
  size_t ProcessIndex(size_t shard, size_t replica) const { return shard * replicas_ + replica; }
  size_t ShardOf(size_t process) const { return process / replicas_; }
  size_t ReplicaOf(size_t process) const { return process % replicas_; }
  const std::string& address(size_t i) const { return addresses_[i]; }
  // For everything but fragment streams (inserts, DDL, system tables, health).
  granite::worker::v1::Worker::Stub* stub(size_t i) const { return stubs_[i].get(); }
  // For the Execute streams of SELECT fragments (coordinator/cluster/fan_out.cc).
  granite::worker::v1::Worker::Stub* fragment_stub(size_t i) const {
    return fragment_stubs_[i].get();
  }

  // Replica order, error counts and the stall watch (replica_monitor.h); never null.
  ReplicaMonitor* monitor() const { return monitor_.get(); }
  // The shards' logs of committed blocks in the coordination service (shard_log.h); null
  // without one. Set once at start-up, before any insert or repair.
  ShardLog* shard_log() const { return shard_log_; }
  void set_shard_log(ShardLog* log) { shard_log_ = log; }

  // Runs call(i) for every worker concurrently (one thread each, the last on the calling thread)
  // and returns the first error. The calls run at the process's normal priority even from a
  // lowered SELECT thread (core::ScopedNormalPriority).
  absl::Status CallAll(const std::function<absl::Status(size_t)>& call) const;
  // The same for the workers `indices` only (each < size()): one call starts no thread.
  absl::Status CallEach(const std::vector<size_t>& indices,
                        const std::function<absl::Status(size_t)>& call) const;

 private:
  std::vector<std::string> addresses_;
  size_t replicas_ = 1;
  std::vector<std::unique_ptr<granite::worker::v1::Worker::Stub>> stubs_;
  std::vector<std::unique_ptr<granite::worker::v1::Worker::Stub>> fragment_stubs_;
  std::unique_ptr<ReplicaMonitor> monitor_;
  ShardLog* shard_log_ = nullptr;
};

}  // namespace granite::coordinator
