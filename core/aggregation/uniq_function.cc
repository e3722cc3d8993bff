// uniq(x): the approximate number of distinct values per group, result UInt64. Each value is hashed
// to 32 bits with a seed different from the GROUP BY key hash (so that grouping by a column
// correlated with x does not bias the sample) and fed to a UniquesHashSet per group (algorithm and
// error bound in uniques_hash_set.h). Partial state: one String column, the serialized set.
//
// Disjoint states (AggregateSpec::disjoint, coordinator/planner/distinct_planner.h): when a worker's
// argument values are disjoint from every other worker's, it writes each group's estimate as
// version 3 (version byte 3, varint estimate) and the receiver adds the estimates (added_). The
// result is then a sum of per-worker estimates: each within uniques_hash_set.h's error bound of
// its own count, so the sum is within the same relative bound of the true total.
#include <cstring>
#include <string>
#include <vector>

#include "core/aggregation/builtin_aggregate_functions.h"
#include "core/aggregation/key_hash.h"
#include "core/aggregation/uniques_hash_set.h"
#include "core/aggregation/varint.h"
#include "core/error.h"

namespace granite::core {
namespace {

constexpr uint64_t kUniqSeed = 0x5bd1e9955bd1e995ULL;
// After UniquesHashSet's versions 1 (mergeable) and 2 (final-only).
constexpr uint8_t kDisjointVersion = 3;

template <typename T>
inline uint32_t UniqHash(T value) {
  return static_cast<uint32_t>(HashInt(WidenKey(value) ^ kUniqSeed) >> 32);
}

inline uint32_t UniqHashString(std::string_view value) {
  return static_cast<uint32_t>(XXH3_64bits_withSeed(value.data(), value.size(), kUniqSeed) >> 32);
}

// Estimates distinct values of physical type T (std::string_view for String).
// Thread-safety: none (see AggregateFunction).
template <typename T>
class UniqFunction final : public AggregateFunction {
 public:
  std::vector<TypeId> StateTypes() const override { return {TypeId::kString}; }
  TypeId ResultType() const override { return TypeId::kUInt64; }
  size_t groups() const override { return sets_.size(); }
  void Resize(size_t groups) override {
    sets_.resize(groups);
    added_.resize(groups, 0);
  }

  void AddBatch(const uint32_t* group_ids, const std::vector<ColumnPtr>& args,
                size_t rows) override {
    const Column& column = *args[0];
    for (size_t i = 0; i < rows; ++i) sets_[group_ids[i]].Insert(HashAt(column, i));
  }

  void AddBatchOneGroup(uint32_t group, const std::vector<ColumnPtr>& args, size_t rows) override {
    const Column& column = *args[0];
    UniquesHashSet& set = sets_[group];
    for (size_t i = 0; i < rows; ++i) set.Insert(HashAt(column, i));
  }

  absl::Status MergeBatch(const uint32_t* group_ids, const ColumnPtr* states,
                          size_t rows) override {
    const Column& column = *states[0];
    for (size_t i = 0; i < rows; ++i) {
      std::string_view bytes = column.StringAt(i);
      uint32_t g = group_ids[i];
      if (!bytes.empty() && static_cast<uint8_t>(bytes[0]) == kDisjointVersion) {
        bytes.remove_prefix(1);
        uint64_t estimate = 0;
        if (!GetVarint64(&bytes, &estimate) || !bytes.empty()) {
          return Error(ErrorCode::kCorruptedData, "Cannot read disjoint uniq state");
        }
        if (estimate > 0 && sets_[g].Estimate() != 0) {
          return Error(ErrorCode::kLogicalError,
                       "Cannot add a disjoint uniq estimate to a state holding hashes");
        }
        added_[g] += estimate;
        continue;
      }
      if (added_[g] != 0) {
        return Error(ErrorCode::kLogicalError,
                     "Cannot merge a uniq state into one holding disjoint estimates");
      }
      absl::Status status = sets_[g].MergeSerialized(bytes);
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }

  void WriteStates(const uint32_t* groups, size_t count, Column* const* out) const override {
    std::string bytes;
    out[0]->Reserve(out[0]->size() + count);
    for (size_t i = 0; i < count; ++i) {
      bytes.clear();
      if (added_[groups[i]] != 0) {
        WriteDisjoint(groups[i], &bytes);  // only a sum of estimates is left
      } else {
        sets_[groups[i]].Serialize(&bytes);
      }
      out[0]->AppendString(bytes);
    }
  }

  void WriteDisjointStates(const uint32_t* groups, size_t count,
                           Column* const* out) const override {
    std::string bytes;
    out[0]->Reserve(out[0]->size() + count);
    for (size_t i = 0; i < count; ++i) {
      bytes.clear();
      WriteDisjoint(groups[i], &bytes);
      out[0]->AppendString(bytes);
    }
  }

  void WriteFinalOnlyStates(const uint32_t* groups, size_t count,
                            Column* const* out) const override {
    std::string bytes;
    out[0]->Reserve(out[0]->size() + count);
    for (size_t i = 0; i < count; ++i) {
      bytes.clear();
      sets_[groups[i]].SerializeFinalOnly(&bytes);
      out[0]->AppendString(bytes);
    }
  }

  void MergeFrom(const uint32_t* dst_groups, AggregateFunction& src, const uint32_t* src_groups,
                 size_t count) override {
    auto& other = static_cast<UniqFunction&>(src);
    for (size_t i = 0; i < count; ++i) {
      sets_[dst_groups[i]].MergeConsuming(other.sets_[src_groups[i]]);
      added_[dst_groups[i]] += other.added_[src_groups[i]];
    }
  }

  size_t StateBytes() const override {
    size_t bytes = 0;
    for (const UniquesHashSet& set : sets_) bytes += set.MemoryBytes();
    return bytes;
  }

  void Finalize(Column* out) const override {
    for (size_t g = 0; g < sets_.size(); ++g) {
      out->Append<uint64_t>(sets_[g].Estimate() + added_[g]);
    }
  }

  void Clear() override {
    std::vector<UniquesHashSet>().swap(sets_);
    std::vector<uint64_t>().swap(added_);
  }

 private:
  static uint32_t HashAt(const Column& column, size_t row) {
    if constexpr (std::is_same_v<T, std::string_view>) {
      return UniqHashString(column.StringAt(row));
    } else {
      return UniqHash(column.Data<T>()[row]);
    }
  }

  // Writes group g's estimate (plus the estimates added to it) as a version-3 state.
  void WriteDisjoint(uint32_t g, std::string* bytes) const {
    bytes->push_back(static_cast<char>(kDisjointVersion));
    PutVarint64(bytes, sets_[g].Estimate() + added_[g]);
  }

  std::vector<UniquesHashSet> sets_;
  std::vector<uint64_t> added_;  // per group: sum of disjoint estimates merged in
};

}  // namespace

std::unique_ptr<AggregateFunction> MakeUniq(TypeId arg) {
  if (arg == TypeId::kString) return std::make_unique<UniqFunction<std::string_view>>();
  return DispatchFixed(arg, [&](auto tag) -> std::unique_ptr<AggregateFunction> {
    using T = typename decltype(tag)::Type;
    return std::make_unique<UniqFunction<T>>();
  });
}

}  // namespace granite::core
