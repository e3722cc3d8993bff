#include <gtest/gtest.h>

#include "core/error.h"
#include "core/functions/test_columns.h"

namespace granite::core {
namespace {

using T = TypeId;

plan::Expr S(std::string s) { return Lit(std::move(s)); }

TEST(StringFunctionsTest, LengthEmptyCase) {
  Block b = BlockOf({StringColumn({"", "abc", "Héllo World"})});
  EXPECT_EQ(Eval(Fn("length", {Col(0, T::kString)}), b), (Rows{"0", "3", "12"}));
  EXPECT_EQ(Eval(Fn("empty", {Col(0, T::kString)}), b), (Rows{"1", "0", "0"}));
  EXPECT_EQ(Eval(Fn("notEmpty", {Col(0, T::kString)}), b), (Rows{"0", "1", "1"}));
  EXPECT_EQ(Eval(Fn("upper", {Col(0, T::kString)}), b), (Rows{"", "ABC", "HéLLO WORLD"}));
  EXPECT_EQ(Eval(Fn("lower", {Col(0, T::kString)}), b), (Rows{"", "abc", "héllo world"}));
  EXPECT_EQ(Eval(Fn("LCASE", {S("[AZ@]")}), b), (Rows{"[az@]", "[az@]", "[az@]"}));
}

TEST(StringFunctionsTest, Substring) {
  Block b = BlockOf({StringColumn({"abcdef", "ab", ""}), MakeColumn<int8_t>(T::kInt8, {2, -1, 1})});
  auto sub = [&](std::vector<plan::Expr> args) {
    args.insert(args.begin(), Col(0, T::kString));
    return Eval(Fn("substring", std::move(args)), b);
  };
  EXPECT_EQ(sub({Lit(uint64_t{2})}), (Rows{"bcdef", "b", ""}));
  EXPECT_EQ(sub({Lit(uint64_t{2}), Lit(uint64_t{3})}), (Rows{"bcd", "b", ""}));
  EXPECT_EQ(sub({Lit(uint64_t{0})}), (Rows{"", "", ""}));
  EXPECT_EQ(sub({Lit(uint64_t{7})}), (Rows{"", "", ""}));
  EXPECT_EQ(sub({Lit(int64_t{-2})}), (Rows{"ef", "ab", ""}));
  EXPECT_EQ(sub({Lit(int64_t{-8}), Lit(uint64_t{3})}), (Rows{"a", "", ""}));
  EXPECT_EQ(sub({Lit(uint64_t{2}), Lit(int64_t{-1})}), (Rows{"bcde", "", ""}));
  EXPECT_EQ(sub({Col(1, T::kInt8)}), (Rows{"bcdef", "b", ""}));
  EXPECT_EQ(sub({Lit(uint64_t{1}), Col(1, T::kInt8)}), (Rows{"ab", "a", ""}));
  EXPECT_EQ(Eval(Fn("substr", {S("hello"), Lit(uint64_t{2}), Lit(uint64_t{3})}), b),
            (Rows{"ell", "ell", "ell"}));
  auto bad = TypedCall("substring", {Col(0, T::kString), S("1")});
  EXPECT_EQ(CodeOf(bad.status()), ErrorCode::kIllegalTypeOfArgument);
}

TEST(StringFunctionsTest, ConcatPositionReplace) {
  Block b = BlockOf({StringColumn({"ab", "", "xyz"}), MakeColumn<uint16_t>(T::kUInt16, {1, 22, 333})});
  EXPECT_EQ(Eval(Fn("concat", {Col(0, T::kString), S("-"), Col(1, T::kUInt16)}), b),
            (Rows{"ab-1", "-22", "xyz-333"}));
  EXPECT_EQ(Eval(Fn("position", {Col(0, T::kString), S("b")}), b), (Rows{"2", "0", "0"}));
  EXPECT_EQ(Eval(Fn("position", {Col(0, T::kString), S("")}), b), (Rows{"1", "1", "1"}));
  EXPECT_EQ(Eval(Fn("startsWith", {Col(0, T::kString), S("a")}), b), (Rows{"1", "0", "0"}));
  EXPECT_EQ(Eval(Fn("endsWith", {Col(0, T::kString), S("yz")}), b), (Rows{"0", "0", "1"}));
  EXPECT_EQ(Eval(Fn("replaceAll", {S("a.b.c"), S("."), S("::")}), b),
            (Rows{"a::b::c", "a::b::c", "a::b::c"}));
  EXPECT_EQ(Eval(Fn("replaceOne", {Col(0, T::kString), S("y"), S("YY")}), b),
            (Rows{"ab", "", "xYYz"}));
  EXPECT_EQ(Eval(Fn("replaceAll", {Col(0, T::kString), S(""), S("!")}), b), (Rows{"ab", "", "xyz"}));
}

TEST(StringFunctionsTest, ReplaceRegexp) {
  Block b = BlockOf({StringColumn({"https://www.example.com/path?q=1", "http://yandex.ru/", "abc", ""})});
  auto domain = Fn("REGEXP_REPLACE", {Col(0, T::kString), S("^https?://(?:www\\.)?([^/]+)/.*$"),
                                      S("\\1")});
  EXPECT_EQ(domain.function, "replaceRegexpAll");
  EXPECT_EQ(Eval(domain, b), (Rows{"example.com", "yandex.ru", "abc", ""}));
  EXPECT_EQ(Eval(Fn("replaceRegexpAll", {Col(0, T::kString), S("[aeiou]"), S("<\\0>")}), b)[2],
            "<a>bc");
  EXPECT_EQ(Eval(Fn("replaceRegexpOne", {S("aaa"), S("a"), S("b")}), b)[0], "baa");
  EXPECT_EQ(Eval(Fn("replaceRegexpAll", {S("abc"), S(""), S("-")}), b)[0], "-a-b-c");
  EXPECT_EQ(Eval(Fn("replaceRegexpAll", {S("a1b22"), S("(\\d+)"), S("[\\1\\\\\\x]")}), b)[0],
            "a[1\\x]b[22\\x]");
  EXPECT_EQ(Eval(Fn("match", {Col(0, T::kString), S("yandex|example")}), b),
            (Rows{"1", "1", "0", "0"}));
  auto bad_group = Expression::Compile(Fn("replaceRegexpAll", {S("a"), S("(a)"), S("\\2")}));
  EXPECT_EQ(CodeOf(bad_group.status()), ErrorCode::kBadArguments);
  auto bad_regex = Expression::Compile(Fn("match", {Col(0, T::kString), S("(")}));
  EXPECT_EQ(CodeOf(bad_regex.status()), ErrorCode::kBadArguments);
}

}  // namespace
}  // namespace granite::core
