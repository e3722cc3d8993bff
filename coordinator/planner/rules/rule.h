// PlannerRule: one named optimization applied to a bound QueryPlan. Rules only set fields of the
// typed plan (core/plan/fragment.h for the workers, QueryPlan's merge fields for the coordinator);
// the worker, BucketedMerger and the final stage act on those fields. ApplyPlannerRules runs every
// rule of PlannerRules() once, in that fixed order (later rules read what earlier ones set), and
// records the names of those that fired in QueryPlan::rules_fired (EXPLAIN shows them).
//
// Two rules act while binding, inside SelectBinder, and are recorded in rules_fired before these:
// dependent_keys (optimize_group_by_function_keys) and sum_of_affine
// (optimize_arithmetic_operations_in_aggregate_functions).
//
// Adding a rule: a file in this folder with `bool Apply...(QueryPlan*, const RuleContext&)`
// returning whether it changed the plan, a query setting in core/settings/setting_list.h that
// turns it off, a line in PlannerRules() (rules.cc) at its place in the order, tests.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "coordinator/planner/query_plan.h"
#include "core/table_schema.h"

namespace granite::coordinator {

// What rules may consult besides the plan.
struct RuleContext {
  const core::TableSchema* table = nullptr;  // the table read; null for table functions
  size_t worker_count = 1;                   // the cluster's current worker count
};

struct PlannerRule {
  std::string_view name;     // as EXPLAIN prints it
  std::string_view setting;  // the query setting that turns it off (or bounds it)
  bool (*apply)(QueryPlan* plan, const RuleContext& context);
  // Whether it applies to fragments with broadcast joins (Fragment::joins): the worker-side
  // rules read the scanned table's columns and stats, which a joined block outgrows.
  bool with_joins = false;
};

// The rules in the order they are applied.
const std::vector<PlannerRule>& PlannerRules();

// Applies every rule in order; appends the names of those that fired to plan->rules_fired.
void ApplyPlannerRules(QueryPlan* plan, const RuleContext& context);

}  // namespace granite::coordinator
