// Tests of what a worker sends while a scan runs: projected rows in chunks once a thread holds
// kRowsPerChunk of them, the rest at the end, stopping at the LIMIT (RowStreamer); the rows to
// read first and increments of rows read that add up with the final chunk's (ScanProgress).
#include "worker/row_streamer.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/functions/expr_builder.h"
#include "worker/scan_progress.h"

namespace granite::worker {
namespace {

namespace plan = granite::core::plan;
using core::TypeId;

core::Block Numbers(uint64_t rows) {
  auto column = std::make_shared<core::Column>(TypeId::kUInt64);
  for (uint64_t i = 0; i < rows; ++i) column->Append<uint64_t>(i);
  core::Block block;
  block.columns = {column};
  block.rows_without_columns = rows;
  return block;
}

plan::Fragment Projection(uint64_t limit) {
  plan::Fragment fragment;
  fragment.scan.columns = {"number"};
  fragment.scan.function = plan::TableFunctionCall{"numbers", {1000000}};
  fragment.projections.push_back(core::Col(0, TypeId::kUInt64));
  fragment.limit = limit;
  return fragment;
}

class RowStreamerTest : public ::testing::Test {
 protected:
  SerialSink::Sink sink_ = [this](plan::ResultChunk&& chunk) {
    chunks_.push_back(std::move(chunk));
    return true;
  };
  SerialSink serial_{&sink_};
  std::vector<plan::ResultChunk> chunks_;
};

TEST_F(RowStreamerTest, SendsFullChunksThenTheRest) {
  plan::Fragment fragment = Projection(0);
  auto pipeline = core::FragmentPipeline::Compile(fragment);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  auto streamer =
      RowStreamer::Plan(fragment, **pipeline, false, core::WireCompression::kNone, &serial_);
  ASSERT_NE(streamer, nullptr);
  auto state = (*pipeline)->NewLocalState();
  ASSERT_TRUE(state.ok());
  (*state)->blocks.push_back(Numbers(1000));
  ASSERT_TRUE(streamer->Drain(**state, /*flush=*/false).ok());
  EXPECT_TRUE(chunks_.empty());  // fewer than kRowsPerChunk rows: held
  (*state)->blocks.push_back(Numbers(RowStreamer::kRowsPerChunk));
  ASSERT_TRUE(streamer->Drain(**state, /*flush=*/false).ok());
  ASSERT_EQ(chunks_.size(), 2u);  // 1000 + 65536 rows: one full chunk and the 1000 left
  EXPECT_EQ(chunks_[0].block.rows, RowStreamer::kRowsPerChunk);
  EXPECT_EQ(chunks_[1].block.rows, 1000u);
  EXPECT_TRUE((*state)->blocks.empty());
  ASSERT_TRUE(streamer->Drain(**state, /*flush=*/true).ok());
  EXPECT_EQ(chunks_.size(), 2u);  // nothing left to send
}

TEST_F(RowStreamerTest, StopsAtTheLimit) {
  plan::Fragment fragment = Projection(10);
  auto pipeline = core::FragmentPipeline::Compile(fragment);
  ASSERT_TRUE(pipeline.ok());
  auto streamer =
      RowStreamer::Plan(fragment, **pipeline, false, core::WireCompression::kNone, &serial_);
  auto state = (*pipeline)->NewLocalState();
  (*state)->blocks.push_back(Numbers(10));
  ASSERT_TRUE(streamer->Drain(**state, /*flush=*/true).ok());
  EXPECT_FALSE(streamer->enough());
  (*state)->blocks.push_back(Numbers(10));
  ASSERT_TRUE(streamer->Drain(**state, /*flush=*/true).ok());
  EXPECT_TRUE(streamer->enough());
  EXPECT_EQ(chunks_.size(), 1u);
}

TEST_F(RowStreamerTest, OrderedRowsAreNotStreamed) {
  plan::Fragment fragment = Projection(10);
  fragment.order_by.push_back({.column = 0});
  auto pipeline = core::FragmentPipeline::Compile(fragment);
  ASSERT_TRUE(pipeline.ok());
  EXPECT_EQ(RowStreamer::Plan(fragment, **pipeline, false, core::WireCompression::kNone,
                              &serial_),
            nullptr);
}

TEST_F(RowStreamerTest, ProgressIncrementsAddUpWithTheFinalChunk) {
  ScanProgress progress(&serial_);
  ASSERT_TRUE(progress.Start(5000));
  ASSERT_EQ(chunks_.size(), 1u);
  EXPECT_EQ(chunks_[0].kind, plan::ResultChunk::Kind::kStats);
  EXPECT_EQ(chunks_[0].stats.rows_to_read, 5000u);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(progress.Note(100, 800));
  uint64_t rows = progress.UnsentRows(5000);
  uint64_t bytes = progress.UnsentBytes(40000);
  for (const plan::ResultChunk& chunk : chunks_) {
    rows += chunk.stats.read_rows;
    bytes += chunk.stats.read_bytes;
  }
  EXPECT_EQ(rows, 5000u);  // however many increments the clock let out
  EXPECT_EQ(bytes, 40000u);
}

}  // namespace
}  // namespace granite::worker
