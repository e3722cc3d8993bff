#include "client/statement_splitter.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace granite::client {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(StatementSplitterTest, SplitsOnSemicolonsAndTrims) {
  SplitResult result = SplitStatements("  SELECT 1;\nSELECT 2 ;  \n\tSELECT 3;");
  EXPECT_THAT(result.statements, ElementsAre("SELECT 1", "SELECT 2", "SELECT 3"));
  EXPECT_EQ(result.remainder, "");
}

TEST(StatementSplitterTest, KeepsUnterminatedTailAsRemainder) {
  SplitResult result = SplitStatements("SELECT 1; SELECT\n  2");
  EXPECT_THAT(result.statements, ElementsAre("SELECT 1"));
  EXPECT_EQ(result.remainder, " SELECT\n  2");
  EXPECT_FALSE(IsBlank(result.remainder));
}

TEST(StatementSplitterTest, IgnoresSemicolonsInsideStringsAndIdentifiers) {
  SplitResult result = SplitStatements(
      "SELECT 'a;b', \"c;d\", `e;f`; SELECT 'it''s;', 'x\\';y'; SELECT \"q\"\";\";");
  EXPECT_THAT(result.statements,
              ElementsAre("SELECT 'a;b', \"c;d\", `e;f`", "SELECT 'it''s;', 'x\\';y'",
                          "SELECT \"q\"\";\""));
  EXPECT_EQ(result.remainder, "");
}

TEST(StatementSplitterTest, UnterminatedStringSwallowsTheRest) {
  SplitResult result = SplitStatements("SELECT 1; SELECT 'abc; SELECT 2;");
  EXPECT_THAT(result.statements, ElementsAre("SELECT 1"));
  EXPECT_EQ(result.remainder, " SELECT 'abc; SELECT 2;");
}

TEST(StatementSplitterTest, IgnoresSemicolonsInsideComments) {
  SplitResult result = SplitStatements(
      "SELECT 1 -- one; two\n;\n/* a; /* nested; */ still; */ SELECT 2;");
  EXPECT_THAT(result.statements,
              ElementsAre("SELECT 1 -- one; two", "/* a; /* nested; */ still; */ SELECT 2"));
  EXPECT_EQ(result.remainder, "");
}

TEST(StatementSplitterTest, DropsBlankAndCommentOnlyStatements) {
  SplitResult result = SplitStatements(";; -- nothing\n; /* x */ ; SELECT 1;;");
  EXPECT_THAT(result.statements, ElementsAre("SELECT 1"));
  EXPECT_EQ(result.remainder, "");
}

TEST(StatementSplitterTest, EmptyScriptHasNothing) {
  SplitResult result = SplitStatements("");
  EXPECT_THAT(result.statements, IsEmpty());
  EXPECT_EQ(result.remainder, "");
}

TEST(StatementSplitterTest, MinusAndSlashAloneAreNotComments) {
  SplitResult result = SplitStatements("SELECT 3-1/2; SELECT -1");
  EXPECT_THAT(result.statements, ElementsAre("SELECT 3-1/2"));
  EXPECT_EQ(result.remainder, " SELECT -1");
}

TEST(StatementSplitterTest, IsBlankRecognisesWhitespaceAndComments) {
  EXPECT_TRUE(IsBlank(""));
  EXPECT_TRUE(IsBlank(" \n\t "));
  EXPECT_TRUE(IsBlank("-- comment"));
  EXPECT_TRUE(IsBlank("/* open comment"));
  EXPECT_TRUE(IsBlank("/* a */ -- b\n  "));
  EXPECT_FALSE(IsBlank("/* a */ x"));
  EXPECT_FALSE(IsBlank("-"));
  EXPECT_FALSE(IsBlank("''"));
}

TEST(StatementSplitterTest, FirstKeywordSkipsCommentsAndParentheses) {
  EXPECT_EQ(FirstKeyword("insert into t format CSV"), "INSERT");
  EXPECT_EQ(FirstKeyword("  -- note\n /* x */ Insert INTO t"), "INSERT");
  EXPECT_EQ(FirstKeyword("((select 1))"), "SELECT");
  EXPECT_EQ(FirstKeyword("show_tables"), "SHOW_TABLES");
  EXPECT_EQ(FirstKeyword("'text'"), "");
  EXPECT_EQ(FirstKeyword(""), "");
}

}  // namespace
}  // namespace granite::client
