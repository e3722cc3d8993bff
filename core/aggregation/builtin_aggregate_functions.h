// Constructors of the built-in aggregate functions, one per .cc file in this folder. Callers go
// through CreateAggregateFunction (aggregate_function_factory.h), which checks the argument types;
// these constructors assume they were checked.
#pragma once

#include <memory>

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

}  // namespace granite::core
