#include "coordinator/formats/text_escaping.h"

#include <gtest/gtest.h>

#include "coordinator/formats/tab_separated_input.h"

namespace granite::coordinator {
namespace {

std::string Tsv(std::string_view s) {
  std::string out;
  AppendTsvEscaped(s, &out);
  return out;
}

std::string Csv(std::string_view s) {
  std::string out;
  AppendCsvQuoted(s, &out);
  return out;
}

std::string Json(std::string_view s) {
  std::string out;
  AppendJsonString(s, &out);
  return out;
}

TEST(TextEscapingTest, EscapesTabSeparated) {
  EXPECT_EQ(Tsv("plain"), "plain");
  EXPECT_EQ(Tsv("a\tb\nc\\d'e\"f"), "a\\tb\\nc\\\\d\\'e\"f");
  EXPECT_EQ(Tsv(std::string_view("\r\0\b\f", 4)), "\\r\\0\\b\\f");
  EXPECT_EQ(Tsv(""), "");
}

TEST(TextEscapingTest, UnescapesWhatItEscapes) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  std::string back;
  UnescapeTsv(Tsv(all), &back);
  EXPECT_EQ(back, all);
  UnescapeTsv("100\\%\\x41\\/", &back);
  EXPECT_EQ(back, "100\\%A/");
}

TEST(TextEscapingTest, QuotesCsv) {
  EXPECT_EQ(Csv("abc"), "\"abc\"");
  EXPECT_EQ(Csv("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(Csv("a,b\nc"), "\"a,b\nc\"");
  EXPECT_EQ(Csv(""), "\"\"");
}

TEST(TextEscapingTest, EscapesJsonLikeClickHouse) {
  EXPECT_EQ(Json("abc"), "\"abc\"");
  EXPECT_EQ(Json("a\"b\\c/d"), "\"a\\\"b\\\\c\\/d\"");
  EXPECT_EQ(Json("\b\f\n\r\t"), "\"\\b\\f\\n\\r\\t\"");
  EXPECT_EQ(Json(std::string_view("\x01\x1f\0", 3)), "\"\\u0001\\u001F\\u0000\"");
  EXPECT_EQ(Json("x\xE2\x80\xA8y\xE2\x80\xA9"), "\"x\\u2028y\\u2029\"");
  EXPECT_EQ(Json("привет"), "\"привет\"");
}

TEST(TextEscapingTest, CountsCodePoints) {
  EXPECT_EQ(Utf8Width("abc"), 3u);
  EXPECT_EQ(Utf8Width("привет"), 6u);
  EXPECT_EQ(Utf8Width("日本"), 2u);
  EXPECT_EQ(Utf8Width(""), 0u);
}

}  // namespace
}  // namespace granite::coordinator
