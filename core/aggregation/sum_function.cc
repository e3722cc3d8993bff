// sum(x): ClickHouse result types — Int64 for signed integers, UInt64 for unsigned integers,
// Float64 for floats. Integer sums wrap around on overflow (two's complement), like ClickHouse.
// The state is the running sum in the result type. Decimals: Decimal(38, S), see DecimalSumOp.
#include <type_traits>

#include "core/aggregation/builtin_aggregate_functions.h"
#include "core/aggregation/simple_aggregate_function.h"

namespace granite::core {
namespace {

template <typename T>
constexpr TypeId TypeIdOf() {
  if constexpr (std::is_same_v<T, int64_t>) return TypeId::kInt64;
  if constexpr (std::is_same_v<T, uint64_t>) return TypeId::kUInt64;
  return TypeId::kFloat64;
}

// Adds values of type InT into an accumulator of type AccT (int64_t, uint64_t or double).
template <typename InT, typename AccT>
struct SumOp {
  using In = InT;
  using State = AccT;
  using Result = AccT;
  static constexpr bool kReorderable = !std::is_floating_point_v<AccT>;

  static State Init() { return 0; }
  static void Add(State& s, In value) {
    if constexpr (std::is_floating_point_v<AccT>) {
      s += static_cast<double>(value);
    } else {
      // Unsigned arithmetic: wraps on overflow without undefined behaviour.
      s = static_cast<AccT>(static_cast<uint64_t>(s) +
                            static_cast<uint64_t>(static_cast<AccT>(value)));
    }
  }
  static void Merge(State& s, const State& other) {
    if constexpr (std::is_floating_point_v<AccT>) {
      s += other;
    } else {
      s = static_cast<AccT>(static_cast<uint64_t>(s) + static_cast<uint64_t>(other));
    }
  }
  static Result Final(const State& s) { return s; }
  static std::vector<TypeId> StateTypes(TypeId) { return {TypeIdOf<AccT>()}; }
  static TypeId ResultType(TypeId) { return TypeIdOf<AccT>(); }
  static void Write(const State& s, char* const* columns, size_t row) {
    StoreAt<AccT>(columns[0], row, s);
  }
  static State Read(const char* const* columns, size_t row) { return LoadAt<AccT>(columns[0], row); }
};

// Adds scaled decimal values into a 128-bit sum: Decimal(38, S) for a Decimal(P, S) argument,
// as in ClickHouse, wrapping on overflow as ClickHouse's sum does.
template <typename InT>
struct DecimalSumOp {
  using In = InT;
  using State = Int128;
  using Result = Int128;
  static constexpr bool kReorderable = true;
  static constexpr bool kNarrowSums = sizeof(InT) <= 8;
  static constexpr bool kCountsRows = false;

  static State Init() { return 0; }
  static void Add(State& s, In value) {
    s = static_cast<Int128>(static_cast<unsigned __int128>(s) +
                            static_cast<unsigned __int128>(static_cast<Int128>(value)));
  }
  static void AddNarrow(State& s, int64_t sum, uint64_t) {
    s = static_cast<Int128>(static_cast<unsigned __int128>(s) +
                            static_cast<unsigned __int128>(static_cast<Int128>(sum)));
  }
  static void Merge(State& s, const State& other) {
    s = static_cast<Int128>(static_cast<unsigned __int128>(s) + static_cast<unsigned __int128>(other));
  }
  static Result Final(const State& s) { return s; }
  static std::vector<TypeId> StateTypes(TypeId arg) { return {ResultType(arg)}; }
  static TypeId ResultType(TypeId arg) { return MakeDecimal(kMaxDecimalPrecision, ScaleOf(arg)); }
  static void Write(const State& s, char* const* columns, size_t row) {
    StoreAt<Int128>(columns[0], row, s);
  }
  static State Read(const char* const* columns, size_t row) { return LoadAt<Int128>(columns[0], row); }
};

// sumWithOverflow: accumulates in the argument's own type T; integers wrap around.
template <typename T>
struct OwnTypeSumOp {
  using In = T;
  using State = T;
  using Result = T;

  static State Init() { return 0; }
  static void Add(State& s, In value) {
    if constexpr (std::is_floating_point_v<T>) {
      s += value;
    } else {
      s = static_cast<T>(static_cast<uint64_t>(s) + static_cast<uint64_t>(value));
    }
  }
  static void Merge(State& s, const State& other) { Add(s, other); }
  static Result Final(const State& s) { return s; }
  static std::vector<TypeId> StateTypes(TypeId arg) { return {arg}; }
  static TypeId ResultType(TypeId arg) { return arg; }
  static void Write(const State& s, char* const* columns, size_t row) {
    StoreAt<T>(columns[0], row, s);
  }
  static State Read(const char* const* columns, size_t row) { return LoadAt<T>(columns[0], row); }
};

}  // namespace

std::unique_ptr<AggregateFunction> MakeSumWithOverflow(TypeId arg) {
  return DispatchFixed(arg, [&](auto tag) -> std::unique_ptr<AggregateFunction> {
    using T = typename decltype(tag)::Type;
    return MakeSimpleAggregate<OwnTypeSumOp<T>>(arg);
  });
}

std::unique_ptr<AggregateFunction> MakeSum(TypeId arg) {
  return DispatchFixed(arg, [&](auto tag) -> std::unique_ptr<AggregateFunction> {
    using T = typename decltype(tag)::Type;
    if (IsDecimal(arg)) {
      if constexpr (std::is_signed_v<T> && !std::is_floating_point_v<T>) {
        return MakeSimpleAggregate<DecimalSumOp<T>>(arg);
      }
    }
    if constexpr (std::is_floating_point_v<T>) {
      return MakeSimpleAggregate<SumOp<T, double>>(arg);
    } else if constexpr (std::is_signed_v<T>) {
      return MakeSimpleAggregate<SumOp<T, int64_t>>(arg);
    } else {
      return MakeSimpleAggregate<SumOp<T, uint64_t>>(arg);
    }
  });
}

}  // namespace granite::core
