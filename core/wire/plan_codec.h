// PlanCodec: the one place a typed plan fragment (core/plan/fragment.h) and its result chunks
// (core/plan/fragment_result.h) meet their wire form (proto/granite/worker/v1/). The coordinator's fan-out encodes a Fragment once per
// worker; the worker's Execute decodes the bytes of its FragmentRequest once, settings included.
//
// Decoding parses with a nesting limit deep enough for every expression the coordinator's parser
// accepts: protobuf's default, 100 nested messages (what gRPC's own parse of a request uses),
// would fail ~50-level expressions (two messages per level: Expr -> FunctionCall -> Expr).
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/plan/fragment.h"
#include "core/plan/fragment_result.h"

namespace granite::worker::v1 {
class Expr;
class Fragment;
class FragmentChunk;
}  // namespace granite::worker::v1

namespace granite::core::wire {

// Nested messages a plan may hold. The coordinator's parser builds expression trees of at most
// 1000 levels (sql::ExpressionParser::kMaxTreeDepth), two messages each, and the binder may wrap
// a level in a cast; coordinator/planner/plan_depth_test.cc checks the deepest accepted
// expressions. Decoding 1900 expression levels takes under 1 MiB of stack (under 4 MiB with
// ASan, which plan_codec_test checks).
inline constexpr int kPlanRecursionLimit = 4 * 1000 + 100;

void ToProto(const plan::Expr& expr, granite::worker::v1::Expr* out);
void ToProto(const plan::Fragment& fragment, granite::worker::v1::Fragment* out);

// Errors: INCORRECT_DATA naming what is malformed (a node or literal without a kind, an unknown
// type id, ORDER BY keys and directions of different lengths); UNKNOWN_SETTING / BAD_ARGUMENTS
// for the fragment's settings.
absl::StatusOr<plan::Expr> FromProto(const granite::worker::v1::Expr& expr);
absl::StatusOr<plan::Fragment> FromProto(const granite::worker::v1::Fragment& fragment);

// A result chunk; `chunk`'s block bytes are moved, not copied.
void ToProto(plan::ResultChunk&& chunk, granite::worker::v1::FragmentChunk* out);

// Returns the serialized wire Expr: an exact key of an expression (types included), e.g. for
// caches keyed by a filter.
std::string EncodeExpr(const plan::Expr& expr);

// Returns the serialized wire Fragment (FragmentRequest.fragment).
std::string EncodeFragment(const plan::Fragment& fragment);

// Parses serialized wire bytes. Errors: those of FromProto, and INCORRECT_DATA naming the size
// when the bytes are no Fragment or nest deeper than kPlanRecursionLimit.
absl::StatusOr<plan::Fragment> DecodeFragment(std::string_view bytes);

}  // namespace granite::core::wire
