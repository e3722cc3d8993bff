#include <gtest/gtest.h>

#include "core/error.h"
#include "core/functions/test_columns.h"

namespace granite::core {
namespace {

using T = TypeId;

TEST(ConditionalTest, If) {
  Block b = BlockOf({MakeColumn<uint8_t>(T::kUInt8, {1, 0, 2}),
                     MakeColumn<uint8_t>(T::kUInt8, {10, 20, 30}),
                     MakeColumn<int8_t>(T::kInt8, {-1, -2, -3}),
                     StringColumn({"a", "b", "c"}), MakeColumn<double>(T::kFloat64, {0, 0.5, 0})});
  auto mixed = Fn("if", {Col(0, T::kUInt8), Col(1, T::kUInt8), Col(2, T::kInt8)});
  EXPECT_EQ(mixed.type, T::kInt16);
  EXPECT_EQ(Eval(mixed, b), (Rows{"10", "-2", "30"}));
  EXPECT_EQ(Eval(Fn("if", {Col(0, T::kUInt8), Col(3, T::kString), Lit(std::string(""))}), b),
            (Rows{"a", "", "c"}));
  EXPECT_EQ(Eval(Fn("if", {Col(4, T::kFloat64), Lit(uint64_t{1}), Lit(uint64_t{1000})}), b),
            (Rows{"1000", "1", "1000"}));
  EXPECT_EQ(Eval(Fn("if", {Lit(uint64_t{0}), Col(1, T::kUInt8), Col(2, T::kInt8)}), b),
            (Rows{"-1", "-2", "-3"}));
  EXPECT_EQ(Eval(Fn("IF", {Lit(uint64_t{1}), Col(3, T::kString), Lit(std::string("x"))}), b),
            (Rows{"a", "b", "c"}));
  EXPECT_EQ(EvalConstant(Fn("if", {Lit(uint64_t{1}), Lit(uint64_t{5}), Lit(int64_t{-5})})), "5");
}

TEST(ConditionalTest, MultiIf) {
  Block b = BlockOf({MakeColumn<int32_t>(T::kInt32, {1, 5, 50, 500})});
  auto expr = Fn("multiIf", {Fn("less", {Col(0, T::kInt32), Lit(uint64_t{2})}), Lit(std::string("tiny")),
                             Fn("less", {Col(0, T::kInt32), Lit(uint64_t{10})}), Lit(std::string("small")),
                             Fn("less", {Col(0, T::kInt32), Lit(uint64_t{100})}), Lit(std::string("medium")),
                             Lit(std::string("large"))});
  EXPECT_EQ(Eval(expr, b), (Rows{"tiny", "small", "medium", "large"}));
  // The earliest true condition wins; result type is the supertype of all branches.
  auto numbers = Fn("multiIf", {Fn("greater", {Col(0, T::kInt32), Lit(uint64_t{0})}), Lit(uint64_t{1}),
                                Fn("greater", {Col(0, T::kInt32), Lit(uint64_t{2})}), Lit(uint64_t{70000}),
                                Lit(int64_t{-1})});
  EXPECT_EQ(numbers.type, T::kInt64);
  EXPECT_EQ(Eval(numbers, b), (Rows{"1", "1", "1", "1"}));
  auto floats = Fn("multiIf", {Fn("equals", {Col(0, T::kInt32), Lit(uint64_t{5})}), Lit(0.5),
                               Col(0, T::kInt32)});
  EXPECT_EQ(floats.type, T::kFloat64);
  EXPECT_EQ(Eval(floats, b), (Rows{"1", "0.5", "50", "500"}));
}

TEST(ConditionalTest, CaseWithExpression) {
  Block b = BlockOf({StringColumn({"a", "b", "z"}), MakeColumn<uint8_t>(T::kUInt8, {1, 2, 3})});
  auto expr = Fn("caseWithExpression", {Col(0, T::kString), Lit(std::string("a")), Lit(uint64_t{1}),
                                        Lit(std::string("b")), Lit(int64_t{-2}), Col(1, T::kUInt8)});
  EXPECT_EQ(expr.type, T::kInt16);
  EXPECT_EQ(Eval(expr, b), (Rows{"1", "-2", "3"}));
  auto numeric = Fn("caseWithExpression", {Col(1, T::kUInt8), Lit(uint64_t{3}), Lit(std::string("three")),
                                           Lit(std::string("other"))});
  EXPECT_EQ(Eval(numeric, b), (Rows{"other", "other", "three"}));
}

TEST(ConditionalTest, NoCommonType) {
  auto bad = TypedCall("if", {Lit(uint64_t{1}), Lit(std::string("a")), Lit(uint64_t{1})});
  EXPECT_EQ(CodeOf(bad.status()), ErrorCode::kIllegalTypeOfArgument);
  EXPECT_NE(bad.status().message().find("supertype"), std::string_view::npos);
  auto bad_condition = TypedCall("if", {Lit(std::string("1")), Lit(uint64_t{1}), Lit(uint64_t{1})});
  EXPECT_EQ(CodeOf(bad_condition.status()), ErrorCode::kIllegalTypeOfArgument);
}

TEST(ConditionalTest, GreatestAndLeast) {
  Block b = BlockOf({MakeColumn<uint8_t>(T::kUInt8, {1, 200}), MakeColumn<int32_t>(T::kInt32, {-5, 300}),
                     StringColumn({"b", "a"})});
  EXPECT_EQ(Eval(Fn("greatest", {Col(0, T::kUInt8), Col(1, T::kInt32)}), b), (Rows{"1", "300"}));
  EXPECT_EQ(Eval(Fn("least", {Col(0, T::kUInt8), Col(1, T::kInt32), Lit(uint64_t{100})}), b),
            (Rows{"-5", "100"}));
  EXPECT_EQ(Eval(Fn("greatest", {Col(2, T::kString), Lit(std::string("ab"))}), b), (Rows{"b", "ab"}));
}

TEST(ConditionalTest, EmptyBlock) {
  Block b = BlockOf({MakeColumn<uint8_t>(T::kUInt8, {}), StringColumn({})});
  EXPECT_EQ(Eval(Fn("if", {Col(0, T::kUInt8), Col(1, T::kString), Lit(std::string("x"))}), b), Rows{});
}

}  // namespace
}  // namespace granite::core
