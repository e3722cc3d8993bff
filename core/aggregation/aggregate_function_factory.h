// Resolution of aggregate calls (name + argument types → canonical name + result type) for the
// binder, and construction of AggregateFunction objects for the Aggregator.
//
// Supported (names case-insensitive): the entries of aggregate_function_factory.cc (count, sum,
// avg, min, max, any, anyLast, argMin/argMax, uniq*, the var/stddev/covar/corr/regr_* moments,
// the quantile family with its level parameter, groupBit*, ...), each with the -If, -OrDefault
// and -Distinct combinators. Parameters are part of the name: "quantile(0.9)".
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/aggregation/aggregate_function.h"
#include "core/functions/function_registry.h"
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

// Returns every aggregate function and alias (combinators excluded), for system.functions.
std::vector<FunctionListing> ListAggregateFunctions();

// Creates the function object for `spec` (resolved again, so a bad spec fails like above).
absl::StatusOr<std::unique_ptr<AggregateFunction>> CreateAggregateFunction(
    const AggregateSpec& spec);

}  // namespace granite::core
