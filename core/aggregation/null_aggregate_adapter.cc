#include "core/aggregation/null_aggregate_adapter.h"

#include <algorithm>

namespace granite::core {
namespace {

class NullAggregateAdapter final : public AggregateFunction {
 public:
  NullAggregateAdapter(std::unique_ptr<AggregateFunction> inner, bool nullable_result)
      : inner_(std::move(inner)),
        inner_states_(inner_->StateTypes().size()),
        nullable_result_(nullable_result) {}

  std::vector<TypeId> StateTypes() const override {
    std::vector<TypeId> types = inner_->StateTypes();
    types.push_back(TypeId::kUInt8);
    return types;
  }
  TypeId ResultType() const override {
    return WithNullable(inner_->ResultType(), nullable_result_);
  }
  size_t groups() const override { return inner_->groups(); }
  void Resize(size_t groups) override {
    inner_->Resize(groups);
    seen_.resize(groups, 0);
  }

  void AddBatch(const uint32_t* group_ids, const std::vector<ColumnPtr>& args,
                size_t rows) override {
    std::vector<uint8_t> mask;
    const size_t kept = Mask(args, rows, &mask);
    if (kept == 0) return;
    if (kept == rows) {
      for (size_t i = 0; i < rows; ++i) seen_[group_ids[i]] = 1;
      return inner_->AddBatch(group_ids, args, rows);
    }
    std::vector<uint32_t> ids;
    ids.reserve(kept);
    for (size_t i = 0; i < rows; ++i) {
      if (mask[i]) {
        ids.push_back(group_ids[i]);
        seen_[group_ids[i]] = 1;
      }
    }
    inner_->AddBatch(ids.data(), Filtered(args, mask), kept);
  }
  void AddBatchOneGroup(uint32_t group, const std::vector<ColumnPtr>& args, size_t rows) override {
    std::vector<uint8_t> mask;
    const size_t kept = Mask(args, rows, &mask);
    if (kept == 0) return;
    seen_[group] = 1;
    if (kept == rows) return inner_->AddBatchOneGroup(group, args, rows);
    inner_->AddBatchOneGroup(group, Filtered(args, mask), kept);
  }
  absl::Status MergeBatch(const uint32_t* group_ids, const ColumnPtr* states,
                          size_t rows) override {
    const uint8_t* seen = states[inner_states_]->Data<uint8_t>();
    for (size_t i = 0; i < rows; ++i) seen_[group_ids[i]] |= seen[i];
    return inner_->MergeBatch(group_ids, states, rows);
  }
  void WriteStates(const uint32_t* groups, size_t count, Column* const* out) const override {
    inner_->WriteStates(groups, count, out);
    AppendSeen(groups, count, out[inner_states_]);
  }
  void WriteFinalOnlyStates(const uint32_t* groups, size_t count,
                            Column* const* out) const override {
    inner_->WriteFinalOnlyStates(groups, count, out);
    AppendSeen(groups, count, out[inner_states_]);
  }
  void WriteDisjointStates(const uint32_t* groups, size_t count,
                           Column* const* out) const override {
    inner_->WriteDisjointStates(groups, count, out);
    AppendSeen(groups, count, out[inner_states_]);
  }
  void MergeFrom(const uint32_t* dst_groups, AggregateFunction& src, const uint32_t* src_groups,
                 size_t count) override {
    auto& other = static_cast<NullAggregateAdapter&>(src);
    for (size_t i = 0; i < count; ++i) seen_[dst_groups[i]] |= other.seen_[src_groups[i]];
    inner_->MergeFrom(dst_groups, *other.inner_, src_groups, count);
  }
  bool SplitsIntoParts() const override { return inner_->SplitsIntoParts(); }
  void PrepareParts() override { inner_->PrepareParts(); }
  void MergePartFrom(uint32_t dst_group, AggregateFunction& src, uint32_t src_group,
                     uint32_t part) override {
    auto& other = static_cast<NullAggregateAdapter&>(src);
    // Parts of one group may merge concurrently: only part 0 writes the flag.
    if (part == 0) seen_[dst_group] |= other.seen_[src_group];
    inner_->MergePartFrom(dst_group, *other.inner_, src_group, part);
  }
  void MergeDisjointFrom(const uint32_t* dst_groups, AggregateFunction& src,
                         const uint32_t* src_groups, size_t count) override {
    auto& other = static_cast<NullAggregateAdapter&>(src);
    for (size_t i = 0; i < count; ++i) seen_[dst_groups[i]] |= other.seen_[src_groups[i]];
    inner_->MergeDisjointFrom(dst_groups, *other.inner_, src_groups, count);
  }
  size_t StateBytes() const override { return inner_->StateBytes(); }
  void Finalize(Column* out) const override {
    if (!nullable_result_) return inner_->Finalize(out);
    Column values(inner_->ResultType());
    inner_->Finalize(&values);
    out->Reserve(out->size() + values.size());
    for (size_t g = 0; g < values.size(); ++g) {
      if (g < seen_.size() && seen_[g] != 0) {
        out->AppendFrom(values, g);
      } else {
        out->AppendNull();
      }
    }
  }
  void Clear() override {
    inner_->Clear();
    seen_.clear();
    seen_.shrink_to_fit();
  }

 private:
  // Sets mask[i] for the rows where no argument is NULL; returns their count.
  static size_t Mask(const std::vector<ColumnPtr>& args, size_t rows, std::vector<uint8_t>* mask) {
    mask->assign(rows, 1);
    for (const ColumnPtr& arg : args) {
      if (RemoveNullable(arg->type()) == TypeId::kNothing) {
        std::fill(mask->begin(), mask->end(), 0);
        break;
      }
      const uint8_t* nulls = arg->NullMap();
      if (nulls == nullptr) continue;
      for (size_t i = 0; i < rows; ++i) (*mask)[i] &= nulls[i] == 0;
    }
    size_t kept = 0;
    for (uint8_t m : *mask) kept += m;
    return kept;
  }
  static std::vector<ColumnPtr> Filtered(const std::vector<ColumnPtr>& args,
                                         const std::vector<uint8_t>& mask) {
    std::vector<ColumnPtr> out;
    out.reserve(args.size());
    for (const ColumnPtr& column : args) {
      out.push_back(std::make_shared<const Column>(column->Filter(mask.data())));
    }
    return out;
  }
  void AppendSeen(const uint32_t* groups, size_t count, Column* out) const {
    for (size_t i = 0; i < count; ++i) out->Append<uint8_t>(seen_[groups[i]]);
  }

  std::unique_ptr<AggregateFunction> inner_;
  const size_t inner_states_;
  const bool nullable_result_;
  std::vector<uint8_t> seen_;  // per group: a value that is not NULL reached inner_
};

}  // namespace

bool HasNullableArgument(const std::vector<TypeId>& arg_types) {
  for (TypeId type : arg_types) {
    if (IsNullable(type)) return true;
  }
  return false;
}

std::vector<TypeId> NestedArgumentTypes(const std::vector<TypeId>& arg_types) {
  std::vector<TypeId> out;
  out.reserve(arg_types.size());
  for (TypeId type : arg_types) {
    const TypeId nested = RemoveNullable(type);
    out.push_back(nested == TypeId::kNothing ? TypeId::kUInt8 : nested);
  }
  return out;
}

bool KeepsResultTypeOverNulls(std::string_view canonical) {
  for (std::string_view prefix : {"count", "uniq", "groupBitmap", "groupArray", "groupUniqArray"}) {
    if (canonical.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

std::unique_ptr<AggregateFunction> MakeNullAggregateAdapter(std::unique_ptr<AggregateFunction> inner,
                                                            bool nullable_result) {
  return std::make_unique<NullAggregateAdapter>(std::move(inner), nullable_result);
}

}  // namespace granite::core
