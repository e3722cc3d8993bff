#include <gtest/gtest.h>

#include "core/error.h"
#include "core/functions/like_matcher.h"
#include "core/functions/test_columns.h"

namespace granite::core {
namespace {

using T = TypeId;
using Kind = LikeMatcher::Kind;

std::unique_ptr<LikeMatcher> Compile(std::string_view pattern, bool case_insensitive = false) {
  auto matcher = LikeMatcher::Compile(pattern, case_insensitive);
  EXPECT_TRUE(matcher.ok()) << matcher.status();
  return matcher.ok() ? *std::move(matcher) : nullptr;
}

TEST(LikeMatcherTest, PicksTheCheapestKind) {
  EXPECT_EQ(Compile("abc")->kind(), Kind::kExact);
  EXPECT_EQ(Compile("")->kind(), Kind::kExact);
  EXPECT_EQ(Compile("abc%")->kind(), Kind::kPrefix);
  EXPECT_EQ(Compile("%abc")->kind(), Kind::kSuffix);
  EXPECT_EQ(Compile("%abc%")->kind(), Kind::kSubstring);
  EXPECT_EQ(Compile("%%abc%%")->kind(), Kind::kSubstring);
  EXPECT_EQ(Compile("%")->kind(), Kind::kAny);
  EXPECT_EQ(Compile("%%")->kind(), Kind::kAny);
  EXPECT_EQ(Compile("a%c")->kind(), Kind::kRegex);
  EXPECT_EQ(Compile("a_c")->kind(), Kind::kRegex);
  EXPECT_EQ(Compile("100\\%")->kind(), Kind::kExact);
  EXPECT_EQ(Compile("%\\_%")->kind(), Kind::kSubstring);
}

TEST(LikeMatcherTest, Matches) {
  EXPECT_TRUE(Compile("abc")->Matches("abc"));
  EXPECT_FALSE(Compile("abc")->Matches("abcd"));
  EXPECT_TRUE(Compile("")->Matches(""));
  EXPECT_FALSE(Compile("")->Matches("a"));
  EXPECT_TRUE(Compile("ab%")->Matches("ab"));
  EXPECT_FALSE(Compile("ab%")->Matches("a"));
  EXPECT_TRUE(Compile("%bc")->Matches("abc"));
  EXPECT_FALSE(Compile("%bc")->Matches("bca"));
  EXPECT_TRUE(Compile("a_c")->Matches("abc"));
  EXPECT_FALSE(Compile("a_c")->Matches("ac"));
  EXPECT_TRUE(Compile("a_c")->Matches("a\xc3\xa9" "c"));  // '_' is one UTF-8 character
  EXPECT_TRUE(Compile("a%c")->Matches("a\nb\nc"));       // '%' crosses newlines
  EXPECT_TRUE(Compile("100\\%")->Matches("100%"));
  EXPECT_FALSE(Compile("100\\%")->Matches("1000"));
  EXPECT_TRUE(Compile("a\\_c")->Matches("a_c"));
  EXPECT_FALSE(Compile("a\\_c")->Matches("abc"));
  EXPECT_TRUE(Compile("a\\\\c")->Matches("a\\c"));
  EXPECT_TRUE(Compile("%.(x)+[%")->Matches("..(x)+[yz"));  // regex metacharacters are literal
  EXPECT_FALSE(Compile("%.(x)+[%")->Matches("a(x)+[yz"));
  EXPECT_TRUE(Compile("a.c_")->Matches("a.cd"));
  EXPECT_FALSE(Compile("a.c_")->Matches("abcd"));
  EXPECT_TRUE(Compile("ABC%", true)->Matches("abcdef"));
  EXPECT_TRUE(Compile("%Bc", true)->Matches("aBC"));
  EXPECT_TRUE(Compile("a_C", true)->Matches("Abc"));
}

TEST(LikeMatcherTest, SubstringSearchRespectsRowBoundaries) {
  Column strings(T::kString);
  for (const char* s : {"goo", "gle", "google", "", "xgooglex", "googl", "egoogle"}) {
    strings.AppendString(s);
  }
  uint8_t out[7];
  Compile("%google%")->MatchColumn(strings, false, out);
  EXPECT_EQ(std::vector<uint8_t>(out, out + 7), (std::vector<uint8_t>{0, 0, 1, 0, 1, 0, 1}));
  Compile("%google%")->MatchColumn(strings, true, out);
  EXPECT_EQ(std::vector<uint8_t>(out, out + 7), (std::vector<uint8_t>{1, 1, 0, 1, 0, 1, 0}));
  Compile("%GOOGLE%", true)->MatchColumn(strings, false, out);
  EXPECT_EQ(std::vector<uint8_t>(out, out + 7), (std::vector<uint8_t>{0, 0, 1, 0, 1, 0, 1}));
  // A needle that spans two rows ("oo" + "gle") is not a match, and the search continues.
  Column split(T::kString);
  for (const char* s : {"xgoo", "glex", "agoogle"}) split.AppendString(s);
  uint8_t out3[3];
  Compile("%google%")->MatchColumn(split, false, out3);
  EXPECT_EQ(std::vector<uint8_t>(out3, out3 + 3), (std::vector<uint8_t>{0, 0, 1}));
}

TEST(LikeMatcherTest, RegexRunsOnlyWhereTheLongestLiteralOccurs) {
  Column strings(TypeId::kString);
  for (const char* s : {"google", "goo", "gle", "gooXle", "xgooglex", "GOOGLE", "goo\nle"}) {
    strings.AppendString(s);
  }
  uint8_t out[7];
  // '_' matches a newline too.
  Compile("%goo_le%")->MatchColumn(strings, false, out);
  EXPECT_EQ(std::vector<uint8_t>(out, out + 7), (std::vector<uint8_t>{1, 0, 0, 1, 1, 0, 1}));
  Compile("%goo_le%")->MatchColumn(strings, true, out);
  EXPECT_EQ(std::vector<uint8_t>(out, out + 7), (std::vector<uint8_t>{0, 1, 1, 0, 0, 1, 0}));
  Compile("%Goo_lE%", true)->MatchColumn(strings, false, out);
  EXPECT_EQ(std::vector<uint8_t>(out, out + 7), (std::vector<uint8_t>{1, 0, 0, 1, 1, 1, 1}));
  Compile("_%_")->MatchColumn(strings, false, out);  // no literal at all
  EXPECT_EQ(std::vector<uint8_t>(out, out + 7), (std::vector<uint8_t>{1, 1, 1, 1, 1, 1, 1}));
}

TEST(LikeFunctionTest, AllFourFunctions) {
  Block b = BlockOf({StringColumn({"Google", "google.com", "yandex", ""})});
  EXPECT_EQ(Eval(Fn("like", {Col(0, T::kString), Lit(std::string("%oogle%"))}), b),
            (Rows{"1", "1", "0", "0"}));
  EXPECT_EQ(Eval(Fn("notLike", {Col(0, T::kString), Lit(std::string("google%"))}), b),
            (Rows{"1", "0", "1", "1"}));
  EXPECT_EQ(Eval(Fn("ilike", {Col(0, T::kString), Lit(std::string("GOOGLE%"))}), b),
            (Rows{"1", "1", "0", "0"}));
  EXPECT_EQ(Eval(Fn("notILike", {Col(0, T::kString), Lit(std::string("%X"))}), b),
            (Rows{"1", "1", "0", "1"}));
  EXPECT_EQ(Eval(Fn("like", {Col(0, T::kString), Lit(std::string("_an%y"))}), b),
            (Rows{"0", "0", "0", "0"}));
  EXPECT_EQ(Eval(Fn("like", {Col(0, T::kString), Lit(std::string("_and%x"))}), b),
            (Rows{"0", "0", "1", "0"}));
  EXPECT_EQ(Eval(Fn("like", {Col(0, T::kString), Lit(std::string("%"))}), b),
            (Rows{"1", "1", "1", "1"}));
  EXPECT_EQ(Eval(Fn("like", {Col(0, T::kString), Lit(std::string(""))}), b),
            (Rows{"0", "0", "0", "1"}));
  EXPECT_EQ(EvalConstant(Fn("like", {Lit(std::string("abc")), Lit(std::string("a%"))})), "1");
  Block empty = BlockOf({StringColumn({})});
  EXPECT_EQ(Eval(Fn("like", {Col(0, T::kString), Lit(std::string("%x%"))}), empty), Rows{});
  auto non_string = TypedCall("like", {Lit(uint64_t{1}), Lit(std::string("1"))});
  EXPECT_EQ(CodeOf(non_string.status()), ErrorCode::kIllegalTypeOfArgument);
}

}  // namespace
}  // namespace granite::core
