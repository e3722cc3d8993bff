#include "core/plan_parse.h"

#include <string>

#include "core/error.h"
#include "gtest/gtest.h"

namespace granite::core {
namespace {

namespace pb = granite::worker::v1;

// Returns a fragment whose filter is `levels` nested calls f(f(...f(column 0)...)).
pb::Fragment NestedFragment(int levels) {
  pb::Fragment fragment;
  pb::Expr* expr = fragment.mutable_filter();
  for (int i = 0; i < levels; ++i) {
    pb::FunctionCall* call = expr->mutable_call();
    call->set_name("f");
    expr = call->add_args();
  }
  expr->set_column(0);
  return fragment;
}

// Issue 19: a ~50-level expression exceeded protobuf's default nesting limit of 100 messages.
TEST(PlanParseTest, ParsesExpressionsFarDeeperThanProtobufsDefault) {
  pb::Fragment deep = NestedFragment(1900);
  std::string bytes = deep.SerializeAsString();
  pb::Fragment default_parse;
  EXPECT_FALSE(default_parse.ParseFromString(bytes));  // what gRPC's own parse does
  pb::Fragment parsed;
  ASSERT_TRUE(ParsePlanFragment(bytes, &parsed).ok());
  EXPECT_EQ(parsed.SerializeAsString(), bytes);
}

TEST(PlanParseTest, FailsWithAMessageBeyondTheLimitOrOnGarbage) {
  pb::Fragment parsed;
  absl::Status too_deep =
      ParsePlanFragment(NestedFragment(kPlanRecursionLimit).SerializeAsString(), &parsed);
  EXPECT_EQ(CodeOf(too_deep), ErrorCode::kIncorrectData);
  EXPECT_NE(too_deep.message().find("nested deeper than"), std::string::npos) << too_deep;
  absl::Status garbage = ParsePlanFragment("\xff\xff\xff", &parsed);
  EXPECT_EQ(CodeOf(garbage), ErrorCode::kIncorrectData);
  EXPECT_NE(garbage.message().find("3 bytes"), std::string::npos) << garbage;
}

}  // namespace
}  // namespace granite::core
