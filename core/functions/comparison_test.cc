#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/date_time.h"
#include "core/error.h"
#include "core/functions/test_columns.h"

namespace granite::core {
namespace {

using T = TypeId;
constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();

TEST(ComparisonTest, SignedAgainstUnsigned) {
  Block b = BlockOf({MakeColumn<int8_t>(T::kInt8, {-1, 1, 2}),
                     MakeColumn<uint64_t>(T::kUInt64, {1, 1, kU64Max}),
                     MakeColumn<int64_t>(T::kInt64, {-1, 1, 9})});
  EXPECT_EQ(Eval(Fn("less", {Col(0, T::kInt8), Col(1, T::kUInt64)}), b), (Rows{"1", "0", "1"}));
  EXPECT_EQ(Eval(Fn("equals", {Col(0, T::kInt8), Col(1, T::kUInt64)}), b), (Rows{"0", "1", "0"}));
  EXPECT_EQ(Eval(Fn("greater", {Col(1, T::kUInt64), Col(2, T::kInt64)}), b),
            (Rows{"1", "0", "1"}));
  EXPECT_EQ(Eval(Fn("lessOrEquals", {Col(2, T::kInt64), Col(1, T::kUInt64)}), b),
            (Rows{"1", "1", "1"}));
  // -1 < 1::UInt64 with constants on either side.
  EXPECT_EQ(EvalConstant(Fn("less", {Lit(int64_t{-1}), Lit(uint64_t{1})})), "1");
  EXPECT_EQ(Eval(Fn("less", {Col(0, T::kInt8), Lit(uint64_t{kU64Max})}), b),
            (Rows{"1", "1", "1"}));
  EXPECT_EQ(Eval(Fn("greater", {Lit(int64_t{-1}), Col(1, T::kUInt64)}), b), (Rows{"0", "0", "0"}));
  EXPECT_EQ(Eval(Fn("notEquals", {Col(1, T::kUInt64), Lit(int64_t{-1})}), b),
            (Rows{"1", "1", "1"}));
}

TEST(ComparisonTest, ConstantsOutsideTheColumnType) {
  Block b = BlockOf({MakeColumn<uint8_t>(T::kUInt8, {0, 200, 255}),
                     MakeColumn<int32_t>(T::kInt32, {2, 3, -3})});
  EXPECT_EQ(Eval(Fn("less", {Col(0, T::kUInt8), Lit(uint64_t{300})}), b), (Rows{"1", "1", "1"}));
  EXPECT_EQ(Eval(Fn("equals", {Col(0, T::kUInt8), Lit(uint64_t{300})}), b), (Rows{"0", "0", "0"}));
  EXPECT_EQ(Eval(Fn("greater", {Col(0, T::kUInt8), Lit(int64_t{-1})}), b), (Rows{"1", "1", "1"}));
  EXPECT_EQ(Eval(Fn("equals", {Col(0, T::kUInt8), Lit(uint64_t{200})}), b), (Rows{"0", "1", "0"}));
  EXPECT_EQ(Eval(Fn("less", {Col(1, T::kInt32), Lit(2.5)}), b), (Rows{"1", "0", "1"}));
  EXPECT_EQ(Eval(Fn("equals", {Col(1, T::kInt32), Lit(3.0)}), b), (Rows{"0", "1", "0"}));
  EXPECT_EQ(Eval(Fn("greaterOrEquals", {Lit(uint64_t{3}), Col(1, T::kInt32)}), b),
            (Rows{"1", "1", "1"}));
}

TEST(ComparisonTest, Floats) {
  const double nan = std::nan("");
  Block b = BlockOf({MakeColumn<double>(T::kFloat64, {1.5, nan, -0.0}),
                     MakeColumn<float>(T::kFloat32, {1.5f, 2.0f, 0.0f})});
  EXPECT_EQ(Eval(Fn("equals", {Col(0, T::kFloat64), Col(1, T::kFloat32)}), b),
            (Rows{"1", "0", "1"}));
  EXPECT_EQ(Eval(Fn("notEquals", {Col(0, T::kFloat64), Col(1, T::kFloat32)}), b),
            (Rows{"0", "1", "0"}));
  EXPECT_EQ(Eval(Fn("lessOrEquals", {Col(0, T::kFloat64), Lit(uint64_t{100})}), b),
            (Rows{"1", "0", "1"}));
  EXPECT_EQ(Eval(Fn("greaterOrEquals", {Col(0, T::kFloat64), Lit(uint64_t{0})}), b),
            (Rows{"1", "0", "1"}));
}

TEST(ComparisonTest, Strings) {
  Block b = BlockOf({StringColumn({"", "abc", "abd", "ab"}), StringColumn({"", "abc", "abc", "b"})});
  EXPECT_EQ(Eval(Fn("equals", {Col(0, T::kString), Col(1, T::kString)}), b),
            (Rows{"1", "1", "0", "0"}));
  EXPECT_EQ(Eval(Fn("less", {Col(0, T::kString), Col(1, T::kString)}), b),
            (Rows{"0", "0", "0", "1"}));
  EXPECT_EQ(Eval(Fn("notEquals", {Col(0, T::kString), Lit(std::string(""))}), b),
            (Rows{"0", "1", "1", "1"}));
  EXPECT_EQ(Eval(Fn("equals", {Lit(std::string("abc")), Col(0, T::kString)}), b),
            (Rows{"0", "1", "0", "0"}));
  EXPECT_EQ(Eval(Fn("greater", {Col(0, T::kString), Lit(std::string("abc"))}), b),
            (Rows{"0", "0", "1", "0"}));
  EXPECT_EQ(Eval(Fn("greater", {Lit(std::string("abc")), Col(0, T::kString)}), b),
            (Rows{"1", "0", "0", "1"}));
  // Bytes compare unsigned: "\xff" sorts after "a".
  Block bytes = BlockOf({StringColumn({"\xff", "a"})});
  EXPECT_EQ(Eval(Fn("greater", {Col(0, T::kString), Lit(std::string("a"))}), bytes),
            (Rows{"1", "0"}));
}

// Constants of 1 to 8 bytes compare by a compare of known size; longer ones by memcmp. Rows
// that share a prefix with the constant, are longer or shorter, or hold a zero byte differ.
TEST(ComparisonTest, StringEqualsConstantsOfEachSize) {
  const std::string full = std::string("abcdefgh\0ij", 11);
  for (size_t n = 1; n <= full.size(); ++n) {
    const std::string constant = full.substr(0, n);
    std::string changed = constant;
    changed.back() = 'z';
    Block b = BlockOf({StringColumn({constant, constant.substr(0, n - 1), constant + "x", changed,
                                     "", constant})});
    EXPECT_EQ(Eval(Fn("equals", {Col(0, T::kString), Lit(constant)}), b),
              (Rows{"1", "0", "0", "0", "0", "1"}))
        << n;
    EXPECT_EQ(Eval(Fn("notEquals", {Lit(constant), Col(0, T::kString)}), b),
              (Rows{"0", "1", "1", "1", "1", "0"}))
        << n;
  }
}

TEST(ComparisonTest, DatesAgainstStringsAndEachOther) {
  uint16_t d1, d2;
  ASSERT_TRUE(ParseDate("2013-06-30", &d1));
  ASSERT_TRUE(ParseDate("2013-07-01", &d2));
  uint32_t t1, t2;
  ASSERT_TRUE(ParseDateTime("2013-07-01 00:00:00", &t1));
  ASSERT_TRUE(ParseDateTime("2013-07-01 10:00:00", &t2));
  Block b = BlockOf({MakeColumn<uint16_t>(T::kDate, {d1, d2}),
                     MakeColumn<uint32_t>(T::kDateTime, {t1, t2}),
                     StringColumn({"2013-06-30", "2013-07-02"})});
  EXPECT_EQ(Eval(Fn("greaterOrEquals", {Col(0, T::kDate), Lit(std::string("2013-07-01"))}), b),
            (Rows{"0", "1"}));
  EXPECT_EQ(Eval(Fn("less", {Lit(std::string("2013-06-30")), Col(0, T::kDate)}), b),
            (Rows{"0", "1"}));
  EXPECT_EQ(Eval(Fn("equals", {Col(1, T::kDateTime), Lit(std::string("2013-07-01 10:00:00"))}), b),
            (Rows{"0", "1"}));
  EXPECT_EQ(Eval(Fn("equals", {Col(0, T::kDate), Col(1, T::kDateTime)}), b), (Rows{"0", "0"}));
  EXPECT_EQ(Eval(Fn("lessOrEquals", {Col(0, T::kDate), Col(1, T::kDateTime)}), b),
            (Rows{"1", "1"}));
  EXPECT_EQ(Eval(Fn("equals", {Col(1, T::kDateTime), Lit(std::string("2013-07-01"))}), b),
            (Rows{"1", "0"}));
  EXPECT_EQ(Eval(Fn("equals", {Col(0, T::kDate), Col(2, T::kString)}), b), (Rows{"1", "0"}));
  // Dates compare with numbers as day numbers.
  EXPECT_EQ(Eval(Fn("equals", {Col(0, T::kDate), Lit(uint64_t{d2})}), b), (Rows{"0", "1"}));
  // A malformed date string is an error naming the text.
  auto bad = Expression::Compile(Call("equals", T::kUInt8,
                                        {Col(0, T::kDate), Lit(std::string("2013-13-01"))}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(CodeOf(bad.status()), ErrorCode::kCannotParseText);
  Block bad_text = BlockOf({MakeColumn<uint16_t>(T::kDate, {d1}), StringColumn({"soon"})});
  absl::Status column_error = EvalStatus(Fn("equals", {Col(0, T::kDate), Col(1, T::kString)}),
                                         bad_text);
  EXPECT_EQ(CodeOf(column_error), ErrorCode::kCannotParseText);
  EXPECT_NE(column_error.message().find("soon"), std::string_view::npos);
}

TEST(ComparisonTest, NumbersAgainstStringConstants) {
  Block b = BlockOf({MakeColumn<uint32_t>(T::kUInt32, {5, 6})});
  EXPECT_EQ(Eval(Fn("equals", {Col(0, T::kUInt32), Lit(std::string("5"))}), b), (Rows{"1", "0"}));
  auto bad = TypedCall("equals", {Col(0, T::kUInt32), Lit(std::string("five"))});
  EXPECT_EQ(CodeOf(bad.status()), ErrorCode::kCannotParseText);
}

TEST(ComparisonTest, EmptyBlock) {
  Block b = BlockOf({MakeColumn<uint32_t>(T::kUInt32, {}), StringColumn({})});
  EXPECT_EQ(Eval(Fn("equals", {Col(0, T::kUInt32), Lit(uint64_t{5})}), b), Rows{});
  EXPECT_EQ(Eval(Fn("less", {Col(1, T::kString), Lit(std::string("x"))}), b), Rows{});
}

}  // namespace
}  // namespace granite::core
