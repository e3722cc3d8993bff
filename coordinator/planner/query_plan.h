// QueryPlan: what the binder makes of a SELECT — the fragment every worker runs, and the final
// stage the coordinator runs over the merged result (HAVING, output expressions, ORDER BY, LIMIT).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/block.h"
#include "core/block_sort.h"
#include "core/settings/settings.h"
#include "core/types.h"
#include "granite/worker/v1/plan.pb.h"

namespace granite::coordinator {

enum class SourceKind {
  kWorkers,  // a table or a table function: every worker runs the fragment over its shard
  kLocal,    // system tables and SELECT without FROM: the coordinator runs it over local_input
};

// Holds a bound, planned SELECT.
//
// The "stage block" is what the final stage starts from: for aggregating queries the group keys
// followed by the finalized aggregates; otherwise the fragment's projections. final_exprs are
// evaluated over it; the first `visible` of them are the result columns, the rest are extra
// ORDER BY keys.
struct QueryPlan {
  SourceKind source = SourceKind::kWorkers;
  granite::worker::v1::Fragment fragment;
  // The query's settings (the session's, the request's, then the SELECT's SETTINGS); the
  // fragment carries their changes to the workers.
  core::Settings settings;
  core::Block local_input;  // kLocal only
  // An ordered table function (numbers, not numbers_mt) keeps its order: blocks are concatenated
  // worker by worker.
  bool ordered_source = false;

  bool has_having = false;
  granite::worker::v1::Expr having;
  std::vector<granite::worker::v1::Expr> final_exprs;
  size_t visible = 0;
  std::vector<core::SortColumn> order;  // indexes into final_exprs
  uint64_t limit = 0;                   // 0 = none
  uint64_t offset = 0;
  bool has_limit = false;

  std::vector<std::string> names;      // result column names (visible ones)
  std::vector<core::TypeId> types;     // result column types (visible ones)
  std::string format;                  // FORMAT clause, empty if none
};

}  // namespace granite::coordinator
