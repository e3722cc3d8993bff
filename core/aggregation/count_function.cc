// count() and count(x): the number of rows per group (granite has no NULLs, so count(x) counts
// every row too). State: UInt64.
#include <algorithm>
#include <vector>

#include "core/aggregation/bucket_scatter.h"
#include "core/aggregation/builtin_aggregate_functions.h"
#include "core/gather.h"

namespace granite::core {
namespace {

// Counts rows per group.
// Thread-safety: none (see AggregateFunction).
class CountFunction final : public AggregateFunction {
 public:
  std::vector<TypeId> StateTypes() const override { return {TypeId::kUInt64}; }
  TypeId ResultType() const override { return TypeId::kUInt64; }
  size_t groups() const override { return counts_.size(); }
  void Resize(size_t groups) override { counts_.resize(groups, 0); }
  void Reserve(size_t groups) override { counts_.reserve(groups); }

  void AddBatch(const uint32_t* group_ids, const std::vector<ColumnPtr>& args,
                size_t rows) override {
    uint64_t* counts = counts_.data();
    for (size_t i = 0; i < rows; ++i) ++counts[group_ids[i]];
  }

  void AddBatchSelected(const uint32_t* group_ids, const std::vector<ColumnPtr>& args,
                        const uint32_t* selection, size_t count) override {
    AddBatch(group_ids, args, count);  // count() reads no argument
  }

  void AddBatchOneGroup(uint32_t group, const std::vector<ColumnPtr>& args, size_t rows) override {
    counts_[group] += rows;
  }

  absl::Status MergeBatch(const uint32_t* group_ids, const ColumnPtr* states,
                          size_t rows) override {
    const uint64_t* other = states[0]->Data<uint64_t>();
    uint64_t* counts = counts_.data();
    for (size_t i = 0; i < rows; ++i) counts[group_ids[i]] += other[i];
    return absl::OkStatus();
  }

  void MergeFrom(const uint32_t* dst_groups, AggregateFunction& src, const uint32_t* src_groups,
                 size_t count) override {
    const uint64_t* other = static_cast<const CountFunction&>(src).counts_.data();
    uint64_t* counts = counts_.data();
    for (size_t i = 0; i < count; ++i) counts[dst_groups[i]] += other[src_groups[i]];
  }

  void WriteStates(const uint32_t* groups, size_t count, Column* const* out) const override {
    size_t old = out[0]->size();
    out[0]->ResizeUninitialized(old + count);  // every new value is written below
    uint64_t* dst = out[0]->Data<uint64_t>() + old;
    Gather(counts_.data(), counts_.size(), groups, count,
           [dst](uint64_t value, size_t i) { dst[i] = value; });
  }

  bool WriteStatesByBucket(const uint8_t* bucket_of, const uint32_t* bucket_rows,
                           Column* const* const* out) const override {
    uint64_t* dst[kBucketCount];
    for (uint32_t b = 0; b < kBucketCount; ++b) {
      size_t old = out[b][0]->size();
      out[b][0]->ResizeUninitialized(old + bucket_rows[b]);  // every new value is written below
      dst[b] = out[b][0]->Data<uint64_t>() + old;
    }
    ScatterByBucket(counts_.data(), counts_.size(), bucket_of, dst,
                    [](uint64_t value, uint64_t* bucket, uint32_t row) { bucket[row] = value; });
    return true;
  }

  void Finalize(Column* out) const override {
    size_t old = out->size();
    out->ResizeUninitialized(old + counts_.size());  // every new value is copied below
    std::copy(counts_.begin(), counts_.end(), out->Data<uint64_t>() + old);
  }

  void Clear() override { std::vector<uint64_t>().swap(counts_); }

 private:
  std::vector<uint64_t> counts_;
};

}  // namespace

std::unique_ptr<AggregateFunction> MakeCount() { return std::make_unique<CountFunction>(); }

}  // namespace granite::core
