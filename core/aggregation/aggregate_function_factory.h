// Resolution of aggregate calls (name + argument types → canonical name + result type) for the
// binder, and construction of AggregateFunction objects for the Aggregator.
//
// Supported (names case-insensitive): count() / count(x) (count(*) arrives as count()),
// sum(x), avg(x), min(x), max(x), any(x), uniqExact(x), countDistinct(x) (= COUNT(DISTINCT x),
// canonical name "uniqExact"), uniq(x).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/aggregation/aggregate_function.h"
#include "core/types.h"

namespace granite::core {

// The outcome of resolving an aggregate call.
struct ResolvedAggregate {
  std::string name;  // canonical: count, sum, avg, min, max, any, uniqExact, uniq
  TypeId result_type;
};

// Resolves an aggregate call. Result types: count, uniqExact, uniq → UInt64; sum → Int64 (signed
// integer argument), UInt64 (unsigned), Float64 (float); avg → Float64; min/max/any → the argument
// type. sum and avg reject String, Date and DateTime.
// Fails with UNKNOWN_AGGREGATE_FUNCTION, NUMBER_OF_ARGUMENTS_DOESNT_MATCH or
// ILLEGAL_TYPE_OF_ARGUMENT, naming the function (and the type).
absl::StatusOr<ResolvedAggregate> ResolveAggregate(std::string_view name,
                                                   const std::vector<TypeId>& arg_types);

// Returns true if `name` (case-insensitive) is a supported aggregate function.
bool IsAggregateFunction(std::string_view name);

// Creates the function object for `spec` (resolved again, so a bad spec fails like above).
absl::StatusOr<std::unique_ptr<AggregateFunction>> CreateAggregateFunction(
    const AggregateSpec& spec);

}  // namespace granite::core
