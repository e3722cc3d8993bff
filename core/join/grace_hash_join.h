// GraceHashJoin: the build side of a hash join that may not fit its memory budget, split into
// buckets by a hash of the join key; every bucket but bucket 0 lives in temporary files
// (core/join/spill_file.h). The join runs as ClickHouse's grace hash join:
//   1. build: rows are added block by block; while they fit the budget they stay in memory and
//      nothing else happens. Past it, the join spills: the rows are split into N buckets
//      (grace_hash_join_initial_buckets, at least 2), bucket 0 stays in memory, the others go to
//      their files; bucket 0 still too large doubles N (its rows move to bucket 0 or N_old).
//   2. probe: a probe block's rows of bucket 0 join at once with bucket 0's hash table; the
//      others are written to their bucket's probe file (PartitionProbe).
//   3. bucket passes: for b = 1 .. N - 1, bucket b's build rows are loaded (LoadBuildBucket),
//      hashed, and probed with bucket b's probe rows (NextProbe). A bucket over the budget
//      doubles N again; the rows that now belong to later buckets move to their files. Rows
//      written before a split are sorted out lazily when their file is read, so a split costs
//      nothing up front. Past grace_hash_join_max_buckets a bucket that does not fit fails with
//      MEMORY_LIMIT_EXCEEDED (one key with too many rows cannot be split).
// Equal keys land in one bucket on both sides: the hash is the key's 64-bit value for one
// integer-like key on both sides, else its row key bytes (core/join/row_keys.h), mixed with a
// seed so that buckets are independent of the shuffle's choice of worker (worker/exchange.h).
// Spilled blocks carry their rows' hashes as one extra last column, so moving a row after a
// split never re-evaluates its key.
//
// Used by FragmentPipeline's joins (core/fragment_pipeline_join.cc) on workers.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/block.h"
#include "core/join/spill_file.h"
#include "core/mutex.h"
#include "core/thread_annotations.h"

namespace granite::core {

// The budget and layout of one spilling join.
struct GraceOptions {
  std::string spill_dir;       // where bucket files are created
  // Build bytes bucket 0 (and each loaded bucket) may hold with its hash table; 0 = any.
  uint64_t max_bytes = 0;
  uint64_t max_rows = 0;       // build rows likewise; 0 = any
  size_t initial_buckets = 2;  // buckets once spilling starts (rounded up to a power of 2, >= 2)
  size_t max_buckets = 1024;
};

// Partitions one join's build and probe rows into buckets, spilling all but the current one.
// Thread-safety: the build (AddBuild, FinishBuild) and the bucket passes (LoadBuildBucket,
// NextProbe, DropBucket) run on one thread; PartitionProbe may run on many threads at once
// between FinishBuild and the first bucket pass.
class GraceHashJoin {
 public:
  // `build_keys`: the build's key columns; `word_keys`: hash one integer-like key by its value
  // (both sides' single key IsWordKey), else by row key bytes. `shape`: the build's columns,
  // no rows (what FinishBuild returns when no row was added).
  GraceHashJoin(GraceOptions options, std::vector<uint32_t> build_keys, bool word_keys,
                Block shape);
  ~GraceHashJoin();

  // Adds build rows, spilling once the budget is passed. Errors: the files' I/O errors;
  // MEMORY_LIMIT_EXCEEDED when bucket 0 does not fit in grace_hash_join_max_buckets.
  absl::Status AddBuild(Block block);
  // Ends the build: returns bucket 0's rows (every row when nothing spilled).
  absl::StatusOr<Block> FinishBuild();

  bool spilled() const { return spilled_; }
  // The current number of buckets (1 while nothing spilled); grows when buckets split.
  size_t buckets() const { return buckets_; }

  // Splits the `rows` rows of a probe block whose keys are `keys`: returns the rows of bucket 0
  // (indexes, ascending) and writes the others (all of `block`'s columns) to their buckets'
  // files. REQUIRES: spilled().
  absl::StatusOr<std::vector<uint32_t>> PartitionProbe(const Block& block,
                                                       const std::vector<const Column*>& keys);

  // Returns bucket b's build rows, splitting it while it is over the budget.
  // REQUIRES: 1 <= b < buckets(); every probe row partitioned; the buckets before b dropped.
  absl::StatusOr<Block> LoadBuildBucket(size_t b);
  // Returns the next block of bucket b's probe rows, or nullopt when all were returned.
  absl::StatusOr<std::optional<Block>> NextProbe(size_t b);
  // True when bucket b has no build and no probe rows (its pass has nothing to do).
  bool BucketEmpty(size_t b) const;
  // Removes bucket b's files.
  void DropBucket(size_t b);

  // What JoinTable adds per build row: its chain link and a hash table slot (16 bytes and a
  // control byte, at most half full after a resize). The budget counts it with the rows.
  static constexpr uint64_t kTableBytesPerRow = 8 + 2 * 17;

  // The hashes whose low bits choose the bucket of rows [0, rows) of `keys` (file comment).
  std::vector<uint64_t> KeyHashes(const std::vector<const Column*>& keys, size_t rows) const;

  // What was written to disk so far, over every file.
  uint64_t spilled_bytes() const { return spilled_bytes_; }
  uint64_t spilled_rows() const { return spilled_rows_; }

 private:
  enum Side { kBuild = 0, kProbe = 1 };
  static constexpr size_t kSliceRows = 8192;
  // `block` with its rows' hashes as one more column (build rows: from its key columns).
  Block WithHashes(Block block) const;
  // Moves the rows of `block` (hashes last) that do not belong to bucket `keep` under the
  // current bucket count to their files on `side`; returns the rest, hashes still last.
  absl::StatusOr<Block> Distribute(Side side, const Block& block, size_t keep);
  absl::Status Append(Side side, size_t bucket, Block rows);
  // Doubles the buckets while `rows` (bucket `keep`'s rows in memory, hashes last) are over
  // the budget, moving the rows that leave bucket `keep`. Errors: MEMORY_LIMIT_EXCEEDED past
  // max_buckets.
  absl::Status SplitWhileOver(std::vector<Block>* rows, size_t keep);
  bool Over(const std::vector<Block>& rows) const;
  void NoteSpill(uint64_t bytes, uint64_t rows);

  // Constant after construction.
  const GraceOptions options_;
  const std::vector<uint32_t> build_keys_;
  const bool word_keys_;
  const Block shape_;

  // The build phase's and bucket passes' state (one thread; see Thread-safety).
  bool spilled_ = false;
  size_t buckets_ = 1;
  std::vector<Block> memory_;  // bucket 0 (with hashes last once spilled)
  uint64_t spilled_bytes_ = 0;
  uint64_t spilled_rows_ = 0;

  // Bucket files per side, null until a row goes there. PartitionProbe appends under mu_.
  mutable Mutex mu_{"grace_hash_join"};
  std::vector<std::unique_ptr<SpillFile>> files_[2] GUARDED_BY(mu_);
};

// Returns the rows `rows` of `block`; a column shorter than the block (an empty placeholder
// FragmentPipeline's filter leaves) stays an empty placeholder.
Block TakeRowsOrPlaceholders(const Block& block, const std::vector<uint32_t>& rows);

}  // namespace granite::core
