// The -Array combinator: sumArray(arr), uniqArray(arr), avgArray(arr)... run the inner aggregate
// over every element of every row's array, as ClickHouse's does. The inner aggregate keeps the
// states, so they travel and merge between workers exactly as its own do; this wrapper only
// flattens each batch (the elements, and each row's group id repeated once per element).
#include <memory>
#include <vector>

#include "core/aggregation/builtin_aggregate_functions.h"

namespace granite::core {
namespace {

class ArrayCombinator final : public AggregateFunction {
 public:
  explicit ArrayCombinator(std::unique_ptr<AggregateFunction> inner) : inner_(std::move(inner)) {}

  std::vector<TypeId> StateTypes() const override { return inner_->StateTypes(); }
  TypeId ResultType() const override { return inner_->ResultType(); }
  size_t groups() const override { return inner_->groups(); }
  void Resize(size_t groups) override { inner_->Resize(groups); }

  void AddBatch(const uint32_t* group_ids, const std::vector<ColumnPtr>& args,
                size_t rows) override {
    const Column& array = *args[0];
    std::vector<uint32_t> ids;
    ids.reserve(rows == 0 ? 0 : array.Offsets()[rows - 1]);
    for (size_t i = 0; i < rows; ++i) ids.insert(ids.end(), array.ArraySizeAt(i), group_ids[i]);
    if (ids.empty()) return;
    inner_->AddBatch(ids.data(), Elements(args[0], ids.size()), ids.size());
  }
  void AddBatchOneGroup(uint32_t group, const std::vector<ColumnPtr>& args, size_t rows) override {
    const size_t elements = rows == 0 ? 0 : args[0]->Offsets()[rows - 1];
    if (elements == 0) return;
    inner_->AddBatchOneGroup(group, Elements(args[0], elements), elements);
  }
  absl::Status MergeBatch(const uint32_t* group_ids, const ColumnPtr* states,
                          size_t rows) override {
    return inner_->MergeBatch(group_ids, states, rows);
  }
  void WriteStates(const uint32_t* groups, size_t count, Column* const* out) const override {
    inner_->WriteStates(groups, count, out);
  }
  void MergeFrom(const uint32_t* dst_groups, AggregateFunction& src, const uint32_t* src_groups,
                 size_t count) override {
    inner_->MergeFrom(dst_groups, *static_cast<ArrayCombinator&>(src).inner_, src_groups, count);
  }
  size_t StateBytes() const override { return inner_->StateBytes(); }
  void Finalize(Column* out) const override { inner_->Finalize(out); }
  void Clear() override { inner_->Clear(); }

 private:
  // Returns the first `count` elements of array column `array` as the inner aggregate's argument
  // (the nested column itself, shared, when it holds exactly those).
  static std::vector<ColumnPtr> Elements(const ColumnPtr& array, size_t count) {
    const Column& nested = array->Nested();
    if (nested.size() == count) return {ColumnPtr(array, &nested)};
    return {std::make_shared<Column>(nested.Slice(0, count))};
  }

  std::unique_ptr<AggregateFunction> inner_;
};

}  // namespace

std::unique_ptr<AggregateFunction> MakeArrayCombinator(std::unique_ptr<AggregateFunction> inner) {
  return std::make_unique<ArrayCombinator>(std::move(inner));
}

}  // namespace granite::core
