// Constructors of the built-in aggregate functions, one per .cc file in this folder. Callers go
// through CreateAggregateFunction (aggregate_function_factory.h), which checks the argument types;
// these constructors assume they were checked.
#pragma once

#include <memory>
#include <vector>

#include "core/aggregation/aggregate_function.h"

namespace granite::core {

// count() / count(x): state UInt64, result UInt64.
std::unique_ptr<AggregateFunction> MakeCount();
// sum(x) over a numeric non-date type: state and result Int64 (signed input), UInt64 (unsigned),
// Float64 (float); integer sums wrap around on overflow like ClickHouse.
std::unique_ptr<AggregateFunction> MakeSum(TypeId arg);
// avg(x) over a numeric non-date type, result Float64. Integer inputs keep an exact 128-bit sum
// (state Int64 high, UInt64 low, UInt64 count); floats keep Float64 sum + UInt64 count.
std::unique_ptr<AggregateFunction> MakeAvg(TypeId arg);
// min(x) / max(x) / any(x) over any type: state is the value (type of x) and a UInt8 "has value".
std::unique_ptr<AggregateFunction> MakeMin(TypeId arg);
std::unique_ptr<AggregateFunction> MakeMax(TypeId arg);
std::unique_ptr<AggregateFunction> MakeAny(TypeId arg);
// uniqExact(x): exact distinct count, state one serialized set (String column), result UInt64.
std::unique_ptr<AggregateFunction> MakeUniqExact(TypeId arg);
// uniqExact(x) of an integer x whose widened values all lie in [base, base + bits): a bitmap per
// group (distinct_bitmap_function.cc). REQUIRES: arg is an integer type, bits > 0.
std::unique_ptr<AggregateFunction> MakeDistinctBitmap(TypeId arg, uint64_t base, uint64_t bits);
// uniq(x): approximate distinct count (see uniques_hash_set.h), state String, result UInt64.
std::unique_ptr<AggregateFunction> MakeUniq(TypeId arg);
// sumWithOverflow(x): like sum, in the argument's own type (wrapping around).
std::unique_ptr<AggregateFunction> MakeSumWithOverflow(TypeId arg);

// Moment-based statistics (moments_functions.cc); arguments numeric, result Float64
// (regr_count: UInt64). `stable`: Welford's algorithm (the -Stable variants).
enum class MomentKind {
  kVarPop, kVarSamp, kStddevPop, kStddevSamp, kSkewPop, kSkewSamp, kKurtPop, kKurtSamp,
  kCovarPop, kCovarSamp, kCorr, kAvgWeighted, kRegrCount, kRegrAvgx, kRegrAvgy, kRegrSxx,
  kRegrSyy, kRegrSxy, kRegrSlope, kRegrIntercept, kRegrR2,
};
std::unique_ptr<AggregateFunction> MakeMoments(MomentKind kind, bool stable);

// The quantile family (quantile_functions.cc). REQUIRES: arg is not String.
enum class QuantileKind {
  kInterpolated, kExact, kExactLow, kExactHigh, kExactExclusive, kExactInclusive, kTDigest,
  kTiming, kBFloat16, kExactWeighted,
};
TypeId QuantileResultType(QuantileKind kind, TypeId arg);
std::unique_ptr<AggregateFunction> MakeQuantile(QuantileKind kind, TypeId arg, double level);

// Value-keeping and small aggregates (value_functions.cc). `param`: uniqUpTo's N.
enum class ValueKind {
  kArgMin, kArgMax, kAnyLast, kAnyHeavy, kEntropy, kUniqUpTo, kSumKahan, kBoundingRatio,
  kBitAnd, kBitOr, kBitXor,
  kAnyFirst,  // any(x) of a type the typed `any` does not keep (arrays): the first value seen
};
std::unique_ptr<AggregateFunction> MakeValueAggregate(ValueKind kind,
                                                      const std::vector<TypeId>& args,
                                                      uint64_t param);

// groupArray(x), groupArray(N)(x) and groupUniqArray(x) (group_array_function.cc): the group's
// values (the distinct ones for `uniq`) as an Array(arg); `max_size` 0 means no limit.
std::unique_ptr<AggregateFunction> MakeGroupArray(bool uniq, TypeId arg, uint64_t max_size);

// Combinators (combinator_functions.cc): -If (the last argument is the condition), -OrDefault,
// -Distinct (`inner` is the wrapped call's spec, `result` its result type).
std::unique_ptr<AggregateFunction> MakeIfCombinator(std::unique_ptr<AggregateFunction> inner);
// -Array: `inner` runs over the elements of its one Array argument.
std::unique_ptr<AggregateFunction> MakeArrayCombinator(std::unique_ptr<AggregateFunction> inner);
std::unique_ptr<AggregateFunction> MakeOrDefaultCombinator(
    std::unique_ptr<AggregateFunction> inner);
std::unique_ptr<AggregateFunction> MakeDistinctCombinator(const AggregateSpec& inner,
                                                          TypeId result);

}  // namespace granite::core
