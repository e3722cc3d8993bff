// SimpleAggregateFunction<Op>: the AggregateFunction for aggregates whose per-group state is a
// small trivially copyable struct (sum, avg, min, max, any over fixed-width values). Following
// DuckDB, the Op supplies the arithmetic as static methods and this template supplies the loops
// over a batch once for all of them.
//
// An Op provides:
//   using In;      // physical C++ type of the argument column
//   using State;   // trivially copyable per-group state
//   using Result;  // physical C++ type of the result column
//   static State Init();                                   // the empty state
//   static void Add(State& s, In value);
//   static void Merge(State& s, const State& other);
//   static Result Final(const State& s);                  // or Final(s, arg) when the result
//                                                          // depends on the argument type
//   static std::vector<TypeId> StateTypes(TypeId arg);     // partial-state column types
//   static TypeId ResultType(TypeId arg);
//   static void Write(const State& s, char* const* columns, size_t row);  // raw column data
//   static State Read(const char* const* columns, size_t row);
// and optionally `static constexpr bool kReorderable = true;` when Adds in any order, merged,
// give the same state (integer and decimal sums and averages, not float sums): a batch over a
// handful of groups then adds into interleaved copies of each state (see AddLanes).
// Exact sums of integers (decimal sums, averages) may also declare
//   static constexpr bool kNarrowSums = true;   // In: an integer of <= 64 bits, not UInt64
//   static constexpr bool kCountsRows;          // whether AddNarrow reads `rows`
//   static void AddNarrow(State& s, int64_t sum, uint64_t rows);  // adds `rows` values summing
//                                                                 // to `sum`
// so that a batch whose values' magnitude bound (core/magnitude_bits.h) proves every partial sum
// fits int64 adds into int64 accumulators instead of the 128-bit state (see AddNarrowLanes).
#pragma once

#include <cstring>
#include <memory>
#include <vector>

#include "core/aggregation/aggregate_function.h"
#include "core/aggregation/bucket_scatter.h"
#include "core/gather.h"
#include "core/magnitude_bits.h"

namespace granite::core {

// Stores `value` as row `row` of the raw data of a fixed-width column of T.
template <typename T>
inline void StoreAt(char* column, size_t row, T value) {
  std::memcpy(column + row * sizeof(T), &value, sizeof(T));
}

// Loads row `row` of the raw data of a fixed-width column of T.
template <typename T>
inline T LoadAt(const char* column, size_t row) {
  T value;
  std::memcpy(&value, column + row * sizeof(T), sizeof(T));
  return value;
}

// Keeps one Op::State per group in a vector indexed by group id.
// Thread-safety: none (see AggregateFunction).
template <typename Op>
class SimpleAggregateFunction final : public AggregateFunction {
 public:
  using In = typename Op::In;
  using State = typename Op::State;
  using Result = typename Op::Result;

  explicit SimpleAggregateFunction(TypeId arg_type) : arg_type_(arg_type) {}

  std::vector<TypeId> StateTypes() const override { return Op::StateTypes(arg_type_); }
  TypeId ResultType() const override { return Op::ResultType(arg_type_); }
  size_t groups() const override { return states_.size(); }
  void Resize(size_t groups) override { states_.resize(groups, Op::Init()); }
  void Reserve(size_t groups) override { states_.reserve(groups); }

  void AddBatch(const uint32_t* group_ids, const std::vector<ColumnPtr>& args,
                size_t rows) override {
    const In* values = args[0]->Data<In>();
    if (UsesLanes(rows)) {
      const int shift = NarrowShift(args[0], rows);
      if (shift >= 0) return AddNarrowLanes<false>(group_ids, values, nullptr, rows, shift);
      return AddLanes<false>(group_ids, values, nullptr, rows);
    }
    State* states = states_.data();
    for (size_t i = 0; i < rows; ++i) Op::Add(states[group_ids[i]], values[i]);
  }

  void AddBatchSelected(const uint32_t* group_ids, const std::vector<ColumnPtr>& args,
                        const uint32_t* selection, size_t count) override {
    const In* values = args[0]->Data<In>();
    if (UsesLanes(count)) {
      const int shift = NarrowShift(args[0], count);
      if (shift >= 0) return AddNarrowLanes<true>(group_ids, values, selection, count, shift);
      return AddLanes<true>(group_ids, values, selection, count);
    }
    State* states = states_.data();
    for (size_t i = 0; i < count; ++i) Op::Add(states[group_ids[i]], values[selection[i]]);
  }

  void AddBatchOneGroup(uint32_t group, const std::vector<ColumnPtr>& args, size_t rows) override {
    const In* values = args[0]->Data<In>();
    if constexpr (kNarrow) {
      if (NarrowSumFits(args[0], rows)) {
        // Wrapping adds: the bound proves no partial sum leaves int64, and they vectorize.
        uint64_t sum = 0;
        for (size_t i = 0; i < rows; ++i) {
          sum += static_cast<uint64_t>(static_cast<int64_t>(values[i]));
        }
        Op::AddNarrow(states_[group], static_cast<int64_t>(sum), rows);
        return;
      }
    }
    State state = states_[group];
    for (size_t i = 0; i < rows; ++i) Op::Add(state, values[i]);
    states_[group] = state;
  }

  absl::Status MergeBatch(const uint32_t* group_ids, const ColumnPtr* states,
                          size_t rows) override {
    const char* columns[kMaxStateColumns];
    size_t state_columns = Op::StateTypes(arg_type_).size();
    for (size_t j = 0; j < state_columns; ++j) columns[j] = states[j]->RawData();
    State* own = states_.data();
    for (size_t i = 0; i < rows; ++i) Op::Merge(own[group_ids[i]], Op::Read(columns, i));
    return absl::OkStatus();
  }

  void MergeFrom(const uint32_t* dst_groups, AggregateFunction& src, const uint32_t* src_groups,
                 size_t count) override {
    const State* other = static_cast<const SimpleAggregateFunction&>(src).states_.data();
    State* own = states_.data();
    for (size_t i = 0; i < count; ++i) Op::Merge(own[dst_groups[i]], other[src_groups[i]]);
  }

  void WriteStates(const uint32_t* groups, size_t count, Column* const* out) const override {
    char* columns[kMaxStateColumns];
    std::vector<TypeId> types = Op::StateTypes(arg_type_);
    for (size_t j = 0; j < types.size(); ++j) {
      size_t old = out[j]->size();
      out[j]->ResizeUninitialized(old + count);  // every new value is written below
      columns[j] = out[j]->RawData() + old * ValueSize(types[j]);
    }
    Gather(states_.data(), states_.size(), groups, count,
           [&](const State& state, size_t i) { Op::Write(state, columns, i); });
  }

  bool WriteStatesByBucket(const uint8_t* bucket_of, const uint32_t* bucket_rows,
                           Column* const* const* out) const override {
    std::vector<TypeId> types = Op::StateTypes(arg_type_);
    struct Columns {
      char* data[kMaxStateColumns];
    };
    std::vector<Columns> dst(kBucketCount);
    for (uint32_t b = 0; b < kBucketCount; ++b) {
      for (size_t j = 0; j < types.size(); ++j) {
        size_t old = out[b][j]->size();
        out[b][j]->ResizeUninitialized(old + bucket_rows[b]);  // every new value is written below
        dst[b].data[j] = out[b][j]->RawData() + old * ValueSize(types[j]);
      }
    }
    ScatterByBucket(states_.data(), states_.size(), bucket_of, dst.data(),
                    [](const State& state, const Columns& columns, uint32_t row) {
                      Op::Write(state, const_cast<char* const*>(columns.data), row);
                    });
    return true;
  }

  void Finalize(Column* out) const override {
    size_t old = out->size();
    out->ResizeUninitialized(old + states_.size());  // every new value is written below
    Result* results = out->Data<Result>() + old;
    if constexpr (requires(const State& s, TypeId t) { Op::Final(s, t); }) {
      for (size_t g = 0; g < states_.size(); ++g) results[g] = Op::Final(states_[g], arg_type_);
    } else {
      for (size_t g = 0; g < states_.size(); ++g) results[g] = Op::Final(states_[g]);
    }
  }

  void Clear() override { std::vector<State>().swap(states_); }


 private:
  // A batch over a handful of groups (a low-cardinality GROUP BY: flags, statuses) adds row i
  // into copy i % kLanes of its group's state, so that consecutive rows of one group do not wait
  // on each other's store; the copies are merged once per batch.
  static constexpr size_t kLaneGroups = 8;
  static constexpr size_t kLanes = 4;

  bool UsesLanes(size_t rows) const {
    if constexpr (requires { Op::kReorderable; }) {
      return Op::kReorderable && states_.size() <= kLaneGroups && rows >= 64;
    }
    return false;
  }

  static constexpr bool NarrowSums() {
    if constexpr (requires { Op::kNarrowSums; }) return Op::kNarrowSums;
    return false;
  }
  static constexpr bool kNarrow = NarrowSums();

  // True when any sum of at most `rows` values of `column` fits int64 (|v| < 2^bits, so a sum of
  // n < 2^k values is below 2^(bits + k)). Reads the column's bound, scanning it if unknown.
  static bool NarrowSumFits(const ColumnPtr& column, size_t rows) {
    if constexpr (kNarrow) {
      return MagnitudeBitsOf<In>(column) + BitsOfFactor(static_cast<int64_t>(rows)) <= 63;
    }
    return false;
  }

  // The shift of AddNarrowLanes for a batch of `rows` values of `column` (0 for an Op that does
  // not count rows), or -1 when a lane's packed sum and count might not fit int64.
  static int NarrowShift(const ColumnPtr& column, size_t rows) {
    if constexpr (kNarrow) {
      const int row_bits = BitsOfFactor(static_cast<int64_t>(rows));
      const int shift = Op::kCountsRows ? row_bits : 0;
      if (MagnitudeBitsOf<In>(column) + row_bits + shift <= 63) return shift;
    }
    return -1;
  }

  // AddLanes over int64 accumulators, for batches NarrowShift accepts: row i adds its value into
  // lane i % kLanes of its group with one 8-byte add. An Op that counts rows (avg) keeps the
  // lane's count in the low `shift` bits of the same accumulator (each row adds v * 2^shift + 1;
  // a lane counts fewer than 2^shift rows), so it too costs one add a row.
  template <bool kSelected>
  void AddNarrowLanes(const uint32_t* group_ids, const In* values, const uint32_t* selection,
                      size_t rows, int shift) {
    if constexpr (kNarrow) {
      uint64_t lanes[kLaneGroups][kLanes] = {};
      auto term = [&](size_t i) {
        const In value = values[kSelected ? selection[i] : i];
        const auto v = static_cast<uint64_t>(static_cast<int64_t>(value));
        if constexpr (Op::kCountsRows) return (v << shift) + 1;
        return v;
      };
      size_t i = 0;
      for (; i + kLanes <= rows; i += kLanes) {
        // Unrolled (GCC's -O2 keeps a counted loop of 4 as a loop, a counter update a row).
#pragma GCC unroll 4
        for (size_t l = 0; l < kLanes; ++l) lanes[group_ids[i + l]][l] += term(i + l);
      }
      for (; i < rows; ++i) lanes[group_ids[i]][0] += term(i);
      const uint64_t count_mask = (uint64_t{1} << shift) - 1;
      for (size_t g = 0; g < states_.size(); ++g) {
        for (size_t l = 0; l < kLanes; ++l) {
          const uint64_t lane = lanes[g][l];
          const uint64_t count = lane & count_mask;
          // The exact packed value fits int64, so the arithmetic shift recovers the sum.
          const int64_t sum = static_cast<int64_t>(lane - count) >> shift;
          if (lane != 0) Op::AddNarrow(states_[g], sum, count);
        }
      }
    }
  }

  template <bool kSelected>
  void AddLanes(const uint32_t* group_ids, const In* values, const uint32_t* selection,
                size_t rows) {
    State lanes[kLaneGroups][kLanes];
    const size_t groups = states_.size();
    for (size_t g = 0; g < groups; ++g) {
      for (size_t l = 0; l < kLanes; ++l) lanes[g][l] = Op::Init();
    }
    auto value = [&](size_t i) { return values[kSelected ? selection[i] : i]; };
    size_t i = 0;
    for (; i + kLanes <= rows; i += kLanes) {
#pragma GCC unroll 4
      for (size_t l = 0; l < kLanes; ++l) Op::Add(lanes[group_ids[i + l]][l], value(i + l));
    }
    for (; i < rows; ++i) Op::Add(lanes[group_ids[i]][0], value(i));
    for (size_t g = 0; g < groups; ++g) {
      for (size_t l = 0; l < kLanes; ++l) Op::Merge(states_[g], lanes[g][l]);
    }
  }
  static constexpr size_t kMaxStateColumns = 4;

  const TypeId arg_type_;
  std::vector<State> states_;
};

// Returns a new SimpleAggregateFunction<Op> for an argument of type `arg_type`.
template <typename Op>
std::unique_ptr<AggregateFunction> MakeSimpleAggregate(TypeId arg_type) {
  return std::make_unique<SimpleAggregateFunction<Op>>(arg_type);
}

}  // namespace granite::core
