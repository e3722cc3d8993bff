#include "core/expression.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "core/error.h"
#include "core/functions/test_columns.h"
#include "core/wire/plan_codec.h"
#include "granite/worker/v1/plan.pb.h"

namespace granite::core {
namespace {

using T = TypeId;

TEST(ExpressionTest, ColumnReferenceReturnsTheInputColumn) {
  ColumnPtr column = MakeColumn<uint32_t>(T::kUInt32, {1, 2});
  auto expr = Expression::Compile(Col(0, T::kUInt32));
  ASSERT_TRUE(expr.ok());
  EXPECT_EQ((*expr)->type(), T::kUInt32);
  EXPECT_FALSE((*expr)->constant().has_value());
  auto result = (*expr)->Evaluate(BlockOf({column}));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->get(), column.get());
}

TEST(ExpressionTest, ConstantsFoldAndBroadcast) {
  auto expr = Expression::Compile(
      Fn("plus", {Lit(uint64_t{1}), Fn("multiply", {Lit(uint64_t{2}), Lit(uint64_t{3})})}));
  ASSERT_TRUE(expr.ok()) << expr.status();
  ASSERT_TRUE((*expr)->constant().has_value());
  EXPECT_EQ(std::get<uint64_t>(*(*expr)->constant()), 7u);
  Block three;
  three.rows_without_columns = 3;
  auto result = (*expr)->Evaluate(three);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(Texts(**result), (Rows{"7", "7", "7"}));
  Block none;
  result = (*expr)->Evaluate(none);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)->size(), 0u);
  EXPECT_EQ(EvalConstant(Lit(std::string("text"))), "text");
}

TEST(ExpressionTest, LiteralsConvertToTheirDeclaredType) {
  EXPECT_EQ(EvalConstant(Lit(std::string("2013-07-01"), T::kDate)), "2013-07-01");
  EXPECT_EQ(EvalConstant(Lit(uint64_t{7}, T::kInt64)), "7");
  auto out_of_range = Expression::Compile(Lit(uint64_t{300}, T::kUInt8));
  EXPECT_EQ(CodeOf(out_of_range.status()), ErrorCode::kValueIsOutOfRangeOfDataType);
}

TEST(ExpressionTest, MalformedPlansAreRefused) {
  // A node without a kind or with an unknown type id cannot be a typed plan::Expr: the wire codec
  // refuses it before anything is compiled.
  worker::v1::Expr empty;
  EXPECT_EQ(CodeOf(wire::FromProto(empty).status()), ErrorCode::kIncorrectData);
  worker::v1::Expr bad_type;
  wire::ToProto(Col(0, T::kUInt8), &bad_type);
  bad_type.set_type(99);
  EXPECT_EQ(CodeOf(wire::FromProto(bad_type).status()), ErrorCode::kIncorrectData);
  // The plan says UInt8 but plus(UInt8, UInt8) is UInt16.
  auto mismatch = Expression::Compile(
      Call("plus", T::kUInt8, {Col(0, T::kUInt8), Lit(uint64_t{1})}));
  EXPECT_EQ(CodeOf(mismatch.status()), ErrorCode::kLogicalError);
  auto unknown = Expression::Compile(Call("nope", T::kUInt8, {Col(0, T::kUInt8)}));
  EXPECT_EQ(CodeOf(unknown.status()), ErrorCode::kUnknownFunction);
}

TEST(ExpressionTest, ColumnChecksAtEvaluation) {
  auto expr = Expression::Compile(Fn("plus", {Col(1, T::kUInt8), Lit(uint64_t{1})}));
  ASSERT_TRUE(expr.ok());
  Block one_column = BlockOf({MakeColumn<uint8_t>(T::kUInt8, {1})});
  EXPECT_EQ(CodeOf((*expr)->Evaluate(one_column).status()), ErrorCode::kLogicalError);
  Block wrong_type = BlockOf({MakeColumn<uint8_t>(T::kUInt8, {1}), MakeColumn<uint16_t>(T::kUInt16, {1})});
  EXPECT_EQ(CodeOf((*expr)->Evaluate(wrong_type).status()), ErrorCode::kLogicalError);
}

TEST(ExpressionTest, ClickBenchStyleFilter) {
  // CounterID = 62 AND EventDate >= '2013-07-01' AND URL LIKE '%google%' AND IsRefresh = 0
  Block b = BlockOf({MakeColumn<uint32_t>(T::kUInt32, {62, 62, 63, 62}),
                     MakeColumn<uint16_t>(T::kDate, {15887, 15886, 15887, 15900}),
                     StringColumn({"http://google.com", "http://google.com", "google", "yandex"}),
                     MakeColumn<uint8_t>(T::kUInt8, {0, 0, 0, 0})});
  auto filter = Fn("and", {Fn("equals", {Col(0, T::kUInt32), Lit(uint64_t{62})}),
                           Fn("greaterOrEquals", {Col(1, T::kDate), Lit(std::string("2013-07-01"))}),
                           Fn("like", {Col(2, T::kString), Lit(std::string("%google%"))}),
                           Fn("equals", {Col(3, T::kUInt8), Lit(uint64_t{0})})});
  EXPECT_EQ(Eval(filter, b), (Rows{"1", "0", "0", "0"}));
}

TEST(ExpressionTest, ConcurrentEvaluation) {
  constexpr size_t kRows = 20000;
  auto column = std::make_shared<Column>(T::kUInt64);
  auto strings = std::make_shared<Column>(T::kString);
  for (size_t i = 0; i < kRows; ++i) {
    column->Append(uint64_t{i});
    strings->AppendString(i % 7 == 0 ? "needle" + std::to_string(i) : "hay");
  }
  Block block = BlockOf({column, strings});
  auto expr = Expression::Compile(Fn(
      "plus", {Fn("modulo", {Col(0, T::kUInt64), Lit(uint64_t{1000})}),
               Fn("if", {Fn("like", {Col(1, T::kString), Lit(std::string("%needle%"))}),
                         Lit(uint64_t{100000}), Lit(uint64_t{0})})}));
  ASSERT_TRUE(expr.ok()) << expr.status();
  const Expression& shared = **expr;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int round = 0; round < 20; ++round) {
        auto result = shared.Evaluate(block);
        if (!result.ok() || (*result)->size() != kRows) {
          ++failures;
          continue;
        }
        const uint64_t* values = (*result)->Data<uint64_t>();
        for (size_t i = 0; i < kRows; ++i) {
          if (values[i] != i % 1000 + (i % 7 == 0 ? 100000 : 0)) {
            ++failures;
            break;
          }
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(shared.type(), T::kUInt64);
}

}  // namespace
}  // namespace granite::core
