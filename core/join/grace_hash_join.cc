#include "core/join/grace_hash_join.h"

#include <bit>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/block_sort.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/join/row_keys.h"
#include "core/metrics/events.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

// Mixed into every key hash so that buckets do not follow the shuffle's worker choice
// (HashIntKey / HashBytes modulo the workers).
constexpr uint64_t kBucketSeed = 0x6a09e667f3bcc909ULL;

size_t BlockBytes(const Block& block) {
  size_t bytes = 0;
  for (const ColumnPtr& column : block.columns) bytes += column->ByteSize();
  return bytes;
}

const uint64_t* HashesOf(const Block& block) { return block.columns.back()->Data<uint64_t>(); }

// `block` without its last column (the hashes).
Block WithoutHashes(Block block) {
  const size_t rows = block.rows();
  block.columns.pop_back();
  block.rows_without_columns = rows;
  return block;
}

std::string Size(uint64_t bytes) {
  return absl::StrCat(bytes >> 20, ".", ((bytes & ((1 << 20) - 1)) * 100) >> 20, " MiB");
}

}  // namespace

Block TakeRowsOrPlaceholders(const Block& block, const std::vector<uint32_t>& rows) {
  Block out;
  out.rows_without_columns = rows.size();
  const size_t size = block.rows();
  for (const ColumnPtr& column : block.columns) {
    auto taken = std::make_shared<Column>(column->logical_type());
    if (column->size() == size) taken->AppendTaken(*column, rows.data(), rows.size());
    out.columns.push_back(std::move(taken));
  }
  return out;
}

GraceHashJoin::GraceHashJoin(GraceOptions options, std::vector<uint32_t> build_keys,
                             bool word_keys, Block shape)
    : options_(std::move(options)),
      build_keys_(std::move(build_keys)),
      word_keys_(word_keys),
      shape_(std::move(shape)) {}

GraceHashJoin::~GraceHashJoin() = default;

std::vector<uint64_t> GraceHashJoin::KeyHashes(const std::vector<const Column*>& keys,
                                            size_t rows) const {
  std::vector<uint64_t> out(rows);
  if (word_keys_) {
    for (size_t r = 0; r < rows; ++r) out[r] = HashInt(KeyWord(*keys[0], r) ^ kBucketSeed);
    return out;
  }
  std::string key;
  for (size_t r = 0; r < rows; ++r) {
    key.clear();
    AppendRowKey(keys, r, &key);
    out[r] = XXH3_64bits_withSeed(key.data(), key.size(), kBucketSeed);
  }
  return out;
}

Block GraceHashJoin::WithHashes(Block block) const {
  std::vector<const Column*> keys;
  for (uint32_t k : build_keys_) keys.push_back(block.columns[k].get());
  const size_t rows = block.rows();
  std::vector<uint64_t> hashes = KeyHashes(keys, rows);
  auto column = std::make_shared<Column>(TypeId::kUInt64);
  column->Resize(rows);
  std::copy(hashes.begin(), hashes.end(), column->Data<uint64_t>());
  block.columns.push_back(std::move(column));
  block.rows_without_columns = rows;
  return block;
}

bool GraceHashJoin::Over(const std::vector<Block>& rows) const {
  uint64_t bytes = 0, count = 0;
  for (const Block& block : rows) {
    bytes += BlockBytes(block) - (spilled_ ? block.rows() * sizeof(uint64_t) : 0);
    count += block.rows();
  }
  bytes += count * kTableBytesPerRow;
  return (options_.max_bytes > 0 && bytes > options_.max_bytes) ||
         (options_.max_rows > 0 && count > options_.max_rows);
}

void GraceHashJoin::NoteSpill(uint64_t bytes, uint64_t rows) {
  spilled_bytes_ += bytes;
  spilled_rows_ += rows;
  CountEvent(Event::kJoinSpilledBytes, bytes);
  CountEvent(Event::kJoinSpilledRows, rows);
}

absl::Status GraceHashJoin::Append(Side side, size_t bucket, Block rows) {
  // Encoded and compressed before the lock: probe threads only serialize their writes.
  const SpillFile::Record record = SpillFile::Encode(rows);
  const uint64_t written = record.bytes.size();
  {
    MutexLock lock(mu_);
    auto& files = files_[side];
    if (files.size() <= bucket) files.resize(bucket + 1);
    if (!files[bucket]) {
      ASSIGN_OR_RETURN(files[bucket], SpillFile::Create(options_.spill_dir));
      CountEvent(Event::kJoinSpilledBuckets);
    }
    RETURN_IF_ERROR(files[bucket]->AppendRecord(record));
  }
  if (side == kProbe) {
    CountEvent(Event::kJoinSpilledBytes, written);
    CountEvent(Event::kJoinSpilledRows, rows.rows());
    return absl::OkStatus();
  }
  NoteSpill(written, rows.rows());
  return absl::OkStatus();
}

absl::StatusOr<Block> GraceHashJoin::Distribute(Side side, const Block& block, size_t keep) {
  const size_t rows = block.rows();
  const uint64_t* hashes = HashesOf(block);
  const uint64_t mask = buckets_ - 1;
  std::vector<std::vector<uint32_t>> selected(buckets_);
  for (size_t r = 0; r < rows; ++r) selected[hashes[r] & mask].push_back(static_cast<uint32_t>(r));
  if (selected[keep].size() == rows) return block;
  for (size_t b = 0; b < buckets_; ++b) {
    if (b == keep || selected[b].empty()) continue;
    RETURN_IF_ERROR(Append(side, b, TakeRowsOrPlaceholders(block, selected[b])));
  }
  return TakeRowsOrPlaceholders(block, selected[keep]);
}

absl::Status GraceHashJoin::SplitWhileOver(std::vector<Block>* rows, size_t keep) {
  while (Over(*rows)) {
    if (buckets_ >= options_.max_buckets) {
      uint64_t bytes = 0, count = 0;
      for (const Block& block : *rows) {
        bytes += BlockBytes(block);
        count += block.rows();
      }
      return Error(ErrorCode::kMemoryLimitExceeded,
                   absl::StrCat("Grace hash join: bucket ", keep, " of ", buckets_, " holds ",
                                count, " build rows (", Size(bytes),
                                "), over the join's budget (max_bytes_in_join ",
                                options_.max_bytes, ", max_rows_in_join ", options_.max_rows,
                                ") at grace_hash_join_max_buckets = ", options_.max_buckets,
                                ": its keys cannot be split further"));
    }
    buckets_ *= 2;
    std::vector<Block> kept;
    for (const Block& block : *rows) {
      ASSIGN_OR_RETURN(Block part, Distribute(kBuild, block, keep));
      if (part.rows() > 0) kept.push_back(std::move(part));
    }
    *rows = std::move(kept);
  }
  return absl::OkStatus();
}

absl::Status GraceHashJoin::AddBuild(Block block) {
  if (block.rows() == 0) return absl::OkStatus();
  // A large block is taken in slices once spilling: each slice's bucket copies are written and
  // freed before the next is cut, so partitioning holds little besides the block itself.
  if (spilled_ && block.rows() > kSliceRows) {
    for (size_t at = 0; at < block.rows(); at += kSliceRows) {
      RETURN_IF_ERROR(AddBuild(SliceRows(block, at, kSliceRows)));
    }
    return absl::OkStatus();
  }
  if (!spilled_) {
    memory_.push_back(std::move(block));
    if (!Over(memory_) || options_.spill_dir.empty()) return absl::OkStatus();
    spilled_ = true;
    buckets_ = std::bit_ceil(std::max<size_t>(2, options_.initial_buckets));
    buckets_ = std::min(buckets_, std::max<size_t>(2, std::bit_floor(options_.max_buckets)));
    std::vector<Block> all = std::move(memory_);
    memory_.clear();
    for (Block& held : all) {
      ASSIGN_OR_RETURN(Block kept, Distribute(kBuild, WithHashes(std::move(held)), 0));
      held = Block();
      if (kept.rows() > 0) memory_.push_back(std::move(kept));
    }
  } else {
    ASSIGN_OR_RETURN(Block kept, Distribute(kBuild, WithHashes(std::move(block)), 0));
    if (kept.rows() > 0) memory_.push_back(std::move(kept));
  }
  return SplitWhileOver(&memory_, 0);
}

absl::StatusOr<Block> GraceHashJoin::FinishBuild() {
  std::vector<Block> rows = std::move(memory_);
  memory_.clear();
  if (spilled_) {
    for (Block& block : rows) block = WithoutHashes(std::move(block));
  }
  if (rows.empty()) return shape_;
  if (rows.size() == 1) return std::move(rows[0]);
  return ConcatBlocks(rows);
}

absl::StatusOr<std::vector<uint32_t>> GraceHashJoin::PartitionProbe(
    const Block& block, const std::vector<const Column*>& keys) {
  const size_t rows = block.rows();
  const std::vector<uint64_t> hashes = KeyHashes(keys, rows);
  const uint64_t mask = buckets_ - 1;
  std::vector<std::vector<uint32_t>> selected(buckets_);
  for (size_t r = 0; r < rows; ++r) selected[hashes[r] & mask].push_back(static_cast<uint32_t>(r));
  for (size_t b = 1; b < buckets_; ++b) {
    if (selected[b].empty()) continue;
    Block part = TakeRowsOrPlaceholders(block, selected[b]);
    auto column = std::make_shared<Column>(TypeId::kUInt64);
    column->Reserve(selected[b].size());
    for (uint32_t r : selected[b]) column->Append<uint64_t>(hashes[r]);
    part.columns.push_back(std::move(column));
    RETURN_IF_ERROR(Append(kProbe, b, std::move(part)));
  }
  return std::move(selected[0]);
}

absl::StatusOr<Block> GraceHashJoin::LoadBuildBucket(size_t b) {
  SpillFile* file = nullptr;
  {
    MutexLock lock(mu_);
    if (b < files_[kBuild].size()) file = files_[kBuild][b].get();
  }
  std::vector<Block> rows;
  // Split as soon as the rows read pass the budget, so no more than it (and one block) is held.
  while (file != nullptr) {
    ASSIGN_OR_RETURN(std::optional<Block> block, file->Next());
    if (!block) break;
    ASSIGN_OR_RETURN(Block kept, Distribute(kBuild, *block, b));
    if (kept.rows() > 0) rows.push_back(std::move(kept));
    RETURN_IF_ERROR(SplitWhileOver(&rows, b));
  }
  for (Block& block : rows) block = WithoutHashes(std::move(block));
  if (rows.empty()) return shape_;
  if (rows.size() == 1) return std::move(rows[0]);
  return ConcatBlocks(rows);
}

absl::StatusOr<std::optional<Block>> GraceHashJoin::NextProbe(size_t b) {
  SpillFile* file = nullptr;
  {
    MutexLock lock(mu_);
    if (b < files_[kProbe].size()) file = files_[kProbe][b].get();
  }
  while (file != nullptr) {
    ASSIGN_OR_RETURN(std::optional<Block> block, file->Next());
    if (!block) break;
    ASSIGN_OR_RETURN(Block kept, Distribute(kProbe, *block, b));
    if (kept.rows() > 0) return std::optional<Block>(WithoutHashes(std::move(kept)));
  }
  return std::optional<Block>();
}

bool GraceHashJoin::BucketEmpty(size_t b) const {
  MutexLock lock(mu_);
  for (const auto& files : files_) {
    if (b < files.size() && files[b] && files[b]->rows() > 0) return false;
  }
  return true;
}

void GraceHashJoin::DropBucket(size_t b) {
  MutexLock lock(mu_);
  for (auto& files : files_) {
    if (b < files.size()) files[b].reset();
  }
}

}  // namespace granite::core
