// ShareArithmetic (shared_arguments.h): the pricing summary's repeated product is shared once,
// the largest repeated call first; plain columns, calls seen once, calls without a column and
// lambda bodies are left alone; the rewritten arguments read the shared calls' columns.
#include "core/shared_arguments.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/decimal.h"
#include "core/functions/test_columns.h"

namespace granite::core {
namespace {

const TypeId kD15_2 = MakeDecimal(15, 2);

TEST(SharedArgumentsTest, SharesThePricingSummarysProductOnce) {
  const plan::Expr price = Col(1, kD15_2), discount = Col(2, kD15_2), tax = Col(3, kD15_2);
  const plan::Expr one = Lit(uint64_t{1});
  const plan::Expr disc_price = Fn("multiply", {price, Fn("minus", {one, discount})});
  const plan::Expr charge = Fn("multiply", {disc_price, Fn("plus", {one, tax})});
  std::vector<std::vector<plan::Expr>> args = {
      {Col(0, kD15_2)}, {price}, {disc_price}, {charge}, {discount}, {}};
  SharedArguments shared = ShareArithmetic(&args);
  EXPECT_EQ(shared.base, 4u);
  ASSERT_EQ(shared.calls.size(), 1u);
  EXPECT_EQ(shared.calls[0], disc_price);
  const plan::Expr column = Col(4, disc_price.type);
  EXPECT_EQ(args[2][0], column);
  EXPECT_EQ(args[3][0], Fn("multiply", {column, Fn("plus", {one, tax})}));
  EXPECT_EQ(args[1][0], price);
  EXPECT_EQ(args[4][0], discount);
}

TEST(SharedArgumentsTest, LargestFirstAndOnlyWhatRepeats) {
  const TypeId i64 = TypeId::kInt64;
  const plan::Expr a = Col(0, i64), b = Col(5, i64);
  const plan::Expr product = Fn("multiply", {a, b});
  const plan::Expr sum = Fn("plus", {product, Lit(int64_t{3})});
  std::vector<std::vector<plan::Expr>> args = {{sum}, {sum}, {product}, {a}, {a}};
  SharedArguments shared = ShareArithmetic(&args);
  EXPECT_EQ(shared.base, 6u);
  ASSERT_EQ(shared.calls.size(), 1u);  // the product then occurs once outside the shared sum
  EXPECT_EQ(shared.calls[0], sum);
  EXPECT_EQ(args[0][0], Col(6, sum.type));
  EXPECT_EQ(args[2][0], product);

  // A call seen once, a constant call, a function that is not arithmetic: nothing shared.
  const plan::Expr constant = Fn("plus", {Lit(int64_t{1}), Lit(int64_t{2})});
  const plan::Expr other = Fn("abs", {a});
  std::vector<std::vector<plan::Expr>> none = {{product}, {constant}, {constant}, {other}, {other}};
  const std::vector<std::vector<plan::Expr>> before = none;
  EXPECT_TRUE(ShareArithmetic(&none).calls.empty());
  EXPECT_EQ(none, before);
  std::vector<std::vector<plan::Expr>> empty;
  EXPECT_TRUE(ShareArithmetic(&empty).calls.empty());
}

}  // namespace
}  // namespace granite::core
