#include <gtest/gtest.h>

#include <limits>

#include "core/date_time.h"
#include "core/error.h"
#include "core/functions/test_columns.h"

namespace granite::core {
namespace {

using T = TypeId;

plan::Expr Tuple(std::vector<plan::Expr> elements) {
  return Call("tuple", T::kUInt8, std::move(elements));
}

TEST(LogicalTest, AndOrXorNot) {
  Block b = BlockOf({MakeColumn<uint8_t>(T::kUInt8, {0, 1, 2, 0}),
                     MakeColumn<int32_t>(T::kInt32, {0, 0, -5, 7}),
                     MakeColumn<double>(T::kFloat64, {0.5, 0, 1, 0})});
  EXPECT_EQ(Eval(Fn("and", {Col(0, T::kUInt8), Col(1, T::kInt32)}), b),
            (Rows{"0", "0", "1", "0"}));
  EXPECT_EQ(Eval(Fn("or", {Col(0, T::kUInt8), Col(1, T::kInt32)}), b), (Rows{"0", "1", "1", "1"}));
  EXPECT_EQ(Eval(Fn("or", {Col(0, T::kUInt8), Col(1, T::kInt32), Col(2, T::kFloat64)}), b),
            (Rows{"1", "1", "1", "1"}));
  EXPECT_EQ(Eval(Fn("xor", {Col(0, T::kUInt8), Col(1, T::kInt32)}), b),
            (Rows{"0", "1", "0", "1"}));
  EXPECT_EQ(Eval(Fn("not", {Col(0, T::kUInt8)}), b), (Rows{"1", "0", "0", "1"}));
  EXPECT_EQ(Eval(Fn("not", {Col(2, T::kFloat64)}), b), (Rows{"0", "1", "0", "1"}));
  // Constant arguments.
  EXPECT_EQ(Eval(Fn("and", {Col(0, T::kUInt8), Lit(uint64_t{1})}), b), (Rows{"0", "1", "1", "0"}));
  EXPECT_EQ(Eval(Fn("and", {Col(0, T::kUInt8), Lit(uint64_t{0})}), b), (Rows{"0", "0", "0", "0"}));
  EXPECT_EQ(Eval(Fn("or", {Col(0, T::kUInt8), Lit(uint64_t{3})}), b), (Rows{"1", "1", "1", "1"}));
  EXPECT_EQ(Eval(Fn("xor", {Col(0, T::kUInt8), Lit(uint64_t{1})}), b), (Rows{"1", "0", "0", "1"}));
  EXPECT_EQ(EvalConstant(Fn("and", {Lit(uint64_t{1}), Lit(uint64_t{2})})), "1");
}

TEST(LogicalTest, NullChecksAndVersion) {
  Block b = BlockOf({StringColumn({"a", ""})});
  EXPECT_EQ(Eval(Fn("isNull", {Col(0, T::kString)}), b), (Rows{"0", "0"}));
  EXPECT_EQ(Eval(Fn("isNotNull", {Col(0, T::kString)}), b), (Rows{"1", "1"}));
  EXPECT_EQ(Eval(Fn("version", {}), b), (Rows{"24.3.1.1", "24.3.1.1"}));
}

TEST(InTest, Numbers) {
  Block b = BlockOf({MakeColumn<uint8_t>(T::kUInt8, {1, 6, 255}),
                     MakeColumn<int16_t>(T::kInt16, {-1, 6, 0}),
                     MakeColumn<uint64_t>(T::kUInt64, {1, 7, 1000000})});
  auto in8 = Fn("in", {Col(0, T::kUInt8), Tuple({Lit(int64_t{-1}), Lit(uint64_t{6}),
                                                 Lit(uint64_t{300})})});
  EXPECT_EQ(Eval(in8, b), (Rows{"0", "1", "0"}));
  EXPECT_EQ(Eval(Fn("in", {Col(1, T::kInt16), Tuple({Lit(int64_t{-1}), Lit(uint64_t{6})})}), b),
            (Rows{"1", "1", "0"}));
  EXPECT_EQ(Eval(Fn("notIn", {Col(1, T::kInt16), Tuple({Lit(int64_t{-1}), Lit(uint64_t{6})})}), b),
            (Rows{"0", "0", "1"}));
  // A single value without a tuple.
  EXPECT_EQ(Eval(Fn("in", {Col(2, T::kUInt64), Lit(uint64_t{7})}), b), (Rows{"0", "1", "0"}));
  // Fractional values never match an integer column.
  EXPECT_EQ(Eval(Fn("in", {Col(2, T::kUInt64), Tuple({Lit(1.5), Lit(1.0)})}), b),
            (Rows{"1", "0", "0"}));
  // A large set of close values takes the bitmap path.
  std::vector<plan::Expr> many;
  for (uint64_t v = 1000000; v < 1000020; ++v) many.push_back(Lit(v));
  EXPECT_EQ(Eval(Fn("in", {Col(2, T::kUInt64), Tuple(std::move(many))}), b),
            (Rows{"0", "0", "1"}));
  std::vector<plan::Expr> none;
  for (uint64_t v = 2; v < 22; ++v) none.push_back(Lit(v));
  EXPECT_EQ(Eval(Fn("notIn", {Col(2, T::kUInt64), Tuple(std::move(none))}), b),
            (Rows{"1", "0", "1"}));
}

// Sets of more than eight integers: a bitmap over [min, max] when the values are close (also
// around zero and at the type's ends), a hash set when they are spread; both answer the same.
TEST(InTest, BitmapAndHashSets) {
  const int64_t lowest = std::numeric_limits<int64_t>::min();
  const int64_t highest = std::numeric_limits<int64_t>::max();
  Block b = BlockOf({MakeColumn<int64_t>(T::kInt64, {-5, -4, 0, 3, 9, 10, lowest, highest}),
                     MakeColumn<uint32_t>(T::kUInt32, {0, 1, 4294967295u, 7, 8, 100, 2, 3})});
  std::vector<plan::Expr> close;  // -5, -3, ..., 9
  for (int64_t v = -5; v <= 9; v += 2) close.push_back(Lit(v));
  close.push_back(Lit(uint64_t{0}));
  close.push_back(Lit(uint64_t{10}));
  const Rows close_rows = {"1", "0", "1", "1", "1", "1", "0", "0"};
  EXPECT_EQ(Eval(Fn("in", {Col(0, T::kInt64), Tuple(close)}), b), close_rows);
  EXPECT_EQ(Eval(Fn("notIn", {Col(0, T::kInt64), Tuple(close)}), b),
            (Rows{"0", "1", "0", "0", "0", "0", "1", "1"}));
  // Spread: the type's ends are members.
  std::vector<plan::Expr> spread = close;
  spread.push_back(Lit(lowest));
  spread.push_back(Lit(uint64_t{static_cast<uint64_t>(highest)}));
  EXPECT_EQ(Eval(Fn("in", {Col(0, T::kInt64), Tuple(spread)}), b),
            (Rows{"1", "0", "1", "1", "1", "1", "1", "1"}));
  // Unsigned, up to the type's largest value: a span of 2^32 values is too wide for a bitmap.
  std::vector<plan::Expr> top;
  for (uint64_t v = 4294967295u; v > 4294967285u; --v) top.push_back(Lit(v));
  EXPECT_EQ(Eval(Fn("in", {Col(1, T::kUInt32), Tuple(top)}), b),
            (Rows{"0", "0", "1", "0", "0", "0", "0", "0"}));
  top.push_back(Lit(uint64_t{0}));
  EXPECT_EQ(Eval(Fn("in", {Col(1, T::kUInt32), Tuple(top)}), b),
            (Rows{"1", "0", "1", "0", "0", "0", "0", "0"}));
  std::vector<plan::Expr> small;  // 1..12 minus 7
  for (uint64_t v = 1; v <= 12; ++v) {
    if (v != 7) small.push_back(Lit(v));
  }
  EXPECT_EQ(Eval(Fn("in", {Col(1, T::kUInt32), Tuple(small)}), b),
            (Rows{"0", "1", "0", "0", "1", "0", "1", "1"}));
}

// The set of a long IN subquery as one column (plan::Expr::Kind::kSet): values convert to x's
// type as literals do, and operands keep their positions (the set's child is a placeholder).
TEST(InTest, SetsHeldAsColumns) {
  auto set_of = [](ColumnPtr values) {
    plan::Expr set;
    set.kind = plan::Expr::Kind::kSet;
    set.type = values->type();
    set.set = std::move(values);
    return set;
  };
  Block b = BlockOf({MakeColumn<uint8_t>(T::kUInt8, {1, 6, 255}),
                     MakeColumn<int16_t>(T::kInt16, {-1, 6, 0}), StringColumn({"a", "bb", ""})});
  // 300 has no UInt8 counterpart and matches nothing.
  const plan::Expr wide = set_of(MakeColumn<uint64_t>(T::kUInt64, {6, 300, 255}));
  EXPECT_EQ(Eval(Fn("in", {Col(0, T::kUInt8), wide}), b), (Rows{"0", "1", "1"}));
  EXPECT_EQ(Eval(Fn("notIn", {Col(0, T::kUInt8), wide}), b), (Rows{"1", "0", "0"}));
  const plan::Expr negative = set_of(MakeColumn<int64_t>(T::kInt64, {-1, 0, 70000}));
  EXPECT_EQ(Eval(Fn("in", {Col(1, T::kInt16), negative}), b), (Rows{"1", "0", "1"}));
  EXPECT_EQ(Eval(Fn("in", {Col(2, T::kString), set_of(StringColumn({"", "bb", "c"}))}), b),
            (Rows{"0", "1", "1"}));
  // A set of x's own integer type is taken as it is (small, close and spread sets).
  Block ints = BlockOf({MakeColumn<int32_t>(T::kInt32, {-7, 0, 5, 2000000000, 12})});
  const plan::Expr own_small = set_of(MakeColumn<int32_t>(T::kInt32, {5, -7}));
  EXPECT_EQ(Eval(Fn("in", {Col(0, T::kInt32), own_small}), ints), (Rows{"1", "0", "1", "0", "0"}));
  const plan::Expr own_close =
      set_of(MakeColumn<int32_t>(T::kInt32, {-7, -1, 1, 3, 5, 7, 9, 11, 13, 15}));
  EXPECT_EQ(Eval(Fn("in", {Col(0, T::kInt32), own_close}), ints), (Rows{"1", "0", "1", "0", "0"}));
  EXPECT_EQ(Eval(Fn("notIn", {Col(0, T::kInt32), own_close}), ints),
            (Rows{"0", "1", "0", "1", "1"}));
  const plan::Expr own_spread =
      set_of(MakeColumn<int32_t>(T::kInt32, {-7, -1, 1, 3, 5, 7, 9, 11, 13, 2000000000}));
  EXPECT_EQ(Eval(Fn("in", {Col(0, T::kInt32), own_spread}), ints),
            (Rows{"1", "0", "1", "1", "0"}));
  // A constant left side folds.
  EXPECT_EQ(EvalConstant(Fn("in", {Lit(uint64_t{300}), wide})), "1");
  EXPECT_EQ(EvalConstant(Fn("notIn", {Lit(uint64_t{7}), wide})), "1");
  // A set outside in / notIn, or an empty one, is a malformed plan.
  EXPECT_EQ(CodeOf(Expression::Compile(wide).status()), ErrorCode::kLogicalError);
  plan::Expr empty = set_of(MakeColumn<uint64_t>(T::kUInt64, {}));
  plan::Expr call = Call("in", T::kUInt8, {Col(0, T::kUInt8), empty});
  EXPECT_EQ(CodeOf(Expression::Compile(call).status()), ErrorCode::kLogicalError);
}

TEST(InTest, StringsAndDates) {
  uint16_t day;
  ASSERT_TRUE(ParseDate("2013-07-01", &day));
  Block b = BlockOf({StringColumn({"a", "bb", ""}),
                     MakeColumn<uint16_t>(T::kDate, {day, static_cast<uint16_t>(day + 1), 0})});
  EXPECT_EQ(Eval(Fn("in", {Col(0, T::kString), Tuple({Lit(std::string("bb")),
                                                      Lit(std::string(""))})}),
                 b),
            (Rows{"0", "1", "1"}));
  EXPECT_EQ(Eval(Fn("notIn", {Col(0, T::kString), Lit(std::string("a"))}), b),
            (Rows{"0", "1", "1"}));
  EXPECT_EQ(Eval(Fn("in", {Col(1, T::kDate), Tuple({Lit(std::string("2013-07-02")),
                                                    Lit(std::string("1970-01-01"))})}),
                 b),
            (Rows{"0", "1", "1"}));
  auto mixed = TypedCall("in", {Col(0, T::kString), Tuple({Lit(uint64_t{1})})});
  EXPECT_EQ(CodeOf(mixed.status()), ErrorCode::kIllegalTypeOfArgument);
  auto bad_date = TypedCall("in", {Col(1, T::kDate), Tuple({Lit(std::string("July"))})});
  EXPECT_EQ(CodeOf(bad_date.status()), ErrorCode::kCannotParseText);
  auto non_constant = TypedCall("in", {Col(0, T::kString), Tuple({Col(0, T::kString)})});
  EXPECT_EQ(CodeOf(non_constant.status()), ErrorCode::kIllegalColumn);
}

TEST(InTest, ConstantLeftSideFolds) {
  auto expr = Fn("in", {Lit(uint64_t{3}), Tuple({Lit(uint64_t{1}), Lit(uint64_t{3})})});
  auto compiled = Expression::Compile(expr);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  ASSERT_TRUE((*compiled)->constant().has_value());
  EXPECT_EQ(std::get<uint64_t>(*(*compiled)->constant()), 1u);
}

}  // namespace
}  // namespace granite::core
