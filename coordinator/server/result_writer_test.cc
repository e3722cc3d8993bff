// Tests of the result writer: a streamed result's first rows leave at once, a whole one's wait;
// result_overflow_mode 'throw' fails after the rows already sent; Progress increments add up;
// extremes go to the output or to Result.extremes.
#include "coordinator/server/result_writer.h"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "core/error.h"

namespace granite::coordinator {
namespace {

using core::TypeId;
namespace ch = clickhouse::grpc;

core::Block Numbers(uint64_t from, uint64_t rows) {
  auto column = std::make_shared<core::Column>(TypeId::kUInt64);
  for (uint64_t i = from; i < from + rows; ++i) column->Append<uint64_t>(i);
  core::Block block;
  block.columns = {column};
  block.rows_without_columns = rows;
  return block;
}

class ResultWriterTest : public ::testing::Test {
 protected:
  ResultWriter& Writer(bool extremes_in_output = false) {
    writer_.emplace(settings_, "TabSeparated", false, nullptr, &emit_, &query_, &last_,
                    extremes_in_output);
    EXPECT_TRUE(writer_->Begin({"n"}, {TypeId::kUInt64}, "").ok());
    return *writer_;
  }

  core::Settings settings_;
  QueryContext query_{"q"};
  ch::Result last_;
  std::vector<ch::Result> sent_;
  ResultWriter::Emit emit_ = [this](ch::Result& result) {
    sent_.push_back(result);
    return true;
  };
  std::optional<ResultWriter> writer_;
};

TEST_F(ResultWriterTest, StreamedFirstRowsLeaveAtOnceWholeOnesWait) {
  ResultWriter& writer = Writer();
  ASSERT_TRUE(writer.PushWhole(Numbers(0, 3)).ok());
  EXPECT_TRUE(sent_.empty());
  ASSERT_TRUE(writer.Finish(std::nullopt).ok());
  EXPECT_EQ(last_.output(), "0\n1\n2\n");
  EXPECT_EQ(last_.output_format(), "TabSeparated");

  last_.Clear();
  ResultWriter& streamed = Writer();
  ASSERT_TRUE(*streamed.Push(Numbers(0, 2)));
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0].output(), "0\n1\n");
  EXPECT_EQ(sent_[0].query_id(), "q");
  EXPECT_EQ(sent_[0].output_format(), "TabSeparated");
}

TEST_F(ResultWriterTest, ThrowFailsAfterTheRowsSent) {
  settings_.max_result_rows = 3;
  ResultWriter& writer = Writer();
  ASSERT_TRUE(*writer.Push(Numbers(0, 2)));
  absl::StatusOr<bool> second = writer.Push(Numbers(2, 2));
  EXPECT_EQ(core::CodeOf(second.status()), core::ErrorCode::kTooManyRowsOrBytes);
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0].output(), "0\n1\n");
}

TEST_F(ResultWriterTest, ProgressIncrementsAddUp) {
  ResultWriter& writer = Writer();
  query_.read_rows = 10;
  query_.total_rows_to_read = 100;
  ASSERT_TRUE(*writer.Push(Numbers(0, 1)));
  query_.read_rows = 100;
  ASSERT_TRUE(writer.Finish(std::nullopt).ok());
  writer.FillProgress(last_.mutable_progress());
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0].progress().read_rows(), 10u);
  EXPECT_EQ(sent_[0].progress().total_rows_to_read(), 100u);
  EXPECT_EQ(last_.progress().read_rows(), 90u);
  EXPECT_EQ(last_.progress().total_rows_to_read(), 0u);
  ch::Progress sum;
  AddProgress(sent_[0].progress(), &sum);
  AddProgress(last_.progress(), &sum);
  EXPECT_EQ(sum.read_rows(), 100u);
}

TEST_F(ResultWriterTest, ExtremesInResultFieldOrOutput) {
  settings_.extremes = true;
  ResultWriter& grpc = Writer();
  ASSERT_TRUE(grpc.PushWhole(Numbers(5, 3)).ok());
  ASSERT_TRUE(grpc.PushWhole(Numbers(1, 2)).ok());
  ASSERT_TRUE(grpc.Finish(std::nullopt).ok());
  EXPECT_EQ(last_.output(), "5\n6\n7\n1\n2\n");
  EXPECT_EQ(last_.extremes(), "1\n7\n");

  last_.Clear();
  ResultWriter& http = Writer(/*extremes_in_output=*/true);
  ASSERT_TRUE(http.PushWhole(Numbers(5, 3)).ok());
  ASSERT_TRUE(http.Finish(std::nullopt).ok());
  EXPECT_EQ(last_.output(), "5\n6\n7\n\n5\n7\n");
  EXPECT_EQ(last_.extremes(), "");
}

}  // namespace
}  // namespace granite::coordinator
