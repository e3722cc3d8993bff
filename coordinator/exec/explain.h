// EXPLAIN [PLAN] [indexes = 1] SELECT ...: the typed plan after the planner rules, one line per
// row of a single String column `explain`, as ClickHouse returns it:
//   Coordinator: final stage (expressions, HAVING, ORDER BY, LIMIT) and how worker results
//     come together (bucketed merge of partial states, with its limits; or concatenation)
//   Workers: the fragment every worker runs, operator by operator (core/plan/plan_text.h)
//   Rules: the planner rules that fired, in order (coordinator/planner/rules/rule.h)
//   Indexes (indexes = 1, a table scan): parts and granules selected by pruning, summed over the
//     workers, from a scan that reads nothing (Fragment::explain_only).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/planner/query_plan.h"

namespace granite::coordinator {

// Which EXPLAIN PLAN options were given. Errors: UNKNOWN_SETTING for an option ClickHouse's
// EXPLAIN PLAN does not have, BAD_ARGUMENTS for a value other than 0/1, NOT_IMPLEMENTED for
// json = 1.
struct ExplainOptions {
  bool indexes = false;
};
absl::StatusOr<ExplainOptions> ParseExplainOptions(
    const std::map<std::string, std::string>& options);

// Pruning as the workers reported it.
struct IndexSummary {
  uint64_t parts_selected = 0;
  uint64_t parts_total = 0;
  uint64_t granules_selected = 0;
  uint64_t granules_total = 0;
};

// Returns the lines of EXPLAIN for `plan` run on `worker_count` workers.
std::vector<std::string> ExplainLines(const QueryPlan& plan, size_t worker_count,
                                      const std::optional<IndexSummary>& indexes);

}  // namespace granite::coordinator
