#include "coordinator/server/statement_kind.h"

#include <gtest/gtest.h>

#include <string>

#include "coordinator/sql/parser.h"
#include "core/error.h"

namespace granite::coordinator {
namespace {

// The traits of `sql` with `input_bytes` of input after its text.
StatementTraits Of(const std::string& sql, size_t input_bytes = 0, bool more_input = false) {
  return TraitsOf(sql::ParseStatement(sql), sql.size() + input_bytes, more_input);
}

TEST(StatementKindTest, SelectsOverTablesAreAdmitted) {
  EXPECT_TRUE(Of("SELECT count() FROM hits").admitted_select);
  EXPECT_TRUE(Of("select count() from numbers(10)").admitted_select);
  // The text sniffers judged these by their first word: a comment made them "other" queries.
  EXPECT_TRUE(Of("-- the daily report\nSELECT count() FROM hits").admitted_select);
  EXPECT_TRUE(Of("/* report */ SELECT count() FROM hits").admitted_select);
  EXPECT_TRUE(Of("  -- one\n/* two */\n\tselect count() from hits;").admitted_select);
  // ...and a word inside a string changed their kind.
  EXPECT_TRUE(Of("SELECT 'system.processes' FROM hits").admitted_select);
  EXPECT_FALSE(Of("SELECT 'from' AS x").admitted_select);
}

TEST(StatementKindTest, SelectsThatAreNotAdmitted) {
  StatementTraits system = Of("SELECT * FROM system.processes");
  EXPECT_TRUE(system.select);
  EXPECT_TRUE(system.lowered);
  EXPECT_FALSE(system.admitted_select);
  StatementTraits no_from = Of("SELECT 1");
  EXPECT_TRUE(no_from.select);
  EXPECT_FALSE(no_from.admitted_select);
  StatementTraits waits = Of("SELECT * FROM t SETTINGS queue_max_wait_ms = 10");
  EXPECT_TRUE(waits.select);
  EXPECT_FALSE(waits.admitted_select);
  EXPECT_TRUE(Of("SELECT * FROM t SETTINGS max_threads = 1").admitted_select);
  EXPECT_FALSE(Of("INSERT INTO t SELECT * FROM u").admitted_select);
  EXPECT_FALSE(Of("KILL QUERY WHERE query_id = 'x'").admitted_select);
  EXPECT_FALSE(Of("SHOW TABLES").admitted_select);
}

TEST(StatementKindTest, ParenthesisedSelectIsASelectIfItParses) {
  absl::StatusOr<sql::Statement> parsed = sql::ParseStatement("(SELECT count() FROM hits)");
  StatementTraits traits = TraitsOf(parsed, 26, false);
  if (parsed.ok()) {
    EXPECT_TRUE(traits.admitted_select);
  } else {
    // Not granite's syntax: it fails on the other executor with its SYNTAX_ERROR.
    EXPECT_FALSE(traits.admitted_select);
    EXPECT_FALSE(traits.lowered);
  }
}

TEST(StatementKindTest, ShortInserts) {
  StatementTraits values = Of("INSERT INTO t VALUES (1, 2)");
  EXPECT_TRUE(values.insert);
  EXPECT_TRUE(values.short_insert);
  EXPECT_FALSE(values.lowered);
  EXPECT_TRUE(Of(" insert into t FORMAT TabSeparated", 100).short_insert);
  // Its text and input together decide: at most kInlineInsertBytes.
  std::string sql = "INSERT INTO t FORMAT CSV";
  EXPECT_TRUE(Of(sql, kInlineInsertBytes - sql.size()).short_insert);
  StatementTraits long_input = Of(sql, kInlineInsertBytes - sql.size() + 1);
  EXPECT_FALSE(long_input.short_insert);
  EXPECT_TRUE(long_input.lowered);
  std::string rows = "INSERT INTO t VALUES ";
  while (rows.size() <= kInlineInsertBytes) rows += "(1, 'a'), ";
  rows += "(2, 'b')";
  StatementTraits long_values = Of(rows);
  EXPECT_TRUE(long_values.insert);
  EXPECT_FALSE(long_values.short_insert);
  EXPECT_TRUE(long_values.lowered);
  // More input to come: never short.
  StatementTraits streamed = Of("INSERT INTO t FORMAT CSV", 10, /*more_input=*/true);
  EXPECT_FALSE(streamed.short_insert);
  EXPECT_TRUE(streamed.lowered);
  // INSERT SELECT may read whole tables.
  StatementTraits insert_select = Of("INSERT INTO t SELECT * FROM u");
  EXPECT_TRUE(insert_select.insert);
  EXPECT_FALSE(insert_select.short_insert);
  EXPECT_TRUE(insert_select.lowered);
  EXPECT_FALSE(insert_select.select);
  // A string that says "select" is data, not a SELECT.
  EXPECT_TRUE(Of("INSERT INTO t VALUES ('select')").short_insert);
  EXPECT_TRUE(Of("/* load */ INSERT INTO t VALUES (1)").short_insert);
}

TEST(StatementKindTest, OtherStatementsRunAtNormalPriority) {
  for (const char* sql : {"CREATE TABLE t (x UInt8) ENGINE = MergeTree ORDER BY x",
                          "DROP TABLE t", "KILL QUERY WHERE query_id = 'q'", "SET max_threads = 1",
                          "SHOW TABLES"}) {
    StatementTraits traits = Of(sql);
    EXPECT_FALSE(traits.select) << sql;
    EXPECT_FALSE(traits.insert) << sql;
    EXPECT_FALSE(traits.lowered) << sql;
  }
}

TEST(StatementKindTest, ASyntaxErrorHasNoTraits) {
  absl::StatusOr<sql::Statement> parsed = sql::ParseStatement("SELECT count() FORM hits");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(core::CodeOf(parsed.status()), core::ErrorCode::kSyntaxError);
  StatementTraits traits = TraitsOf(parsed, 24, false);
  EXPECT_FALSE(traits.select);
  EXPECT_FALSE(traits.admitted_select);
  EXPECT_FALSE(traits.insert);
  EXPECT_FALSE(traits.lowered);
  EXPECT_FALSE(Of("INSERT INTO").insert);
}

}  // namespace
}  // namespace granite::coordinator
