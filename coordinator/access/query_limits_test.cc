#include "coordinator/access/query_limits.h"

#include <gtest/gtest.h>

#include "coordinator/access/current_user.h"
#include "coordinator/sql/parser.h"
#include "core/error.h"

namespace granite::coordinator::access {
namespace {

core::Block Numbers(size_t n) {
  auto column = std::make_shared<core::Column>(core::TypeId::kUInt64);
  for (size_t i = 0; i < n; ++i) column->Append<uint64_t>(i);
  core::Block block;
  block.columns.push_back(column);
  return block;
}

TEST(QueryLimitsTest, QuerySizeIgnoresInlineInsertData) {
  core::Settings settings;
  settings.max_query_size = 30;
  std::string long_select = "SELECT '" + std::string(40, 'x') + "'";
  auto status = CheckQuerySize(long_select, sql::ParseStatement(long_select), settings);
  EXPECT_EQ(core::CodeOf(status), core::ErrorCode::kSyntaxError);
  EXPECT_NE(std::string(status.message()).find("Max query size exceeded"), std::string::npos);
  std::string insert = "INSERT INTO t FORMAT CSV\n" + std::string(100, '1');
  EXPECT_TRUE(CheckQuerySize(insert, sql::ParseStatement(insert), settings).ok());
  settings.max_query_size = 0;
  EXPECT_TRUE(CheckQuerySize(long_select, sql::ParseStatement(long_select), settings).ok());
}

TEST(QueryLimitsTest, ReadLimits) {
  core::Settings settings;
  EXPECT_TRUE(CheckReadLimits(settings, 1 << 30, 1ull << 40).ok());
  settings.max_rows_to_read = 100;
  EXPECT_TRUE(CheckReadLimits(settings, 100, 1).ok());
  EXPECT_EQ(core::CodeOf(CheckReadLimits(settings, 101, 1)), core::ErrorCode::kTooManyRows);
  settings.max_bytes_to_read = 800;
  EXPECT_EQ(core::CodeOf(CheckReadLimits(settings, 1, 801)), core::ErrorCode::kTooManyBytes);
}

TEST(QueryLimitsTest, ResultLimitsThrowOrBreak) {
  core::Settings settings;
  settings.max_result_rows = 10;
  core::Block block = Numbers(100);
  bool cut = false;
  EXPECT_EQ(core::CodeOf(ApplyResultLimits(settings, &block, &cut)),
            core::ErrorCode::kTooManyRowsOrBytes);
  ASSERT_TRUE(settings.Set("result_overflow_mode", "break").ok());
  EXPECT_TRUE(ApplyResultLimits(settings, &block, &cut).ok());
  EXPECT_TRUE(cut);
  EXPECT_EQ(block.rows(), 10u);
  settings.max_result_rows = 0;
  settings.max_result_bytes = 40;  // 5 UInt64 values
  EXPECT_TRUE(ApplyResultLimits(settings, &block, &cut).ok());
  EXPECT_EQ(block.rows(), 5u);
  ASSERT_TRUE(settings.Set("result_overflow_mode", "throw").ok());
  EXPECT_EQ(core::CodeOf(ApplyResultLimits(settings, &block, &cut)), core::ErrorCode::kOk);
  settings.max_result_bytes = 39;
  EXPECT_EQ(core::CodeOf(ApplyResultLimits(settings, &block, &cut)),
            core::ErrorCode::kTooManyRowsOrBytes);
}

// A result streamed block by block: the limits count the blocks before, and a block past a
// 'break' limit is emptied (a regression: slicing it to 0 rows kept it whole).
TEST(QueryLimitsTest, ResultLimitsCountTheBlocksBefore) {
  core::Settings settings;
  settings.max_result_rows = 10;
  core::Block block = Numbers(4);
  bool cut = false;
  EXPECT_EQ(core::CodeOf(ApplyResultLimits(settings, &block, &cut, 8, 64)),
            core::ErrorCode::kTooManyRowsOrBytes);
  ASSERT_TRUE(settings.Set("result_overflow_mode", "break").ok());
  EXPECT_TRUE(ApplyResultLimits(settings, &block, &cut, 8, 64).ok());
  EXPECT_TRUE(cut);
  EXPECT_EQ(block.rows(), 2u);
  block = Numbers(4);
  EXPECT_TRUE(ApplyResultLimits(settings, &block, &cut, 10, 80).ok());
  EXPECT_TRUE(cut);
  EXPECT_EQ(block.rows(), 0u);
  settings.max_result_rows = 0;
  settings.max_result_bytes = 40;
  block = Numbers(4);
  EXPECT_TRUE(ApplyResultLimits(settings, &block, &cut, 3, 24).ok());
  EXPECT_EQ(block.rows(), 2u);  // 16 bytes of room: two UInt64 values
}

TEST(CurrentUserTest, ReplacesCallsWithTheName) {
  auto statement = sql::ParseStatement("SELECT currentUser(), USER() AS u, length(user()) "
                                       "FROM t WHERE currentUser() = 'x'");
  ASSERT_TRUE(statement.ok());
  auto bound = BindCurrentUser(*statement, "currentUser user", "alice");
  ASSERT_TRUE(bound.has_value());
  const auto& select = std::get<sql::SelectStatement>(*bound);
  EXPECT_EQ(select.select[0]->kind, sql::ExprKind::kLiteral);
  EXPECT_EQ(std::get<std::string>(select.select[0]->value), "alice");
  EXPECT_EQ(select.select[0]->alias, "currentUser()");
  EXPECT_EQ(select.select[1]->alias, "u");
  EXPECT_EQ(select.select[2]->args[0]->kind, sql::ExprKind::kLiteral);
  EXPECT_EQ(select.where->args[0]->kind, sql::ExprKind::kLiteral);
  // The original tree is untouched (copy on write).
  EXPECT_EQ(std::get<sql::SelectStatement>(*statement).select[2]->args[0]->kind,
            sql::ExprKind::kFunction);
  auto plain = sql::ParseStatement("SELECT 1");
  EXPECT_FALSE(BindCurrentUser(*plain, "SELECT 1", "alice").has_value());
}

}  // namespace
}  // namespace granite::coordinator::access
