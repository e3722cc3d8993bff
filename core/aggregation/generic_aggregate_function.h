// GenericAggregateFunction<Op>: the AggregateFunction for aggregates whose per-group state is a
// C++ object of any shape (sorted samples, t-digests, moment sums, arg/value pairs): the state
// travels between threads and workers as one String column, Op's serialization of it.
//
// An Op is an object built with the call's argument types and parameters; it provides:
//   using State;                                        // default-constructed = empty state
//   void Add(State&, const std::vector<ColumnPtr>& args, size_t row) const;
//   void Merge(State&, State&& other) const;
//   void Write(const State&, std::string* out) const;
//   bool Read(std::string_view in, State* out) const;  // false: malformed
//   void Final(State&, Column* out) const;             // appends one row (may reorder the state)
//   TypeId ResultType() const;
// Add is called once per row through a template, so the loop has no virtual call; Ops that read
// numbers convert with NumberAt (cell_codec.h).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/aggregation/aggregate_function.h"
#include "core/error.h"

namespace granite::core {

// Keeps one Op::State per group.
// Thread-safety: none (see AggregateFunction).
template <typename Op>
class GenericAggregateFunction final : public AggregateFunction {
 public:
  using State = typename Op::State;

  explicit GenericAggregateFunction(Op op) : op_(std::move(op)) {}

  std::vector<TypeId> StateTypes() const override { return {TypeId::kString}; }
  TypeId ResultType() const override { return op_.ResultType(); }
  size_t groups() const override { return states_.size(); }
  void Resize(size_t groups) override { states_.resize(groups); }

  void AddBatch(const uint32_t* group_ids, const std::vector<ColumnPtr>& args,
                size_t rows) override {
    for (size_t i = 0; i < rows; ++i) op_.Add(states_[group_ids[i]], args, i);
  }
  void AddBatchOneGroup(uint32_t group, const std::vector<ColumnPtr>& args, size_t rows) override {
    State& state = states_[group];
    for (size_t i = 0; i < rows; ++i) op_.Add(state, args, i);
  }

  absl::Status MergeBatch(const uint32_t* group_ids, const ColumnPtr* states,
                          size_t rows) override {
    for (size_t i = 0; i < rows; ++i) {
      State other;
      if (!op_.Read(states[0]->StringAt(i), &other)) {
        return Error(ErrorCode::kCorruptedData, "Malformed aggregate function state");
      }
      op_.Merge(states_[group_ids[i]], std::move(other));
    }
    return absl::OkStatus();
  }

  void WriteStates(const uint32_t* groups, size_t count, Column* const* out) const override {
    std::string bytes;
    for (size_t i = 0; i < count; ++i) {
      bytes.clear();
      op_.Write(states_[groups[i]], &bytes);
      out[0]->AppendString(bytes);
    }
  }

  void MergeFrom(const uint32_t* dst_groups, AggregateFunction& src, const uint32_t* src_groups,
                 size_t count) override {
    auto& other = static_cast<GenericAggregateFunction&>(src).states_;
    for (size_t i = 0; i < count; ++i) {
      op_.Merge(states_[dst_groups[i]], std::move(other[src_groups[i]]));
    }
  }

  void Finalize(Column* out) const override {
    for (State& state : states_) op_.Final(state, out);
  }

  void Clear() override { std::vector<State>().swap(states_); }

 private:
  const Op op_;
  mutable std::vector<State> states_;  // Final may sort a state in place
};

template <typename Op>
std::unique_ptr<AggregateFunction> MakeGenericAggregate(Op op) {
  return std::make_unique<GenericAggregateFunction<Op>>(std::move(op));
}

// Appends the raw bytes of a trivially copyable state.
template <typename T>
void WritePod(const T& value, std::string* out) {
  out->append(reinterpret_cast<const char*>(&value), sizeof(T));
}

// Reads a trivially copyable state written by WritePod.
template <typename T>
bool ReadPod(std::string_view in, T* value) {
  if (in.size() != sizeof(T)) return false;
  std::memcpy(value, in.data(), sizeof(T));
  return true;
}

}  // namespace granite::core
