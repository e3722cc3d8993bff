// PlanParse: parses a serialized plan Fragment (the worker's Execute request, worker.proto
// FragmentRequest) with a nesting limit deep enough for every expression the coordinator's
// parser accepts. protobuf's default limit, 100 nested messages, is what gRPC's own parse of a
// request uses; an expression level costs two (Expr -> FunctionCall -> Expr), so ~50-level
// expressions failed on the worker with an empty gRPC error.
#pragma once

#include <string_view>

#include "absl/status/status.h"
#include "granite/worker/v1/plan.pb.h"

namespace granite::core {

// Nested messages a plan may hold. The coordinator's parser builds expression trees of at most
// 1000 levels (sql::ExpressionParser::kMaxTreeDepth), two messages each, and the binder may wrap
// a level in a cast; coordinator/planner/plan_depth_test.cc checks the deepest accepted expressions.
// Parsing a message of this depth takes well under 1 MiB of stack.
inline constexpr int kPlanRecursionLimit = 4 * 1000 + 100;

// Parses `bytes` into `*fragment`. Fails with INCORRECT_DATA, naming the size, if they are not a
// Fragment or nest deeper than kPlanRecursionLimit.
absl::Status ParsePlanFragment(std::string_view bytes, granite::worker::v1::Fragment* fragment);

}  // namespace granite::core
