// Aggregates over Nullable arguments (ClickHouse's AggregateFunctionNull): rows where any
// argument is NULL are skipped; the wrapped function sees the nested values only. count, uniq*
// and groupBitmap keep their result type (0 when every value was NULL); every other aggregate
// returns Nullable(T), NULL for a group that saw no value that is not NULL (sum, avg, min, max,
// any, ...). The partial state is the wrapped function's plus a UInt8 "saw a value" column.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "core/aggregation/aggregate_function.h"
#include "core/types.h"

namespace granite::core {

// Returns whether any argument type is Nullable (the call needs the adapter).
bool HasNullableArgument(const std::vector<TypeId>& arg_types);

// Returns the argument types without Nullable (Nullable(Nothing) becomes UInt8).
std::vector<TypeId> NestedArgumentTypes(const std::vector<TypeId>& arg_types);

// Returns whether the aggregate named `canonical` returns its own type, not Nullable, over
// Nullable arguments (count, uniq*, groupBitmap: their result for no value is 0).
bool KeepsResultTypeOverNulls(std::string_view canonical);

// Wraps `inner`, created for the nested argument types. `nullable_result`: the result is
// Nullable(inner's result type).
std::unique_ptr<AggregateFunction> MakeNullAggregateAdapter(std::unique_ptr<AggregateFunction> inner,
                                                            bool nullable_result);

}  // namespace granite::core
