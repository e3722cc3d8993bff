// The "GROUP BY ... ORDER BY key LIMIT" planner rule (ClickHouse's
// enable_group_by_top_k_optimization): when the first ORDER BY expression is a GROUP BY key, only
// the groups whose key is among the first L = limit + offset distinct values in that order can be
// returned, so each worker thread aggregates only rows whose key may still be among them
// (core/aggregation/hash_limit_filter.h, HashLimitFilter::ByKeyOrder, explains why it is exact).
// The shape: time series and dashboards, "GROUP BY minute ORDER BY minute LIMIT 10", "GROUP BY
// user ORDER BY user DESC LIMIT 100". The coordinator's merge and final stage are unchanged.
//
// The rule fires (Aggregate::order_limit = L) only when all of these hold:
//   - the fragment aggregates with GROUP BY keys (or SELECT DISTINCT keys);
//   - ORDER BY's first expression is one of the keys, of a type with order codes
//     (key_order_code.h: integers, dates, Decimal32/64, strings; not Nullable, not floats);
//   - LIMIT n with n > 0 and no HAVING (it could drop top groups and let cut ones in);
//   - L <= query_plan_max_limit_for_top_k_optimization (ClickHouse's default, 1000; 0: no cap):
//     a filter of L near the number of distinct keys admits most rows and only costs (GROUP BY
//     minute ... LIMIT 10 OFFSET 1000 over a day of minutes ran 2 ms slower with it);
//     enable_group_by_top_k_optimization = 0 turns the rule off.
#pragma once

#include "coordinator/planner/query_plan.h"
#include "coordinator/planner/rules/rule.h"

namespace granite::coordinator {

// The planner rule: sets plan->fragment.aggregate's order_limit, order_key and order_descending
// when the conditions above hold; returns whether it did.
bool ApplyGroupOrderLimitFilter(QueryPlan* plan, const RuleContext& context);

}  // namespace granite::coordinator
