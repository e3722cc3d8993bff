// system.functions: every scalar function of the registry (core/functions/function_registry.h) and
// every aggregate function of the factory (core/aggregation/aggregate_function_factory.h), with
// their aliases, under ClickHouse's column names. Combinators (-If, -Distinct, -OrDefault) apply
// to every aggregate and are not listed, as in ClickHouse (which lists them in
// system.aggregate_function_combinators).
#pragma once

#include "coordinator/planner/binder.h"

namespace granite::coordinator {

// Builds system.functions: name, is_aggregate (UInt8), case_insensitive (UInt8), alias_to
// (the canonical name of an alias, else empty), origin ('System').
LocalTable BuildFunctionsTable();

}  // namespace granite::coordinator
