// Tests of replaceRegexpAll / replaceRegexpOne over whole columns: the kernel (with its ".*$"
// prefix fast path and its reuse of a repeated value's result) equals a plain RE2 replacement
// loop and evaluating each row alone, for many patterns and inputs (no match, empty strings,
// empty matches, newlines, UTF-8); and which patterns the prefix fast path splits.
#include <re2/re2.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/functions/regexp_prefix.h"
#include "core/functions/test_columns.h"

namespace granite::core {
namespace {

using T = TypeId;

ColumnPtr StringsOf(const std::vector<std::string>& values) {
  auto column = std::make_shared<Column>(T::kString);
  for (const std::string& v : values) column->AppendString(v);
  return column;
}

// ClickHouse's replacement on the whole pattern with RE2 alone: the reference of the kernel.
std::string ReferenceReplace(const std::string& input, const std::string& pattern,
                             const std::string& replacement, bool all) {
  RE2::Options options;
  options.set_dot_nl(false);
  RE2 regex(pattern, options);
  re2::StringPiece text(input), matches[10];
  std::string out;
  size_t pos = 0;
  while (pos < input.size()) {
    if (!regex.Match(text, pos, input.size(), RE2::UNANCHORED, matches,
                     1 + regex.NumberOfCapturingGroups())) {
      break;
    }
    const size_t begin = matches[0].data() - input.data();
    out.append(input, pos, begin - pos);
    pos = begin + matches[0].size();
    for (size_t i = 0; i < replacement.size(); ++i) {
      if (replacement[i] == '\\' && i + 1 < replacement.size()) {
        const char next = replacement[++i];
        if (next >= '0' && next <= '9') {
          out.append(matches[next - '0'].data(), matches[next - '0'].size());
        } else {
          out.push_back(next);
        }
      } else {
        out.push_back(replacement[i]);
      }
    }
    if (matches[0].empty() && pos < input.size()) out.push_back(input[pos++]);
    if (!all) break;
  }
  if (pos < input.size()) out.append(input, pos, std::string::npos);
  return out;
}

TEST(RegexpFunctionsTest, ColumnEqualsRowByRow) {
  const std::vector<std::string> inputs = {
      "https://www.example.com/path?q=1", "https://www.example.com/path?q=1",
      "https://www.example.com/path?q=1", "http://yandex.ru/", "", "", "abc", "abc",
      "http://привет.рф/страница", "http://привет.рф/страница", "https://x/", "no match here",
      "http://www./", "aaa", "aaa", "a1b22", "https://www.example.com/other", "abc",
      "http://a.ru/x\ny", "http://a.ru/x\ny", "line\nhttp://b.ru/", "\n", "http://c.ru/\n",
      "xhttp://d.ru/e", "https://www.f.com", "http:///", "http://g.ru//"};
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"^https?://(?:www\\.)?([^/]+)/.*$", "\\1"},
      {"^https?://(?:www\\.)?([^/]+)/.*$", "<\\1|\\0>"},
      {"[aeiou]", "<\\0>"},
      {"", "-"},
      {"a", "b"},
      {"(\\d+)", "[\\1]"},
      {"р", "R"},
      {"^", "^"},
      {"$", "$"},
      {"x*", "-"},
      {"zzz", "y"},
      {"^https?://([^/]+)/.*$", "\\1"},
      {"https?://([^/]+)/.*$", "[\\1]"},
      {"(?:www\\.)?([a-z]+)\\.([a-z]+)/.*$", "\\2.\\1"},
      {"/.*$", ""},
      {".*$", "<\\0>"},
      {"(a|h).*$", "\\1"},
      {"^(?m)h.*$", "H"},
      {"^(?s)h.*$", "H"},
      {"b*.*$", "-"}};
  for (const char* function : {"replaceRegexpAll", "replaceRegexpOne"}) {
    for (const auto& [pattern, replacement] : cases) {
      auto expr = Fn(function, {Col(0, T::kString), Lit(pattern), Lit(replacement)});
      Rows whole = Eval(expr, BlockOf({StringsOf(inputs)}));
      ASSERT_EQ(whole.size(), inputs.size());
      for (size_t i = 0; i < inputs.size(); ++i) {
        Rows alone = Eval(expr, BlockOf({StringsOf({inputs[i]})}));
        ASSERT_EQ(alone.size(), 1u);
        EXPECT_EQ(whole[i], alone[0]) << function << " " << pattern << " row " << i;
        std::string want = ReferenceReplace(inputs[i], pattern, replacement,
                                            std::string(function) == "replaceRegexpAll");
        // Eval prints strings in TSV text form; the reference goes through the same printing.
        Rows printed = Eval(Lit(want), BlockOf({StringsOf({""})}));
        EXPECT_EQ(whole[i], printed[0]) << function << " " << pattern << " row " << i;
      }
    }
  }
}

TEST(RegexpFunctionsTest, RepeatedValuesKeepTheirResults) {
  auto expr = Fn("REGEXP_REPLACE",
                 {Col(0, T::kString), Lit(std::string("^https?://(?:www\\.)?([^/]+)/.*$")),
                  Lit(std::string("\\1"))});
  Block b = BlockOf({StringsOf({"http://a.ru/1", "http://a.ru/1", "http://a.ru/1", "", "",
                                "https://www.b.com/", "https://www.b.com/", "nope", "nope"})});
  EXPECT_EQ(Eval(expr, b),
            (Rows{"a.ru", "a.ru", "a.ru", "", "", "b.com", "b.com", "nope", "nope"}));
}

TEST(RegexpFunctionsTest, PrefixBeforeTrailingDotStar) {
  EXPECT_EQ(PrefixBeforeTrailingDotStar("^https?://(?:www\\.)?([^/]+)/.*$"),
            "^https?://(?:www\\.)?([^/]+)/");
  EXPECT_EQ(PrefixBeforeTrailingDotStar(".*$"), "");
  EXPECT_EQ(PrefixBeforeTrailingDotStar("[]a].*$"), "[]a]");
  EXPECT_EQ(PrefixBeforeTrailingDotStar("[[:alpha:]].*$"), "[[:alpha:]]");
  EXPECT_EQ(PrefixBeforeTrailingDotStar("(a|b).*$"), "(a|b)");
  EXPECT_EQ(PrefixBeforeTrailingDotStar("a|b.*$"), std::nullopt);     // top-level alternation
  EXPECT_EQ(PrefixBeforeTrailingDotStar("a\\.*$"), std::nullopt);    // an escaped dot
  EXPECT_EQ(PrefixBeforeTrailingDotStar("a\\\\.*$"), "a\\\\");  // an escaped backslash
  EXPECT_EQ(PrefixBeforeTrailingDotStar("(a.*$)"), std::nullopt);     // inside a group
  EXPECT_EQ(PrefixBeforeTrailingDotStar("[a.*$]"), std::nullopt);     // inside a class
  EXPECT_EQ(PrefixBeforeTrailingDotStar("(a.*$"), std::nullopt);      // unbalanced
  EXPECT_EQ(PrefixBeforeTrailingDotStar("\\Qa.*$"), std::nullopt);   // quoted
  EXPECT_EQ(PrefixBeforeTrailingDotStar("a.*"), std::nullopt);
  EXPECT_EQ(PrefixBeforeTrailingDotStar("a.+$"), std::nullopt);
}

}  // namespace
}  // namespace granite::core
