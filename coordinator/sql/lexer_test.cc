#include "coordinator/sql/lexer.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace granite::coordinator::sql {
namespace {

struct Lexed {
  TokenKind kind;
  std::string text;
  size_t position;
};

std::vector<Lexed> LexAll(std::string_view query) {
  Lexer lexer(query);
  std::vector<Lexed> out;
  while (true) {
    Token token = lexer.Next();
    out.push_back({token.kind, std::string(token.text), token.position});
    if (token.kind == TokenKind::kEnd || token.kind == TokenKind::kError) return out;
  }
}

TEST(LexerTest, SplitsTokensOfEveryKind) {
  auto tokens = LexAll("SELECT a1, 'x''y', \"q\" `b` 1.5e3 .5 0x1F 7 <= <> != :: || ; -x");
  std::vector<std::pair<TokenKind, std::string>> expected = {
      {TokenKind::kBareWord, "SELECT"},      {TokenKind::kBareWord, "a1"},
      {TokenKind::kPunctuation, ","},        {TokenKind::kString, "'x''y'"},
      {TokenKind::kPunctuation, ","},        {TokenKind::kQuotedIdentifier, "\"q\""},
      {TokenKind::kQuotedIdentifier, "`b`"}, {TokenKind::kNumber, "1.5e3"},
      {TokenKind::kNumber, ".5"},            {TokenKind::kNumber, "0x1F"},
      {TokenKind::kNumber, "7"},             {TokenKind::kPunctuation, "<="},
      {TokenKind::kPunctuation, "<>"},       {TokenKind::kPunctuation, "!="},
      {TokenKind::kPunctuation, "::"},       {TokenKind::kPunctuation, "||"},
      {TokenKind::kPunctuation, ";"},        {TokenKind::kPunctuation, "-"},
      {TokenKind::kBareWord, "x"},           {TokenKind::kEnd, ""}};
  ASSERT_EQ(tokens.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(tokens[i].kind, expected[i].first) << i;
    EXPECT_EQ(tokens[i].text, expected[i].second) << i;
  }
  EXPECT_EQ(tokens[1].position, 7u);
  EXPECT_EQ(tokens[3].position, 11u);
}

TEST(LexerTest, SkipsLineAndNestedBlockComments) {
  auto tokens = LexAll("a -- comment ; 'x\n/* one /* two */ still */ b/**/c--");
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens[0].text, "a");
  EXPECT_EQ(tokens[1].text, "b");
  EXPECT_EQ(tokens[2].text, "c");
  EXPECT_EQ(tokens[3].kind, TokenKind::kEnd);
  EXPECT_EQ(tokens[3].position, 52u);  // the end of the query
}

TEST(LexerTest, DoubleDashIsACommentEvenAfterAMinus) {
  auto tokens = LexAll("1 - -1 --2");
  ASSERT_EQ(tokens.size(), 5u);
  EXPECT_EQ(tokens[1].text, "-");
  EXPECT_EQ(tokens[2].text, "-");
  EXPECT_EQ(tokens[3].text, "1");
}

TEST(LexerTest, ReportsMalformedInput) {
  struct Case {
    std::string query;
    size_t position;
    std::string error;
  };
  const Case cases[] = {
      {"SELECT 'abc", 7, "Single quoted string is not closed"},
      {"SELECT 'abc\\'", 7, "Single quoted string is not closed"},
      {"SELECT \"abc", 7, "Double quoted string is not closed"},
      {"SELECT `abc", 7, "Back quoted string is not closed"},
      {"SELECT 1 /* x /* y */", 9, "Multiline comment is not closed"},
      {"SELECT 1 ^ 2", 9, "Unrecognized token"},
      {"SELECT 12abc", 7, "Invalid number"},
      {"SELECT !x", 7, "Unrecognized token"},
  };
  for (const Case& c : cases) {
    Lexer lexer(c.query);
    Token token;
    do {
      token = lexer.Next();
    } while (token.kind != TokenKind::kError && token.kind != TokenKind::kEnd);
    ASSERT_EQ(token.kind, TokenKind::kError) << c.query;
    EXPECT_EQ(token.position, c.position) << c.query;
    EXPECT_EQ(lexer.error(), c.error) << c.query;
    // The error is sticky.
    EXPECT_EQ(lexer.Next().kind, TokenKind::kError);
  }
}

TEST(LexerTest, EndRepeats) {
  Lexer lexer("  ");
  EXPECT_EQ(lexer.Next().kind, TokenKind::kEnd);
  EXPECT_EQ(lexer.Next().kind, TokenKind::kEnd);
}

TEST(LexerTest, UnquoteResolvesClickHouseEscapes) {
  EXPECT_EQ(Unquote("'abc'"), "abc");
  EXPECT_EQ(Unquote("''"), "");
  EXPECT_EQ(Unquote("'it''s'"), "it's");
  EXPECT_EQ(Unquote("'it\\'s'"), "it's");
  EXPECT_EQ(Unquote("'a\\nb\\tc\\rd'"), "a\nb\tc\rd");
  EXPECT_EQ(Unquote("'\\\\'"), "\\");
  EXPECT_EQ(Unquote("'\\\"'"), "\"");
  EXPECT_EQ(Unquote("'\\0'"), std::string(1, '\0'));
  EXPECT_EQ(Unquote("'\\x41\\x4a'"), "AJ");
  // Unknown escapes keep their backslash, so regular expressions survive.
  EXPECT_EQ(Unquote("'\\.'"), "\\.");
  EXPECT_EQ(Unquote("'\\1'"), "\\1");
  EXPECT_EQ(Unquote("'\\xZZ'"), "\\xZZ");
  EXPECT_EQ(Unquote("'^https?://(?:www\\.)?([^/]+)/.*$'"), "^https?://(?:www\\.)?([^/]+)/.*$");
  EXPECT_EQ(Unquote("\"a\"\"b\""), "a\"b");
  EXPECT_EQ(Unquote("`a``b`"), "a`b");
}

TEST(LexerTest, KeywordsMatchIgnoringCase) {
  Lexer lexer("select SeLeCt selects \"SELECT\"");
  EXPECT_TRUE(lexer.Next().Is("SELECT"));
  EXPECT_TRUE(lexer.Next().Is("SELECT"));
  EXPECT_FALSE(lexer.Next().Is("SELECT"));
  EXPECT_FALSE(lexer.Next().Is("SELECT"));  // a quoted identifier is never a keyword
}

TEST(LexerTest, ReservedWords) {
  EXPECT_TRUE(IsReservedWord("from"));
  EXPECT_TRUE(IsReservedWord("WHERE"));
  EXPECT_TRUE(IsReservedWord("Limit"));
  EXPECT_TRUE(IsReservedWord("descending"));
  EXPECT_FALSE(IsReservedWord("number"));
  EXPECT_FALSE(IsReservedWord("date"));
  EXPECT_FALSE(IsReservedWord("FORM"));
  EXPECT_FALSE(IsReservedWord("averyveryverylongword"));
}

}  // namespace
}  // namespace granite::coordinator::sql
