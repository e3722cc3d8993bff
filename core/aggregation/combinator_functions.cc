// Aggregate function combinators, wrapped around any aggregate (ClickHouse's suffixes):
//   f-If(args..., cond): only the rows whose cond (any number) is non-zero reach f; the states are
//     f's own.
//   f-OrDefault(args...): f's result, or the result type's default (0, '') for a group that saw
//     no row; the state is f's plus a UInt8 "saw a row" column.
//   f-Distinct(args...): each distinct argument tuple reaches f once; the state is the set of
//     tuples (one String column), replayed into a fresh f per group when finalized.
//   f-Array(arr): every element of every row's array reaches f (sumArray); the states are f's.
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "core/aggregation/aggregate_function_factory.h"
#include "core/aggregation/builtin_aggregate_functions.h"
#include "core/aggregation/cell_codec.h"
#include "core/aggregation/generic_aggregate_function.h"

namespace granite::core {
namespace {

// Forwards everything but the adds to the wrapped aggregate, whose states are the combinator's:
// -If and -Array change only which values reach it.
class ForwardingCombinator : public AggregateFunction {
 public:
  explicit ForwardingCombinator(std::unique_ptr<AggregateFunction> inner)
      : inner_(std::move(inner)) {}

  std::vector<TypeId> StateTypes() const override { return inner_->StateTypes(); }
  TypeId ResultType() const override { return inner_->ResultType(); }
  size_t groups() const override { return inner_->groups(); }
  void Resize(size_t groups) override { inner_->Resize(groups); }
  absl::Status MergeBatch(const uint32_t* group_ids, const ColumnPtr* states,
                          size_t rows) override {
    return inner_->MergeBatch(group_ids, states, rows);
  }
  void WriteStates(const uint32_t* groups, size_t count, Column* const* out) const override {
    inner_->WriteStates(groups, count, out);
  }
  // REQUIRES: `src` is of the same combinator type.
  void MergeFrom(const uint32_t* dst_groups, AggregateFunction& src, const uint32_t* src_groups,
                 size_t count) override {
    inner_->MergeFrom(dst_groups, *static_cast<ForwardingCombinator&>(src).inner_, src_groups,
                      count);
  }
  size_t StateBytes() const override { return inner_->StateBytes(); }
  void Finalize(Column* out) const override { inner_->Finalize(out); }
  void Clear() override { inner_->Clear(); }

 protected:
  std::unique_ptr<AggregateFunction> inner_;
};

class IfCombinator final : public ForwardingCombinator {
 public:
  using ForwardingCombinator::ForwardingCombinator;

  void AddBatch(const uint32_t* group_ids, const std::vector<ColumnPtr>& args,
                size_t rows) override {
    std::vector<uint8_t> mask;
    const size_t selected = Mask(*args.back(), rows, &mask);
    if (selected == 0) return;
    std::vector<ColumnPtr> inner_args = Filtered(args, mask, selected == rows);
    if (selected == rows) return inner_->AddBatch(group_ids, inner_args, rows);
    std::vector<uint32_t> ids;
    ids.reserve(selected);
    for (size_t i = 0; i < rows; ++i) {
      if (mask[i]) ids.push_back(group_ids[i]);
    }
    inner_->AddBatch(ids.data(), inner_args, selected);
  }
  void AddBatchOneGroup(uint32_t group, const std::vector<ColumnPtr>& args, size_t rows) override {
    std::vector<uint8_t> mask;
    const size_t selected = Mask(*args.back(), rows, &mask);
    if (selected == 0) return;
    inner_->AddBatchOneGroup(group, Filtered(args, mask, selected == rows), selected);
  }

 private:
  static size_t Mask(const Column& cond, size_t rows, std::vector<uint8_t>* mask) {
    mask->resize(rows);
    size_t selected = 0;
    DispatchFixed(cond.type(), [&](auto tag) {
      using T = typename decltype(tag)::Type;
      const T* values = cond.Data<T>();
      for (size_t i = 0; i < rows; ++i) {
        (*mask)[i] = values[i] != 0;
        selected += (*mask)[i];
      }
    });
    return selected;
  }
  static std::vector<ColumnPtr> Filtered(const std::vector<ColumnPtr>& args,
                                         const std::vector<uint8_t>& mask, bool all) {
    std::vector<ColumnPtr> out(args.begin(), args.end() - 1);
    if (all) return out;
    for (ColumnPtr& column : out) {
      column = std::make_shared<const Column>(column->Filter(mask.data()));
    }
    return out;
  }
};

// sumArray(arr), uniqArray(arr)...: the inner aggregate sees every element of every row's array
// (its one argument); each row's group id is repeated once per element.
class ArrayCombinator final : public ForwardingCombinator {
 public:
  using ForwardingCombinator::ForwardingCombinator;

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

 private:
  // Returns the first `count` elements of array column `array` as the inner aggregate's argument
  // (the nested column itself, shared, when it holds exactly those).
  static std::vector<ColumnPtr> Elements(const ColumnPtr& array, size_t count) {
    const Column& nested = array->Nested();
    if (nested.size() == count) return {ColumnPtr(array, &nested)};
    return {std::make_shared<Column>(nested.Slice(0, count))};
  }
};

class OrDefaultCombinator final : public AggregateFunction {
 public:
  explicit OrDefaultCombinator(std::unique_ptr<AggregateFunction> inner)
      : inner_(std::move(inner)), inner_states_(inner_->StateTypes().size()) {}

  std::vector<TypeId> StateTypes() const override {
    std::vector<TypeId> types = inner_->StateTypes();
    types.push_back(TypeId::kUInt8);
    return types;
  }
  TypeId ResultType() const override { return inner_->ResultType(); }
  size_t groups() const override { return inner_->groups(); }
  void Resize(size_t groups) override {
    inner_->Resize(groups);
    seen_.resize(groups, 0);
  }
  void AddBatch(const uint32_t* group_ids, const std::vector<ColumnPtr>& args,
                size_t rows) override {
    for (size_t i = 0; i < rows; ++i) seen_[group_ids[i]] = 1;
    inner_->AddBatch(group_ids, args, rows);
  }
  void AddBatchOneGroup(uint32_t group, const std::vector<ColumnPtr>& args, size_t rows) override {
    if (rows > 0) seen_[group] = 1;
    inner_->AddBatchOneGroup(group, args, rows);
  }
  absl::Status MergeBatch(const uint32_t* group_ids, const ColumnPtr* states,
                          size_t rows) override {
    const uint8_t* seen = states[inner_states_]->Data<uint8_t>();
    for (size_t i = 0; i < rows; ++i) seen_[group_ids[i]] |= seen[i];
    return inner_->MergeBatch(group_ids, states, rows);
  }
  void WriteStates(const uint32_t* groups, size_t count, Column* const* out) const override {
    inner_->WriteStates(groups, count, out);
    for (size_t i = 0; i < count; ++i) out[inner_states_]->Append<uint8_t>(seen_[groups[i]]);
  }
  void MergeFrom(const uint32_t* dst_groups, AggregateFunction& src, const uint32_t* src_groups,
                 size_t count) override {
    auto& other = static_cast<OrDefaultCombinator&>(src);
    for (size_t i = 0; i < count; ++i) seen_[dst_groups[i]] |= other.seen_[src_groups[i]];
    inner_->MergeFrom(dst_groups, *other.inner_, src_groups, count);
  }
  size_t StateBytes() const override { return inner_->StateBytes(); }
  void Finalize(Column* out) const override {
    Column results(inner_->ResultType());
    inner_->Finalize(&results);
    for (size_t g = 0; g < seen_.size(); ++g) {
      if (seen_[g]) {
        out->AppendFrom(results, g);
      } else {
        AppendCell(out, "");
      }
    }
  }
  void Clear() override {
    inner_->Clear();
    std::vector<uint8_t>().swap(seen_);
  }

 private:
  std::unique_ptr<AggregateFunction> inner_;
  const size_t inner_states_;
  std::vector<uint8_t> seen_;
};

// -Distinct: the set of argument tuples, each a concatenation of cells.
class DistinctOp {
 public:
  using State = absl::flat_hash_set<std::string>;
  DistinctOp(AggregateSpec inner, TypeId result) : inner_(std::move(inner)), result_(result) {}

  void Add(State& s, const std::vector<ColumnPtr>& args, size_t row) const {
    std::string tuple;
    for (const ColumnPtr& arg : args) PutCell(&tuple, CellOf(*arg, row));
    s.insert(std::move(tuple));
  }
  void Merge(State& s, State&& o) const {
    if (s.empty()) {
      s = std::move(o);
    } else {
      s.insert(o.begin(), o.end());
    }
  }
  void Write(const State& s, std::string* out) const {
    PutVarint64(out, s.size());
    for (const std::string& t : s) PutCell(out, t);
  }
  bool Read(std::string_view in, State* s) const {
    uint64_t n;
    if (!GetVarint64(&in, &n) || n > in.size()) return false;
    std::string t;
    for (uint64_t i = 0; i < n; ++i) {
      if (!GetCell(&in, &t)) return false;
      s->insert(t);
    }
    return in.empty();
  }
  TypeId ResultType() const { return result_; }
  void Final(State& s, Column* out) const {
    absl::StatusOr<std::unique_ptr<AggregateFunction>> inner = CreateAggregateFunction(inner_);
    if (!inner.ok()) return AppendCell(out, "");  // resolved before: unreachable
    std::vector<MutableColumnPtr> columns;
    for (TypeId type : inner_.arg_types) columns.push_back(std::make_shared<Column>(type));
    std::string cell;
    for (const std::string& t : s) {
      std::string_view in = t;
      for (auto& column : columns) {
        if (GetCell(&in, &cell)) AppendCell(column.get(), cell);
      }
    }
    std::vector<ColumnPtr> args(columns.begin(), columns.end());
    (*inner)->Resize(1);
    (*inner)->AddBatchOneGroup(0, args, s.size());
    (*inner)->Finalize(out);
  }

 private:
  const AggregateSpec inner_;
  const TypeId result_;
};

}  // namespace

std::unique_ptr<AggregateFunction> MakeIfCombinator(std::unique_ptr<AggregateFunction> inner) {
  return std::make_unique<IfCombinator>(std::move(inner));
}

std::unique_ptr<AggregateFunction> MakeArrayCombinator(std::unique_ptr<AggregateFunction> inner) {
  return std::make_unique<ArrayCombinator>(std::move(inner));
}

std::unique_ptr<AggregateFunction> MakeOrDefaultCombinator(
    std::unique_ptr<AggregateFunction> inner) {
  return std::make_unique<OrDefaultCombinator>(std::move(inner));
}

std::unique_ptr<AggregateFunction> MakeDistinctCombinator(const AggregateSpec& inner,
                                                          TypeId result) {
  return MakeGenericAggregate(DistinctOp(inner, result));
}

}  // namespace granite::core
