// Lambdas in compiled expressions: the body runs once over the flattened elements of a batch,
// outer columns replicated per element; nested lambdas; folding; array size checks.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/expression.h"
#include "core/error.h"
#include "core/function_error_codes.h"
#include "core/functions/expr_builder.h"
#include "core/functions/function_registry.h"
#include "core/functions/test_columns.h"

namespace granite::core {
namespace {

using T = TypeId;

// Returns an Array(element) column with one row per entry of `rows`.
ColumnPtr IntArrays(T element, std::initializer_list<std::initializer_list<int32_t>> rows) {
  auto column = std::make_shared<Column>(MakeArray(element));
  for (const auto& row : rows) {
    for (int32_t v : row) column->MutableNested().Append<int32_t>(v);
    column->AppendArrayEnd();
  }
  return column;
}

// lambda($slot, body) with the parameter typed `type`.
plan::Expr Lambda(uint32_t slot, T type, plan::Expr body) {
  const T body_type = body.type;
  return Call("lambda", body_type, {LambdaParameter(slot, type), std::move(body)});
}

TEST(ExpressionLambdaTest, MapsWithAnOuterColumn) {
  // arrayMap(x -> x + c, a) over three rows, c a column.
  Block block = BlockOf({IntArrays(T::kInt32, {{1, 2}, {}, {5}}),
                         MakeColumn<int32_t>(T::kInt32, {10, 20, 30})});
  plan::Expr body = Fn("plus", {LambdaParameter(0, T::kInt32), Col(1, T::kInt32)});
  plan::Expr map = Fn("arrayMap", {Lambda(0, T::kInt32, body), Col(0, MakeArray(T::kInt32))});
  EXPECT_EQ(map.type, MakeArray(T::kInt64));
  EXPECT_EQ(Eval(map, block), (Rows{"[11,12]", "[]", "[35]"}));
}

TEST(ExpressionLambdaTest, NestedLambdaReadsTheOuterParameter) {
  // arrayMap(x -> arrayCount(y -> y > x, a), a): per element, how many of its row's are larger.
  Block block = BlockOf({IntArrays(T::kInt32, {{3, 1, 2}, {7}})});
  const T array = MakeArray(T::kInt32);
  plan::Expr inner = Fn("greater", {LambdaParameter(1, T::kInt32), LambdaParameter(0, T::kInt32)});
  plan::Expr count = Fn("arrayCount", {Lambda(1, T::kInt32, inner), Col(0, array)});
  plan::Expr map = Fn("arrayMap", {Lambda(0, T::kInt32, count), Col(0, array)});
  EXPECT_EQ(Eval(map, block), (Rows{"[0,2,1]", "[0]"}));
}

TEST(ExpressionLambdaTest, ConstantArraysFoldAndBroadcastWithColumns) {
  // arrayFilter(x -> x > 1, [1, 2, 3]) folds at compile time.
  plan::Expr array = Fn("array", {Lit(uint64_t{1}), Lit(uint64_t{2}), Lit(uint64_t{3})});
  plan::Expr filter = Fn("arrayFilter", {Lambda(0, T::kUInt8, Fn("greater", {LambdaParameter(0, T::kUInt8),
                                                                             Lit(uint64_t{1})})),
                                         array});
  auto compiled = Expression::Compile(filter);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_TRUE((*compiled)->constant().has_value());
  EXPECT_EQ(EvalConstant(filter), "[2,3]");
  // arrayMap(x -> x * c, [1, 2, 3]): the constant array meets a column of the batch.
  Block block = BlockOf({MakeColumn<uint8_t>(T::kUInt8, {2, 3})});
  plan::Expr map = Fn("arrayMap", {Lambda(0, T::kUInt8, Fn("multiply", {LambdaParameter(0, T::kUInt8),
                                                                        Col(0, T::kUInt8)})),
                                   array});
  EXPECT_EQ(Eval(map, block), (Rows{"[2,4,6]", "[3,6,9]"}));
}

TEST(ExpressionLambdaTest, ShortCircuitAndCompactsTheCapturedColumns) {
  // and(k = 0, arrayExists(x -> x > c, a)) over 32 rows of which two have k = 0: the array
  // condition runs on those two rows only, with c compacted like a.
  auto k = std::make_shared<Column>(T::kUInt32);
  auto c = std::make_shared<Column>(T::kInt32);
  auto a = std::make_shared<Column>(MakeArray(T::kInt32));
  for (int row = 0; row < 32; ++row) {
    k->Append<uint32_t>(row % 16 == 3 ? 0 : 1);
    c->Append<int32_t>(row);
    a->MutableNested().Append<int32_t>(row == 3 ? 5 : 100);
    a->AppendArrayEnd();
  }
  const T array = MakeArray(T::kInt32);
  plan::Expr exists = Fn("arrayExists", {Lambda(0, T::kInt32, Fn("greater", {LambdaParameter(0, T::kInt32),
                                                                             Col(1, T::kInt32)})),
                                         Col(2, array)});
  plan::Expr filter = Fn("and", {Fn("equals", {Col(0, T::kUInt32), Lit(uint64_t{0})}), exists});
  Rows rows = Eval(filter, BlockOf({k, c, a}));
  ASSERT_EQ(rows.size(), 32u);
  EXPECT_EQ(rows[3], "1");   // 5 > 3
  EXPECT_EQ(rows[19], "1");  // 100 > 19
  EXPECT_EQ(std::count(rows.begin(), rows.end(), "1"), 2);
}

TEST(ExpressionLambdaTest, ArraysOfDifferentSizesAreRefused) {
  Block block = BlockOf({IntArrays(T::kInt32, {{1}, {1, 2}}), IntArrays(T::kInt32, {{1}, {1}})});
  const T array = MakeArray(T::kInt32);
  plan::Expr body = Fn("plus", {LambdaParameter(0, T::kInt32), LambdaParameter(1, T::kInt32)});
  plan::Expr lambda = Call("lambda", body.type,
                           {LambdaParameter(0, T::kInt32), LambdaParameter(1, T::kInt32), body});
  plan::Expr map = Fn("arrayMap", {lambda, Col(0, array), Col(1, array)});
  absl::Status status = EvalStatus(map, block);
  EXPECT_EQ(CodeOf(status), kSizesOfArraysDontMatch) << status;
}

TEST(ExpressionLambdaTest, OnlyHigherOrderFunctionsTakeLambdas) {
  plan::Expr lambda = Lambda(0, T::kUInt8, LambdaParameter(0, T::kUInt8));
  auto call = TypedCall("length", {lambda});
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(CodeOf(call.status()), ErrorCode::kIllegalTypeOfArgument);
  EXPECT_EQ(CodeOf(CheckTakesLambda("plus")), ErrorCode::kIllegalTypeOfArgument);
  EXPECT_EQ(CodeOf(CheckTakesLambda("noSuchFunction")), ErrorCode::kUnknownFunction);
  EXPECT_TRUE(CheckTakesLambda("arrayMap").ok());
}

}  // namespace
}  // namespace granite::core
