// avg(x), result Float64 (nan for an empty group, like ClickHouse).
//
// Integer inputs keep an exact 128-bit sum, so unlike ClickHouse the mean stays exact when the sum
// overflows Int64 (2^63 rows of 2^64 would be needed to overflow 128 bits). State columns:
// Int64 (high 64 bits of the sum), UInt64 (low 64 bits), UInt64 (count). The mean is computed as
// quotient + remainder / count in integers first, so it is within one rounding of the true mean.
// Float inputs keep a Float64 sum and a UInt64 count. Decimal inputs keep the integer state of
// their scaled values.
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/aggregation/builtin_aggregate_functions.h"
#include "core/aggregation/simple_aggregate_function.h"
#include "core/decimal.h"

namespace granite::core {
namespace {

struct IntAvgState {
  Int128 sum;
  uint64_t count;
};

// Averages integer values with an exact 128-bit sum.
template <typename InT>
struct IntAvgOp {
  using In = InT;
  using State = IntAvgState;
  using Result = double;
  static constexpr bool kReorderable = true;
  static constexpr bool kNarrowSums = sizeof(InT) <= 8 && !std::is_same_v<InT, uint64_t>;
  static constexpr bool kCountsRows = true;

  static State Init() { return State{0, 0}; }
  static void Add(State& s, In value) {
    s.sum += static_cast<Int128>(value);
    ++s.count;
  }
  static void AddNarrow(State& s, int64_t sum, uint64_t rows) {
    s.sum += sum;
    s.count += rows;
  }
  static void Merge(State& s, const State& other) {
    s.sum += other.sum;
    s.count += other.count;
  }
  static Result Final(const State& s) {
    if (s.count == 0) return std::numeric_limits<double>::quiet_NaN();
    Int128 count = static_cast<Int128>(s.count);
    Int128 quotient = s.sum / count;  // truncates toward zero; |remainder| < count
    Int128 remainder = s.sum % count;
    return static_cast<double>(quotient) +
           static_cast<double>(remainder) / static_cast<double>(s.count);
  }
  static std::vector<TypeId> StateTypes(TypeId) {
    return {TypeId::kInt64, TypeId::kUInt64, TypeId::kUInt64};
  }
  static TypeId ResultType(TypeId) { return TypeId::kFloat64; }
  static void Write(const State& s, char* const* columns, size_t row) {
    auto bits = static_cast<unsigned __int128>(s.sum);
    StoreAt<int64_t>(columns[0], row, static_cast<int64_t>(static_cast<uint64_t>(bits >> 64)));
    StoreAt<uint64_t>(columns[1], row, static_cast<uint64_t>(bits));
    StoreAt<uint64_t>(columns[2], row, s.count);
  }
  static State Read(const char* const* columns, size_t row) {
    auto high = static_cast<uint64_t>(LoadAt<int64_t>(columns[0], row));
    auto bits = (static_cast<unsigned __int128>(high) << 64) | LoadAt<uint64_t>(columns[1], row);
    return State{static_cast<Int128>(bits), LoadAt<uint64_t>(columns[2], row)};
  }
};

// Averages decimals: the exact 128-bit sum of scaled values, then, as ClickHouse does, the sum
// converted to Float64 and divided by the count.
template <typename InT>
struct DecimalAvgOp : IntAvgOp<InT> {
  static double Final(const IntAvgState& s, TypeId arg) {
    if (s.count == 0) return std::numeric_limits<double>::quiet_NaN();
    return DecimalToDouble(s.sum, ScaleOf(arg)) / static_cast<double>(s.count);
  }
};

struct FloatAvgState {
  double sum;
  uint64_t count;
};

// Averages float values with a Float64 sum.
template <typename InT>
struct FloatAvgOp {
  using In = InT;
  using State = FloatAvgState;
  using Result = double;

  static State Init() { return State{0, 0}; }
  static void Add(State& s, In value) {
    s.sum += static_cast<double>(value);
    ++s.count;
  }
  static void Merge(State& s, const State& other) {
    s.sum += other.sum;
    s.count += other.count;
  }
  static Result Final(const State& s) { return s.sum / static_cast<double>(s.count); }
  static std::vector<TypeId> StateTypes(TypeId) { return {TypeId::kFloat64, TypeId::kUInt64}; }
  static TypeId ResultType(TypeId) { return TypeId::kFloat64; }
  static void Write(const State& s, char* const* columns, size_t row) {
    StoreAt<double>(columns[0], row, s.sum);
    StoreAt<uint64_t>(columns[1], row, s.count);
  }
  static State Read(const char* const* columns, size_t row) {
    return State{LoadAt<double>(columns[0], row), LoadAt<uint64_t>(columns[1], row)};
  }
};

}  // namespace

std::unique_ptr<AggregateFunction> MakeAvg(TypeId arg) {
  return DispatchFixed(arg, [&](auto tag) -> std::unique_ptr<AggregateFunction> {
    using T = typename decltype(tag)::Type;
    if constexpr (std::is_floating_point_v<T>) {
      return MakeSimpleAggregate<FloatAvgOp<T>>(arg);
    } else if (IsDecimal(arg)) {
      return MakeSimpleAggregate<DecimalAvgOp<T>>(arg);
    } else {
      return MakeSimpleAggregate<IntAvgOp<T>>(arg);
    }
  });
}

}  // namespace granite::core
