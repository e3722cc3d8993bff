// BlockLog: a replica's durable record of the insert blocks it holds for a replicated table, kept
// in <table>/replication/ beside the parts (so DROP and RENAME take it along):
//   ids/<h>       one file per block id it committed (h = hex XXH3-128 of the id): the checksum
//                 of the block's data, a space, the commit time (ns since the epoch; absent in
//                 files of earlier versions), a newline and the id itself. A cloned replica
//                 copies these files verbatim, so it orders the blocks as its peer does.
//   ids/<h>.d/<k> the k-th chunk of a block it retains for peers that missed it, as
//                 PrepareInsert received it (rows, raw size, LZ4 data); removed by Release once
//                 every replica has the block. Beside the id, so that one fsync of ids/ makes
//                 both a commit's renames durable. (data/<h>/<k>, where earlier versions kept
//                 them, is still read, listed and released.)
//   staging/<token>/<k>  chunks of a prepared insert not yet committed
//   staging/<token>/id.<n>  the record of the id the coordinator announced with the block's
//                 last chunk (n chunks): the id file's contents, written and fsynced with that
//                 chunk, so that Record of the same id only renames it into ids/
// Deduplication asks Contains(id) under LockFor(id) before committing, so a retried block (the
// coordinator's retry, a client's retry with the same contents or token, or a repair racing the
// original insert) is never applied twice.
// The id is recorded just before the parts' commit: a crash between the two leaves the id
// without its rows, never rows without their id (which a re-sent or retried block would
// duplicate). The repair finds such a replica by its row count and copies the table whole
// (coordinator/cluster/replica_repair.h).
// Ids are pruned: Prune forgets the ids of settled blocks (every replica holds them and none
// retains their data: the repair says which) beyond the `keep` most recently committed, so that
// deduplication covers at least that many blocks (ClickHouse's replicated_deduplication_window)
// and the listing the repair reads every pass stays bounded.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/mutex.h"
#include "storage/dir_sync_group.h"
#include "storage/file_system.h"

namespace granite::storage {

struct BlockChunk {
  uint64_t rows = 0;
  uint64_t raw_size = 0;
  std::string data;  // LZ4-compressed encoded block
};

// A block as List names it: the hex name of its id (what Read and Release take).
struct BlockEntry {
  std::string name;
  bool has_data = false;
};

// Returns the checksum of `chunks` (XXH3-64 over each chunk's rows, raw size and data).
uint64_t ChecksumOf(const std::vector<BlockChunk>& chunks);

// Thread-safety: safe for concurrent use; callers serialize check-and-commit of one id through
// LockFor(id).
class BlockLog {
 public:
  explicit BlockLog(std::shared_ptr<FileSystem> fs);

  // Writes chunk `index` of prepared insert `token`, fsynced. A non-empty `block_id` says it is
  // the block's last chunk and the id Record will be given: its record is written beside it.
  absl::Status Stage(const std::string& table_dir, const std::string& token, uint64_t index,
                     const BlockChunk& chunk, const std::string& block_id = "");
  // Removes what Stage wrote for `token` (best effort).
  void DropStaged(const std::string& table_dir, const std::string& token);
  // Removes every staged insert of the table (best effort): at start, when no prepared insert
  // of an earlier process can be committed any more.
  void DropAllStaged(const std::string& table_dir);

  bool Contains(const std::string& table_dir, const std::string& id);
  // Records `id` as committed; the chunks staged under `token` (if any) become its retained data.
  absl::Status Record(const std::string& table_dir, const std::string& id,
                      const std::string& token);
  absl::StatusOr<std::vector<BlockEntry>> List(const std::string& table_dir);
  // Returns the retained chunks, checksum and id of block `name`; CHECKSUM_DOESNT_MATCH when the
  // files differ from the checksum recorded with the id, NO_SUCH_DATA_PART when nothing is
  // retained.
  absl::StatusOr<std::vector<BlockChunk>> Read(const std::string& table_dir,
                                               const std::string& name, uint64_t* checksum,
                                               std::string* id);
  absl::Status Release(const std::string& table_dir, const std::string& name);
  // Forgets the ids named in `settled` that retain no data and are not among the `keep` most
  // recently committed ids of the table (ids of earlier versions, without a commit time, are the
  // oldest). Returns how many it forgot. Call under TableLock (shared), so that a snapshot for a
  // peer never sees half of it.
  absl::StatusOr<size_t> Prune(const std::string& table_dir, const std::set<std::string>& settled,
                               uint64_t keep);
  // Removes what Record wrote for `id` (its id file and retained chunks): a commit that failed
  // after recording its id.
  absl::Status Forget(const std::string& table_dir, const std::string& id);

  core::Mutex& LockFor(const std::string& id);
  // The table's commit lock: every commit holds it shared (around its check, parts commit and
  // Record); a replica snapshot for a peer and a clone install hold it exclusively, so the parts
  // and the ids they see or replace belong together.
  core::SharedMutex& TableLock(const std::string& table_dir);

  // Returns every committed id file of the table: its name and its contents (what a cloned
  // replica copies verbatim into its own ids/).
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ReadIdFiles(
      const std::string& table_dir);

 private:
  absl::StatusOr<std::vector<BlockChunk>> ReadChunks(const std::string& dir);
  // Record's short way: moves the chunks and the id record Stage wrote for `id` into place.
  // Returns false (having changed nothing but a stale record's removal) when Stage wrote no
  // record for `id` over every staged chunk.
  absl::StatusOr<bool> RecordStaged(const std::string& root, const std::string& staged,
                                    const std::string& name, const std::string& id);

  const std::shared_ptr<FileSystem> fs_;
  DirSyncGroup dir_syncs_;  // ids/ and data/ fsyncs of concurrent commits, shared
  std::vector<std::unique_ptr<core::Mutex>> stripes_;  // by hash of the id
  std::vector<std::unique_ptr<core::SharedMutex>> table_stripes_;  // by hash of the directory
};

}  // namespace granite::storage
