// uniq(x): the approximate number of distinct values per group, result UInt64. Each value is hashed
// to 32 bits with a seed different from the GROUP BY key hash (so that grouping by a column
// correlated with x does not bias the sample) and fed to a UniquesHashSet per group (algorithm and
// error bound in uniques_hash_set.h). Partial state: one String column, the serialized set.
#include <string>
#include <vector>

#include "core/aggregation/builtin_aggregate_functions.h"
#include "core/aggregation/key_hash.h"
#include "core/aggregation/uniques_hash_set.h"

namespace granite::core {
namespace {

constexpr uint64_t kUniqSeed = 0x5bd1e9955bd1e995ULL;

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
  void Resize(size_t groups) override { sets_.resize(groups); }

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
      absl::Status status = sets_[group_ids[i]].MergeSerialized(column.StringAt(i));
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }

  void WriteStates(const uint32_t* groups, size_t count, Column* const* out) const override {
    std::string bytes;
    out[0]->Reserve(out[0]->size() + count);
    for (size_t i = 0; i < count; ++i) {
      bytes.clear();
      sets_[groups[i]].Serialize(&bytes);
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
    }
  }

  size_t StateBytes() const override {
    size_t bytes = 0;
    for (const UniquesHashSet& set : sets_) bytes += set.MemoryBytes();
    return bytes;
  }

  void Finalize(Column* out) const override {
    for (const UniquesHashSet& set : sets_) out->Append<uint64_t>(set.Estimate());
  }

  void Clear() override { std::vector<UniquesHashSet>().swap(sets_); }

 private:
  static uint32_t HashAt(const Column& column, size_t row) {
    if constexpr (std::is_same_v<T, std::string_view>) {
      return UniqHashString(column.StringAt(row));
    } else {
      return UniqHash(column.Data<T>()[row]);
    }
  }

  std::vector<UniquesHashSet> sets_;
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
