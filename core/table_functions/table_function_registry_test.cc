#include "core/table_functions/table_function.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace granite::core {
namespace {

std::vector<uint64_t> Values(const TableFunction& f, const TableFunctionArgs& args, uint64_t begin,
                             uint64_t end) {
  ColumnPtr column = f.produce(args, 0, begin, end);
  std::vector<uint64_t> out;
  for (size_t i = 0; i < column->size(); ++i) {
    out.push_back(column->type() == TypeId::kUInt8 ? column->Get<uint8_t>(i)
                                                    : column->Get<uint64_t>(i));
  }
  return out;
}

absl::StatusOr<TableFunctionArgs> Bind(std::string_view name, std::vector<Value> args) {
  const TableFunction* f = FindTableFunction(name);
  if (f == nullptr) return absl::NotFoundError(std::string(name));
  return f->bind(f->name, args);
}

TEST(TableFunctionRegistryTest, ListsEveryFunctionOnceAndFindsAnyCase) {
  std::vector<std::string> names;
  for (const TableFunction* f : AllTableFunctions()) names.emplace_back(f->name);
  EXPECT_EQ(names, (std::vector<std::string>{"generateSeries", "generate_series", "numbers",
                                             "numbers_mt", "zeros", "zeros_mt"}));
  ASSERT_NE(FindTableFunction("NUMBERS_MT"), nullptr);
  EXPECT_EQ(FindTableFunction("NUMBERS_MT")->name, "numbers_mt");
  EXPECT_FALSE(FindTableFunction("NUMBERS_MT")->ordered);
  EXPECT_TRUE(FindTableFunction("numbers")->ordered);
  EXPECT_EQ(FindTableFunction("nope"), nullptr);
}

TEST(TableFunctionRegistryTest, NumbersTakesOffsetCountAndStep) {
  const TableFunction& f = *FindTableFunction("numbers");
  ASSERT_EQ(f.columns.size(), 1u);
  EXPECT_EQ(f.columns[0].name, "number");
  EXPECT_EQ(f.columns[0].type, TypeId::kUInt64);
  auto one = Bind("numbers", {uint64_t{5}});
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(f.rows(*one), 5u);
  EXPECT_EQ(Values(f, *one, 0, 5), (std::vector<uint64_t>{0, 1, 2, 3, 4}));
  // The second argument is a count, not an end: numbers(10, 3) is 10, 11, 12.
  auto two = Bind("numbers", {uint64_t{10}, uint64_t{3}});
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(Values(f, *two, 0, f.rows(*two)), (std::vector<uint64_t>{10, 11, 12}));
  // [N, N + M) with step S: ceil(M / S) rows.
  auto three = Bind("numbers", {uint64_t{1}, uint64_t{10}, uint64_t{3}});
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(Values(f, *three, 0, f.rows(*three)), (std::vector<uint64_t>{1, 4, 7, 10}));
  EXPECT_EQ(Values(f, *three, 2, 4), (std::vector<uint64_t>{7, 10}));
  auto range = f.columns[0].range(*three);
  ASSERT_TRUE(range.has_value());
  EXPECT_EQ(range->min, 1u);
  EXPECT_EQ(range->max, 10u);
  auto float_count = Bind("numbers", {1e3});
  ASSERT_TRUE(float_count.ok());
  EXPECT_EQ(f.rows(*float_count), 1000u);
}

TEST(TableFunctionRegistryTest, ErrorsNameTheFunctionAndArgument) {
  auto none = Bind("numbers", {});
  EXPECT_EQ(CodeOf(none.status()), ErrorCode::kNumberOfArgumentsDoesntMatch);
  EXPECT_NE(none.status().message().find("'numbers'"), std::string_view::npos);
  EXPECT_EQ(CodeOf(Bind("numbers", {uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{4}}).status()),
            ErrorCode::kNumberOfArgumentsDoesntMatch);
  auto text = Bind("numbers", {uint64_t{1}, std::string("x")});
  EXPECT_EQ(CodeOf(text.status()), ErrorCode::kIllegalTypeOfArgument);
  EXPECT_NE(text.status().message().find("argument 2"), std::string_view::npos) << text.status();
  auto negative = Bind("zeros", {int64_t{-1}});
  EXPECT_EQ(CodeOf(negative.status()), ErrorCode::kIllegalTypeOfArgument);
  EXPECT_NE(negative.status().message().find("-1 of argument 1 of table function 'zeros'"),
            std::string_view::npos)
      << negative.status();
  EXPECT_EQ(CodeOf(Bind("numbers", {0.5}).status()), ErrorCode::kIllegalTypeOfArgument);
  auto step = Bind("generate_series", {uint64_t{1}, uint64_t{2}, uint64_t{0}});
  EXPECT_EQ(CodeOf(step.status()), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(Bind("generate_series", {uint64_t{1}}).status()),
            ErrorCode::kNumberOfArgumentsDoesntMatch);
}

TEST(TableFunctionRegistryTest, ZerosAndGenerateSeries) {
  const TableFunction& zeros = *FindTableFunction("zeros_mt");
  EXPECT_EQ(zeros.columns[0].name, "zero");
  EXPECT_EQ(zeros.columns[0].type, TypeId::kUInt8);
  auto z = Bind("zeros_mt", {uint64_t{3}});
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(Values(zeros, *z, 0, 3), (std::vector<uint64_t>{0, 0, 0}));
  EXPECT_FALSE(zeros.columns[0].distinct);

  const TableFunction& series = *FindTableFunction("generate_series");
  EXPECT_EQ(series.columns[0].name, "generate_series");
  auto inclusive = Bind("generate_series", {uint64_t{2}, uint64_t{5}});
  ASSERT_TRUE(inclusive.ok());
  EXPECT_EQ(Values(series, *inclusive, 0, series.rows(*inclusive)),
            (std::vector<uint64_t>{2, 3, 4, 5}));
  auto stepped = Bind("generate_series", {uint64_t{0}, uint64_t{10}, uint64_t{4}});
  ASSERT_TRUE(stepped.ok());
  EXPECT_EQ(Values(series, *stepped, 0, series.rows(*stepped)), (std::vector<uint64_t>{0, 4, 8}));
  auto empty = Bind("generate_series", {uint64_t{5}, uint64_t{2}});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(series.rows(*empty), 0u);
  EXPECT_FALSE(series.columns[0].range(*empty).has_value());
  // The whole UInt64 domain saturates at 2^64 - 1 rows instead of wrapping to 0.
  auto all = Bind("generate_series", {uint64_t{0}, ~uint64_t{0}});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(series.rows(*all), ~uint64_t{0});
}

TEST(TableFunctionRegistryTest, SlicesTileTheRowsInWorkerOrder) {
  constexpr uint64_t kMax = ~uint64_t{0};
  uint64_t next = 0;
  for (uint64_t i = 0; i < 3; ++i) {
    RowSlice slice = SliceOf(kMax, i, 3);
    EXPECT_EQ(slice.begin, next);
    EXPECT_GE(slice.end, slice.begin);
    next = slice.end;
  }
  EXPECT_EQ(next, kMax);
  EXPECT_EQ(SliceOf(2, 0, 3).end, 0u);  // more workers than rows: some slices are empty
}

}  // namespace
}  // namespace granite::core
