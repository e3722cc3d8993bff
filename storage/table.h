// Table: one table's shard on this worker — its schema, its partition and sort keys, and its
// registry of active parts (storage/parts_registry.h). Inserts split their rows by partition,
// sort them by the key and write one new part per partition (storage/part_splitter.h,
// storage/part_writer.h), then publish; SELECTs take the current snapshot and read its parts
// without holding any lock.
//
// Two-phase inserts (an insert spread over several workers is all-or-nothing):
//   PrepareInsert(block, token)  writes the rows as complete, fsynced parts inside
//                                parts/tmp_prepared_<token>/ (never loaded: Open deletes tmp_*).
//   CommitInsert(token)          gives the parts block numbers, renames them into parts/, fsyncs
//                                parts/ and publishes them in one snapshot.
//   AbortInsert(token)           deletes the staging directory.
// A big insert prepares in chunks: PrepareInsert(block, token, k) for k = 1, 2, ... appends more
// parts to the same staging directory; commit and abort act on all of them at once.
// A commit of several parts (several partitions) first renames the staging directory to
// parts/committing_<token> and fsyncs parts/: from then on the commit is decided, and Open
// finishes it (moves the parts out) after a crash. So on one worker a commit is atomic; across
// workers the coordinator commits only after every worker prepared (docs/architecture.md).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/block.h"
#include "core/mutex.h"
#include "storage/detached_parts.h"
#include "storage/file_system.h"
#include "storage/merge_selector.h"
#include "storage/part.h"
#include "storage/part_merger.h"
#include "storage/part_splitter.h"
#include "storage/parts_registry.h"
#include "storage/table_schema.h"

namespace granite::storage {

// A prepared insert that is neither committed nor aborted after this long is aborted.
inline constexpr std::chrono::minutes kPreparedInsertTtl{30};
inline constexpr size_t kRememberedAborts = 4096;

// Holds one table's schema and active parts.
// Thread-safety: all methods may be called concurrently; inserts run in parallel (they share
// only block-number allocation and the brief publication step).
class Table {
 public:
  // Opens the table stored in `dir` (which holds `schema` and `parts/`): recovers its parts
  // (storage/part_recovery.h) and resumes block numbering after the largest one. Parts named in
  // `earlier_outdated` belong to an earlier instance still open on `dir`, which deletes them.
  // Errors: CANNOT_READ_FROM_FILE / CANNOT_WRITE_TO_FILE on I/O errors; a PARTITION BY or sort
  // key that does not compile (KeyExpression::Parse's errors).
  static absl::StatusOr<std::shared_ptr<Table>> Open(
      std::shared_ptr<FileSystem> fs, std::string dir, TableSchema schema,
      const std::set<std::string>& earlier_outdated = {});

  // The columns parts hold (the declared schema without its ALIAS columns, which are computed
  // by the coordinator when read).
  const TableSchema& schema() const { return *schema_; }
  // The schema as CREATE / ALTER declared it and the schema file holds it.
  const TableSchema& declared_schema() const { return *declared_; }
  const std::string& name() const { return schema_->name; }
  const std::string& directory() const { return dir_; }

  // Writes the rows of `block` as new durable parts and only then makes them visible (prepare
  // and commit in one call); returns the parts' names joined by ',', or "" for a block of 0 rows
  // (nothing is written).
  // REQUIRES: block.columns are in schema order.
  // Errors: NUMBER_OF_COLUMNS_DOESNT_MATCH, TYPE_MISMATCH, BAD_ARGUMENTS (columns of different
  // lengths), UNKNOWN_TABLE (dropped), CANNOT_WRITE_TO_FILE. On error nothing becomes visible.
  absl::StatusOr<std::string> Insert(const core::Block& block)
      EXCLUDES(drop_mu_, prepared_mu_);

  // Phase 1 of a two-phase insert: writes `block` durably but invisibly, under `token` (1 to 64
  // characters of [A-Za-z0-9_-], unique per insert). A block of 0 rows prepares nothing but the
  // token. Prepared inserts older than kPreparedInsertTtl are aborted by later calls.
  // `chunk` 0 opens the token; chunk k > 0 appends the block's parts to the insert prepared under
  // it, whose previous call must have been chunk k - 1 (and refreshes its TTL). Commit and abort
  // act on every chunk's parts at once.
  // Errors: as Insert; BAD_ARGUMENTS for a bad or already used token (chunk 0), or for a token
  // not prepared or a chunk out of order (chunk > 0); QUERY_WAS_CANCELLED if the token was
  // aborted meanwhile. On error of chunk 0 nothing is left on disk; on error of a later chunk the
  // whole prepared insert is discarded (the insert fails as a whole anyway).
  absl::Status PrepareInsert(const core::Block& block, const std::string& token,
                             uint64_t chunk = 0) EXCLUDES(drop_mu_, prepared_mu_);
  // Phase 2: makes the prepared parts visible; returns their names.
  // Errors: BAD_ARGUMENTS for an unknown token (never prepared, aborted, expired, or lost in a
  // restart); UNKNOWN_TABLE (dropped); CANNOT_WRITE_TO_FILE, after which nothing is visible and
  // the prepared insert is gone.
  absl::StatusOr<std::vector<std::string>> CommitInsert(const std::string& token)
      EXCLUDES(drop_mu_, prepared_mu_);
  // Discards a prepared insert. An unknown token is remembered (a bounded number of them), so a
  // PrepareInsert still running for it fails instead of leaving its parts behind.
  absl::Status AbortInsert(const std::string& token) EXCLUDES(prepared_mu_);
  // Returns the number of prepared, not yet committed or aborted inserts.
  size_t prepared_count() const EXCLUDES(prepared_mu_);

  // Returns the current set of parts; holding it keeps those parts readable.
  std::shared_ptr<const PartsSnapshot> Snapshot() const { return registry_.Snapshot(); }
  PartsRegistry& registry() { return registry_; }
  const PartsRegistry& registry() const { return registry_; }
  const PartSplitter& splitter() const { return *splitter_; }

  uint64_t rows() const { return Snapshot()->rows; }
  uint64_t bytes_on_disk() const { return Snapshot()->bytes_on_disk; }

  // Merges (driven by storage/merge_scheduler.h). A reserved merge's sources are excluded from
  // other merges until RunMerge or ReleaseMerge.
  struct MergeTask {
    std::vector<std::shared_ptr<const Part>> sources;  // one partition, contiguous blocks
    PartName result;
  };
  // Returns the limits of this table: `defaults` overridden by the table's SETTINGS
  // max_bytes_to_merge_at_max_space_in_pool and max_parts_to_merge_at_once.
  MergeLimits LimitsFor(const MergeLimits& defaults) const;
  // Reserves the next merge MergeSelector chooses in some partition, or nullopt.
  std::optional<MergeTask> ReserveMerge(const MergeLimits& limits) EXCLUDES(merges_mu_);
  // Reserves, in every partition with at least two parts, a merge of all of them (OPTIMIZE ...
  // FINAL, no size limit). Sets *busy when some partition has a part in a running merge (those
  // partitions are skipped).
  std::vector<MergeTask> ReserveFinalMerges(bool* busy) EXCLUDES(merges_mu_);
  // Runs a reserved merge, publishes the result in place of the sources and releases the
  // reservation. The replaced parts are deleted later, by DeleteUnusedParts, once no query reads
  // them. A source whose data fails its checksum is detached (DetachBrokenPart). Errors: those of PartMerger::Merge; UNKNOWN_TABLE when dropped; QUERY_WAS_CANCELLED
  // when the result cannot be published (a block inside its range is still being committed): the
  // result is then deleted.
  absl::StatusOr<std::shared_ptr<const Part>> RunMerge(const MergeTask& task,
                                                       MergeProgress* progress)
      EXCLUDES(drop_mu_, merges_mu_);
  void ReleaseMerge(const MergeTask& task) EXCLUDES(merges_mu_);
  // Deletes the directories of replaced parts that no query holds any more; returns how many.
  size_t DeleteUnusedParts();

  // Takes a part that failed a checksum out of the table: it leaves the active set and its
  // directory moves to detached/broken_<name> (as ClickHouse does), so later queries answer
  // without it instead of failing; the detach is logged with `reason` and counted
  // (ReportDetachedPart). Returns false if it was not active (already detached, merged
  // away). Queries still reading it fail. Errors: I/O errors moving the directory (the part is
  // then out of the active set but still in parts/, and comes back at the next start).
  absl::StatusOr<bool> DetachBrokenPart(const std::shared_ptr<const Part>& part,
                                        const absl::Status& reason) EXCLUDES(drop_mu_);

  // Returns the directories under detached/ (system.detached_parts).
  absl::StatusOr<std::vector<DetachedPart>> DetachedParts() const;
  // Returns the directory detached/<detached_name>; NO_SUCH_DATA_PART if there is none.
  absl::StatusOr<DetachedPart> FindDetachedPart(const std::string& detached_name) const;
  // ALTER TABLE ... ATTACH PART: loads detached/<detached_name>, verifies every block's
  // checksum, gives it a new block number (block numbers may have been reused since it was
  // detached) and makes it active; returns its new name. On error it stays detached.
  // Errors: INCORRECT_FILE_NAME; NO_SUCH_DATA_PART if there is no such directory;
  // BAD_DATA_PART_NAME if the name holds no part name; CORRUPTED_DATA / CHECKSUM_DOESNT_MATCH
  // from loading or verifying it; UNKNOWN_TABLE (dropped); I/O errors.
  absl::StatusOr<std::string> AttachPart(const std::string& detached_name) EXCLUDES(drop_mu_);
  // ALTER TABLE ... DROP DETACHED PART: deletes detached/<detached_name>.
  // Errors: INCORRECT_FILE_NAME; NO_SUCH_DATA_PART; I/O errors.
  absl::Status DropDetachedPart(const std::string& detached_name) EXCLUDES(drop_mu_);

  // Replica clone (storage/clone_install.h, worker/replica_cloner.h). A part copied from a peer,
  // staged in parts/<staging>/<staged_name>, named `name` on the peer.
  struct ClonedPart {
    std::string staged_name;
    PartName name;
  };
  // Returns the directory new parts and staging directories live in (<table>/parts).
  const std::string& parts_directory() const { return parts_dir_; }
  // Loads the part in `dir` as `name` and verifies every file's and block's checksum.
  // Errors: CORRUPTED_DATA / CHECKSUM_DOESNT_MATCH; I/O errors.
  absl::Status VerifyStagedPart(const std::string& dir, const PartName& name) const;
  // Makes `parts`, staged in parts/<staging> (with the peer's block-id files in its ids/), the
  // whole table: they are renumbered above every block number so far and replace every active
  // part, atomically on disk and for readers; returns the rows now active.
  // REQUIRES: no insert commits meanwhile (the caller holds BlockLog::TableLock exclusively).
  // Errors: UNKNOWN_TABLE (dropped); I/O errors (before the switch is recorded nothing changed;
  // after it, Open finishes it).
  absl::StatusOr<uint64_t> InstallClone(const std::string& staging,
                                        const std::vector<ClonedPart>& parts) EXCLUDES(drop_mu_);

  // CHECK TABLE: the verdict on one part.
  struct PartCheck {
    std::string part_path;  // the part's name, or detached/<dir> for a detached broken part
    bool passed = false;
    std::string message;    // why it failed; "" when it passed
  };
  // Verifies every active part's data (VerifyPartData) and reports each broken part under
  // detached/ as failed (the table answers without its rows). Reads the whole table.
  std::vector<PartCheck> Check() const;

  // Makes running merges stop at their next step (shutdown); later merges fail at once.
  void CancelMerges() { cancel_merges_ = true; }

  // Waits for running inserts and merges to finish (merges are cancelled) and makes later ones
  // fail with UNKNOWN_TABLE. Called by Store before it moves the table's directory away; Undrop()
  // reverts it if that fails.
  void MarkDropped() EXCLUDES(drop_mu_);
  void Undrop() EXCLUDES(drop_mu_);

 private:
  Table(std::shared_ptr<FileSystem> fs, std::string dir, std::shared_ptr<const TableSchema> schema,
        std::shared_ptr<const PartSplitter> splitter);

  // One part of a prepared insert: the subdirectory of the staging directory it was written to.
  struct PreparedPart {
    std::string subdir;
    PartContents contents;  // its partition decides the part's name at commit
  };
  struct PreparedInsert {
    std::string staging_dir;  // parts/tmp_prepared_<token>
    std::vector<PreparedPart> parts;
    std::chrono::steady_clock::time_point prepared_at;
    uint64_t chunks = 0;  // PrepareInsert calls so far (the next chunk number)
  };

  absl::Status CheckBlock(const core::Block& block) const;
  // Writes the parts of `block` into `prepared->staging_dir` (created if needed) and appends
  // them to `prepared->parts`; on error the parts written by this call are removed again.
  absl::Status WriteStaging(const core::Block& block, PreparedInsert* prepared) const;
  // Renames the staged parts into place and returns them (not yet published).
  absl::StatusOr<std::vector<std::shared_ptr<const Part>>> Commit(PreparedInsert prepared,
                                                                  const std::string& token);
  // Removes and returns prepared inserts older than kPreparedInsertTtl.
  std::vector<PreparedInsert> TakeExpired() REQUIRES(prepared_mu_);

  // Constant after construction.
  std::shared_ptr<FileSystem> fs_;
  std::string dir_;
  std::string parts_dir_;
  std::shared_ptr<const TableSchema> declared_;
  std::shared_ptr<const TableSchema> schema_;  // declared_->Stored()
  std::shared_ptr<const PartSplitter> splitter_;
  size_t granule_rows_;

  // Held shared by every running insert, exclusively by MarkDropped().
  core::SharedMutex drop_mu_{"table_drop"};
  bool dropped_ GUARDED_BY(drop_mu_) = false;

  mutable core::Mutex prepared_mu_{"prepared_inserts"};
  std::map<std::string, PreparedInsert> prepared_ GUARDED_BY(prepared_mu_);
  std::set<std::string> preparing_ GUARDED_BY(prepared_mu_);  // tokens being written
  // Tokens aborted while unknown, oldest first (bounded by kRememberedAborts).
  std::deque<std::string> aborted_order_ GUARDED_BY(prepared_mu_);
  std::set<std::string> aborted_ GUARDED_BY(prepared_mu_);

  PartsRegistry registry_;

  // Set while the table is being dropped: running merges stop at their next step.
  std::atomic<bool> cancel_merges_{false};
  core::Mutex merges_mu_{"table_merges"};
  std::set<std::string> merging_ GUARDED_BY(merges_mu_);  // names of parts in reserved merges
  // Partitions that may have a merge to do: those changed since ReserveMerge last found nothing
  // in them (PartsRegistry::TakeChangedPartitions), and those whose merge is waiting for an
  // insert's block or was released. ReserveMerge looks only here, round-robin after the last
  // partition it chose.
  std::set<core::Value> merge_candidates_ GUARDED_BY(merges_mu_);
  std::optional<core::Value> last_merged_partition_ GUARDED_BY(merges_mu_);
};

}  // namespace granite::storage
