#include "core/expression.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
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

// and(...) runs its heavy (String) conditions, and any condition once few rows are left, only on
// the rows the others kept (short-circuit): the answer must equal the row-by-row one for every
// selectivity and written order.
TEST(ExpressionTest, ShortCircuitAndMatchesRowByRow) {
  constexpr size_t kRows = 5000;
  auto ids = std::make_shared<Column>(T::kUInt32);
  auto urls = std::make_shared<Column>(T::kString);
  auto titles = std::make_shared<Column>(T::kString);
  auto flags = std::make_shared<Column>(T::kUInt8);
  for (size_t i = 0; i < kRows; ++i) {
    ids->Append(static_cast<uint32_t>(i % 100));
    urls->AppendString(i % 3 == 0 ? "http://google.com/" + std::to_string(i) : "http://x.org");
    titles->AppendString(i % 5 == 0 ? "News" : "Other " + std::to_string(i % 11));
    flags->Append(static_cast<uint8_t>(i % 4 == 0 ? 5 : 0));  // any non-zero is true
  }
  Block block = BlockOf({ids, urls, titles, flags});
  auto url_like = Fn("like", {Col(1, T::kString), Lit(std::string("%google%"))});
  auto title_is = Fn("equals", {Col(2, T::kString), Lit(std::string("News"))});
  auto expect = [&](const plan::Expr& filter, const std::function<bool(size_t)>& row) {
    auto compiled = Expression::Compile(filter);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    auto result = (*compiled)->Evaluate(block);
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_EQ((*result)->size(), kRows);
    const uint8_t* mask = (*result)->Data<uint8_t>();
    for (size_t i = 0; i < kRows; ++i) ASSERT_EQ(mask[i], row(i) ? 1 : 0) << "row " << i;
  };
  for (uint64_t below : {uint64_t{1}, uint64_t{10}, uint64_t{60}, uint64_t{100}}) {
    auto id_below = Fn("less", {Col(0, T::kUInt32), Lit(below)});
    // Written heavy-first: the light condition still runs first.
    expect(Fn("and", {url_like, id_below}),
           [&](size_t i) { return i % 3 == 0 && i % 100 < below; });
    expect(Fn("and", {id_below, url_like, title_is}),
           [&](size_t i) { return i % 100 < below && i % 3 == 0 && i % 5 == 0; });
    expect(Fn("and", {title_is, Col(3, T::kUInt8), id_below}),
           [&](size_t i) { return i % 5 == 0 && i % 4 == 0 && i % 100 < below; });
  }
  // Heavy conditions only: the first runs whole, the second on what it kept.
  expect(Fn("and", {url_like, title_is}), [](size_t i) { return i % 3 == 0 && i % 5 == 0; });
  // Nothing passes the light condition: the heavy ones are not needed.
  expect(Fn("and", {Fn("greater", {Col(0, T::kUInt32), Lit(uint64_t{1000})}), url_like}),
         [](size_t) { return false; });
  // Light conditions only, the cheap selective one written last: it runs first, and the
  // disjunction after it over the rows it kept (fewer than one in sixteen), reading two
  // columns compacted.
  auto ranges = Fn("or", {Fn("and", {Fn("greaterOrEquals", {Col(0, T::kUInt32), Lit(uint64_t{3})}),
                                    Fn("less", {Col(0, T::kUInt32), Lit(uint64_t{40})})}),
                          Fn("equals", {Col(3, T::kUInt8), Lit(uint64_t{5})})});
  for (uint64_t below : {uint64_t{2}, uint64_t{5}, uint64_t{60}}) {
    auto id_below = Fn("less", {Col(0, T::kUInt32), Lit(below)});
    expect(Fn("and", {ranges, id_below}), [&](size_t i) {
      return ((i % 100 >= 3 && i % 100 < 40) || i % 4 == 0) && i % 100 < below;
    });
    expect(Fn("and", {ranges, id_below, Col(3, T::kUInt8)}), [&](size_t i) {
      return ((i % 100 >= 3 && i % 100 < 40) || i % 4 == 0) && i % 100 < below && i % 4 == 0;
    });
  }
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
