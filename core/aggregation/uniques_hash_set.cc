#include "core/aggregation/uniques_hash_set.h"

#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/aggregation/varint.h"
#include "core/error.h"

namespace granite::core {
namespace {

constexpr uint8_t kVersion = 1;
constexpr uint8_t kFinalOnlyVersion = 2;

}  // namespace

void UniquesHashSet::Insert(uint32_t hash) {
  if (!Good(hash)) return;
  if (size_degree_ == 0) Rehash(kInitialSizeDegree);
  if (hash == 0) {
    if (has_zero_) return;
    has_zero_ = true;
  } else if (!InsertIntoTable(hash)) {
    return;
  }
  ++count_;
  ShrinkIfNeeded();
}

bool UniquesHashSet::InsertIntoTable(uint32_t hash) {
  uint32_t mask = (1u << size_degree_) - 1;
  uint32_t pos = Slot(hash);
  while (table_[pos] != 0) {
    if (table_[pos] == hash) return false;
    pos = (pos + 1) & mask;
  }
  table_[pos] = hash;
  return true;
}

void UniquesHashSet::ShrinkIfNeeded() {
  if (count_ <= (1u << (size_degree_ - 1))) return;
  if (count_ <= kMaxSize) {
    Rehash(size_degree_ + 1);
    return;
  }
  while (count_ > kMaxSize) {
    ++skip_degree_;
    Rehash(size_degree_);
  }
}

void UniquesHashSet::Rehash(int new_degree) {
  std::unique_ptr<uint32_t[]> old = std::move(table_);
  size_t old_slots = size_degree_ == 0 ? 0 : size_t{1} << size_degree_;
  table_ = std::make_unique<uint32_t[]>(size_t{1} << new_degree);  // zero-filled
  size_degree_ = static_cast<uint8_t>(new_degree);
  count_ = has_zero_ ? 1 : 0;
  for (size_t i = 0; i < old_slots; ++i) {
    uint32_t hash = old[i];
    if (hash != 0 && Good(hash)) {
      InsertIntoTable(hash);
      ++count_;
    }
  }
}

void UniquesHashSet::Merge(const UniquesHashSet& other) {
  if (other.skip_degree_ > skip_degree_) {
    skip_degree_ = other.skip_degree_;
    Rehash(size_degree_ == 0 ? kInitialSizeDegree : size_degree_);
  }
  if (other.has_zero_) Insert(0);
  size_t slots = other.size_degree_ == 0 ? 0 : size_t{1} << other.size_degree_;
  for (size_t i = 0; i < slots; ++i) {
    if (other.table_[i] != 0) Insert(other.table_[i]);
  }
}

void UniquesHashSet::MergeConsuming(UniquesHashSet& other) {
  if (other.count_ == 0) return;
  if (count_ == 0) {
    std::swap(*this, other);
    return;
  }
  if (final_only_ || other.final_only_) {
    if (other.Estimate() > Estimate()) std::swap(*this, other);
    return;
  }
  if (count_ < other.count_) std::swap(*this, other);
  Merge(other);
}

uint64_t UniquesHashSet::Estimate() const {
  if (skip_degree_ == 0) return count_;
  double sampled = static_cast<double>(uint64_t{count_} << skip_degree_);
  constexpr double kHashSpace = 4294967296.0;
  if (sampled >= kHashSpace) return static_cast<uint64_t>(sampled);
  // Undoes the systematic loss from distinct values whose 32-bit hashes collide.
  return static_cast<uint64_t>(std::llround(-kHashSpace * std::log1p(-sampled / kHashSpace)));
}

void UniquesHashSet::Serialize(std::string* out) const {
  out->push_back(static_cast<char>(kVersion));
  out->push_back(static_cast<char>(skip_degree_));
  PutVarint64(out, count_);
  auto put = [out](uint32_t hash) {
    char bytes[4];
    std::memcpy(bytes, &hash, 4);  // little-endian hosts only, like the block codec
    out->append(bytes, 4);
  };
  if (has_zero_) put(0);
  size_t slots = size_degree_ == 0 ? 0 : size_t{1} << size_degree_;
  for (size_t i = 0; i < slots; ++i) {
    if (table_[i] != 0) put(table_[i]);
  }
}

void UniquesHashSet::SerializeFinalOnly(std::string* out) const {
  out->push_back(static_cast<char>(kFinalOnlyVersion));
  out->push_back(static_cast<char>(skip_degree_));
  PutVarint64(out, count_);
}

absl::Status UniquesHashSet::MergeSerialized(std::string_view bytes) {
  if (bytes.size() >= 2 && static_cast<uint8_t>(bytes[0]) == kFinalOnlyVersion) {
    auto skip = static_cast<uint8_t>(bytes[1]);
    bytes.remove_prefix(2);
    uint64_t count = 0;
    if (skip >= 32 || !GetVarint64(&bytes, &count) || !bytes.empty() || count > (1u << 17)) {
      return Error(ErrorCode::kCorruptedData, "Cannot read final-only uniq state");
    }
    if (count == 0) return absl::OkStatus();
    if (count_ != 0) {
      return Error(ErrorCode::kLogicalError,
                   "Cannot merge a final-only uniq state into a non-empty one");
    }
    table_.reset();
    size_degree_ = 0;
    has_zero_ = false;
    skip_degree_ = skip;
    count_ = static_cast<uint32_t>(count);
    final_only_ = true;
    return absl::OkStatus();
  }
  if (final_only_ && count_ != 0) {
    return Error(ErrorCode::kLogicalError, "Cannot merge a uniq state into a final-only one");
  }
  if (bytes.size() < 2 || static_cast<uint8_t>(bytes[0]) != kVersion) {
    return Error(ErrorCode::kCorruptedData,
                 absl::StrCat("Cannot read uniq state: bad header of ", bytes.size(), " bytes"));
  }
  auto other_skip = static_cast<uint8_t>(bytes[1]);
  bytes.remove_prefix(2);
  uint64_t count = 0;
  if (other_skip >= 32 || !GetVarint64(&bytes, &count) || bytes.size() % 4 != 0 ||
      count != bytes.size() / 4) {
    return Error(ErrorCode::kCorruptedData,
                 absl::StrCat("Cannot read uniq state: skip degree ", other_skip, ", ", count,
                              " hashes in ", bytes.size(), " bytes"));
  }
  if (other_skip > skip_degree_) {
    skip_degree_ = other_skip;
    Rehash(size_degree_ == 0 ? kInitialSizeDegree : size_degree_);
  }
  for (uint64_t i = 0; i < count; ++i) {
    uint32_t hash;
    std::memcpy(&hash, bytes.data() + i * 4, 4);
    Insert(hash);
  }
  return absl::OkStatus();
}

}  // namespace granite::core
