#include <gtest/gtest.h>

#include <random>

#include "absl/strings/ascii.h"
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
  EXPECT_EQ(Compile("a%c")->kind(), Kind::kSequence);
  EXPECT_EQ(Compile("%special%requests%")->kind(), Kind::kSequence);
  EXPECT_EQ(Compile("%a%%b")->kind(), Kind::kSequence);
  EXPECT_EQ(Compile("a_c")->kind(), Kind::kRegex);
  EXPECT_EQ(Compile("%a%_b%")->kind(), Kind::kRegex);
  EXPECT_EQ(Compile("%\\_%b%")->kind(), Kind::kSequence);  // an escaped '_' is a literal
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

TEST(LikeMatcherTest, CaseInsensitiveFoldsCyrillic) {
  // A non-ASCII pattern letter needs Unicode folding: 'ЯНДЕКС' matches 'яндекс' and 'Яндекс'.
  auto substring = Compile("%ЯНДЕКС%", true);
  EXPECT_TRUE(substring->Matches("www.яндекс.ru"));
  EXPECT_TRUE(substring->Matches("Яндекс"));
  EXPECT_FALSE(substring->Matches("яндек"));
  EXPECT_FALSE(Compile("%ЯНДЕКС%", false)->Matches("яндекс"));
  // Mixed ASCII and Cyrillic: the ASCII run prefilters, RE2 folds the rest.
  auto mixed = Compile("Мой %Google_%", true);
  EXPECT_TRUE(mixed->Matches("мой любимый GOOGLE!"));
  EXPECT_FALSE(mixed->Matches("мой любимый GOOGLE"));
  EXPECT_FALSE(mixed->Matches("твой GOOGLE!"));
  Column strings(T::kString);
  for (const char* s : {"ПРИВЕТ", "привет мир", "пока", "xПрИвЕтx"}) strings.AppendString(s);
  uint8_t out[4];
  Compile("%привет%", true)->MatchColumn(strings, false, out);
  EXPECT_EQ(std::vector<uint8_t>(out, out + 4), (std::vector<uint8_t>{1, 1, 0, 1}));
  Compile("%привет%", true)->MatchColumn(strings, true, out);
  EXPECT_EQ(std::vector<uint8_t>(out, out + 4), (std::vector<uint8_t>{0, 0, 1, 0}));
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

// The reference LIKE: plain backtracking over bytes ('_' is one byte; the texts are ASCII).
bool ReferenceLike(std::string_view text, std::string_view pattern, bool fold) {
  if (pattern.empty()) return text.empty();
  if (pattern[0] == '%') {
    for (size_t skip = 0; skip <= text.size(); ++skip) {
      if (ReferenceLike(text.substr(skip), pattern.substr(1), fold)) return true;
    }
    return false;
  }
  if (text.empty()) return false;
  if (pattern[0] == '_') return ReferenceLike(text.substr(1), pattern.substr(1), fold);
  size_t width = 1;
  char literal = pattern[0];
  if (literal == '\\' && pattern.size() > 1) {
    literal = pattern[1];
    width = 2;
  }
  const char c = text[0];
  const bool equal = fold ? absl::ascii_tolower(c) == absl::ascii_tolower(literal) : c == literal;
  return equal && ReferenceLike(text.substr(1), pattern.substr(width), fold);
}

// `matcher` (compiled from `pattern`) answers as ReferenceLike for every row of `strings`: per row
// (Matches) and per column (MatchColumn), LIKE and NOT LIKE.
void ExpectReferenceAnswers(const LikeMatcher& matcher, const Column& strings,
                            const std::string& pattern, bool fold) {
  std::vector<uint8_t> out(strings.size()), negated_out(strings.size());
  matcher.MatchColumn(strings, false, out.data());
  matcher.MatchColumn(strings, true, negated_out.data());
  for (size_t row = 0; row < strings.size(); ++row) {
    const std::string_view text = strings.StringAt(row);
    const bool expected = ReferenceLike(text, pattern, fold);
    ASSERT_EQ(matcher.Matches(text), expected) << "'" << text << "' LIKE '" << pattern << "'";
    ASSERT_EQ(out[row], expected) << "row " << row << ": '" << text << "' LIKE '" << pattern
                                  << "'";
    ASSERT_EQ(negated_out[row], !expected) << "'" << text << "' NOT LIKE '" << pattern << "'";
  }
}

// Every kind (exact, prefix, suffix, substring, any, regex), LIKE / NOT LIKE / ILIKE, per row and
// per column, against the reference; the column holds rows in which needles cross boundaries.
TEST(LikeMatcherTest, MatchesTheReferenceOnRandomPatterns) {
  std::mt19937 rng(11);
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  static constexpr std::string_view kTextBytes = "aabbAB%_";
  static constexpr std::string_view kPatternPieces[] = {"a", "b",  "A",    "ab",
                                                        "%", "_",  "\\%", "\\_"};
  for (int iteration = 0; iteration < 400; ++iteration) {
    std::string pattern;
    for (size_t i = pick(6); i > 0; --i) pattern += kPatternPieces[pick(std::size(kPatternPieces))];
    const bool fold = pick(3) == 0;
    Column strings(T::kString);
    for (size_t row = pick(30); row > 0; --row) {
      std::string text;
      for (size_t i = pick(pick(4) == 0 ? 40 : 6); i > 0; --i) {
        text += kTextBytes[pick(kTextBytes.size())];
      }
      strings.AppendString(text);
    }
    auto matcher = Compile(pattern, fold);
    ASSERT_NE(matcher, nullptr);
    ASSERT_NO_FATAL_FAILURE(ExpectReferenceAnswers(*matcher, strings, pattern, fold));
  }
}

// Literal runs split by '%' only (the sequence kind): anchored and floating ends, runs that
// overlap or repeat, runs that cross row boundaries in the column path, ILIKE; against the
// reference.
TEST(LikeMatcherTest, SequencesMatchTheReference) {
  std::mt19937 rng(29);
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  static constexpr std::string_view kTextBytes = "aabbcAB";
  static constexpr std::string_view kRuns[] = {"a", "b", "ab", "ba", "aab", "bb", "A", "\\%"};
  int sequences = 0;
  for (int iteration = 0; iteration < 1500; ++iteration) {
    std::string pattern = pick(2) == 0 ? "%" : "";
    for (size_t i = 2 + pick(3); i > 0; --i) {
      pattern += kRuns[pick(std::size(kRuns))];
      if (i > 1) pattern += pick(4) == 0 ? "%%" : "%";
    }
    if (pick(2) == 0) pattern += "%";
    const bool fold = pick(3) == 0;
    Column strings(T::kString);
    for (size_t row = pick(25); row > 0; --row) {
      std::string text;
      for (size_t i = pick(pick(4) == 0 ? 30 : 7); i > 0; --i) {
        text += kTextBytes[pick(kTextBytes.size())];
      }
      strings.AppendString(text);
    }
    auto matcher = Compile(pattern, fold);
    ASSERT_NE(matcher, nullptr);
    sequences += matcher->kind() == Kind::kSequence;
    ASSERT_NO_FATAL_FAILURE(ExpectReferenceAnswers(*matcher, strings, pattern, fold));
  }
  EXPECT_EQ(sequences, 1500);
  // Hand-picked edges: the prefix and suffix may not overlap; a run must follow the previous one.
  EXPECT_FALSE(Compile("ab%ba")->Matches("aba"));
  EXPECT_TRUE(Compile("ab%ba")->Matches("abba"));
  EXPECT_FALSE(Compile("%requests%special%")->Matches("special requests"));
  EXPECT_TRUE(Compile("%special%requests%")->Matches("the special packages requests"));
  EXPECT_TRUE(Compile("%SPECIAL%requests", true)->Matches("special REQUESTS"));
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
