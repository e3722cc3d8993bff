// ReplicaCloner: part copy between the replicas of a shard, worker to worker (never through the
// coordinator or etcd). A replica whose table lacks blocks that no peer retains any more (its
// data directory was wiped, or it was down longer than the peers kept the blocks) copies the
// whole table from a peer: every active part and every committed block id
// (docs/adr/0004-replicated-shards.md, "Part copy").
//
// On the peer (the source):
//   Snapshot  lists the table's active parts and block ids under its commit lock
//             (BlockLog::TableLock), so they belong together, and pins the parts (the snapshot
//             is held, so merges cannot delete them) under a token for kPinTtl after its last use.
//   FetchPart streams one pinned part's files in chunks of kChunkBytes, each file's last chunk
//             carrying its size and XXH64.
// On the replica that lags (the target), Clone:
//   1. takes a snapshot and fetches every part into parts/tmp_clone_<token>/<name>, checking
//      each file's size and XXH64 on arrival, then loading the part and verifying every
//      block's checksum (Table::VerifyStagedPart);
//   2. takes its own commit lock, takes a last snapshot and fetches only what changed since (a
//      part merged on the peer out of parts already copied is rebuilt from them when their rows
//      add up, not copied again);
//   3. refuses when it holds a block id the last snapshot lacks (a block only it has: the
//      ordinary repair copies it to the peer first);
//   4. stages the peer's id files and installs parts and ids in one durable switch
//      (Table::InstallClone, storage/clone_install.h), then releases its commit lock.
// Merges: each replica merges on its own; a clone copies the peer's parts whole with the peer's
// block ids, so the rows and ids it installs are exactly the peer's at one moment.
// Thread-safety: all methods may be called concurrently.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "core/mutex.h"
#include "granite/worker/v1/worker.pb.h"
#include "storage/block_log.h"
#include "storage/store.h"

namespace granite::worker {

class ReplicaCloner {
 public:
  static constexpr size_t kChunkBytes = size_t{1} << 20;
  static constexpr std::chrono::minutes kPinTtl{2};

  // REQUIRES: `store` and `block_log` outlive the cloner.
  ReplicaCloner(storage::Store* store, storage::BlockLog* block_log)
      : store_(store), block_log_(block_log) {}

  // Source side. Errors: UNKNOWN_TABLE; I/O errors reading the ids.
  absl::StatusOr<granite::worker::v1::SnapshotReplicaResponse> Snapshot(const std::string& table)
      EXCLUDES(pins_mu_);
  // Calls `write` with each chunk of the part's files, in order. Errors: NO_SUCH_DATA_PART for an
  // unknown or expired token or part; I/O errors; CANNOT_WRITE_TO_SOCKET when `write` fails.
  absl::Status StreamPart(const granite::worker::v1::FetchPartRequest& request,
                          const std::function<bool(const granite::worker::v1::PartFileChunk&)>&
                              write) EXCLUDES(pins_mu_);

  // Target side: copies `table` from the worker at `source` and installs it.
  // Errors: the source's (ALL_CONNECTION_TRIES_FAILED when unreachable); CHECKSUM_DOESNT_MATCH
  // / CORRUPTED_DATA for a part that arrived damaged; NOT_FOUND_EXPECTED_DATA_PART (233) when
  // this replica holds a block the source lacks; QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING (216)
  // while another copy of the table runs here (a second coordinator's repair). Nothing changes
  // on error.
  absl::StatusOr<granite::worker::v1::CloneReplicaResponse> Clone(const std::string& table,
                                                                  const std::string& source);

 private:
  struct Pin {
    std::shared_ptr<const storage::PartsSnapshot> parts;
    std::chrono::steady_clock::time_point expires;
  };

  storage::Store* const store_;
  storage::BlockLog* const block_log_;
  core::Mutex pins_mu_{"replica_clone_pins"};
  std::map<std::string, Pin> pins_ GUARDED_BY(pins_mu_);  // by token
  std::set<std::string> copying_ GUARDED_BY(pins_mu_);     // tables being copied here
};

}  // namespace granite::worker
