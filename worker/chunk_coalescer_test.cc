// ChunkCoalescer: the opening statistics go out with the next statistics chunk or before the
// next rows, the closing statistics with the status (a last-message write) — and every count
// arrives exactly once.
#include "worker/chunk_coalescer.h"

#include <gtest/gtest.h>

#include <vector>

namespace granite::worker {
namespace {

namespace pb = granite::worker::v1;
using core::plan::ResultChunk;

struct Sent {
  pb::FragmentChunk chunk;
  bool last = false;
  bool buffered = false;  // written with gRPC's buffer hint
};

class ChunkCoalescerTest : public ::testing::Test {
 protected:
  ChunkCoalescer::Write Recorder() {
    return [this](const pb::FragmentChunk& chunk, grpc::WriteOptions options) {
      sent_.push_back({chunk, options.is_last_message(), options.get_buffer_hint()});
      return !gone_;
    };
  }

  static ResultChunk Opening(uint64_t rows_to_read) {
    ResultChunk chunk;
    chunk.kind = ResultChunk::Kind::kStats;
    chunk.stats.rows_to_read = rows_to_read;
    return chunk;
  }
  static ResultChunk Progress(uint64_t read_rows) {
    ResultChunk chunk;
    chunk.kind = ResultChunk::Kind::kStats;
    chunk.stats.read_rows = read_rows;
    return chunk;
  }
  static ResultChunk Closing(uint64_t read_rows) {
    ResultChunk chunk = Progress(read_rows);
    chunk.stats.elapsed_us = 7;
    chunk.stats.parts_total = 2;
    return chunk;
  }
  static ResultChunk Rows(uint64_t rows) {
    ResultChunk chunk;
    chunk.kind = ResultChunk::Kind::kBlock;
    chunk.block.rows = rows;
    chunk.block.data = "x";
    return chunk;
  }

  static ResultChunk Bucket(uint32_t id, bool more_follow, bool last) {
    ResultChunk chunk;
    chunk.kind = ResultChunk::Kind::kBucket;
    chunk.bucket_id = id;
    chunk.more_follow = more_follow;
    chunk.last = last;
    chunk.block.rows = 1;
    chunk.block.data = "x";
    return chunk;
  }

  std::vector<Sent> sent_;
  bool gone_ = false;
};

TEST_F(ChunkCoalescerTest, BucketsOfOneWindowGoOutInOneSend) {
  ChunkCoalescer out(Recorder());
  ASSERT_TRUE(out.Add(Opening(100)));
  // Two windows: 3 buckets, then 2 (the worker's last).
  ASSERT_TRUE(out.Add(Bucket(0, true, false)));
  ASSERT_TRUE(out.Add(Bucket(5, true, false)));
  ASSERT_TRUE(out.Add(Bucket(9, false, false)));
  ASSERT_TRUE(out.Add(Bucket(17, true, false)));
  ASSERT_TRUE(out.Add(Bucket(200, false, true)));
  ASSERT_TRUE(out.Add(Closing(100)));
  ASSERT_TRUE(out.Finish(true));
  // The opening statistics, 5 buckets in order, the closing statistics with the status.
  ASSERT_EQ(sent_.size(), 7u);
  EXPECT_TRUE(sent_[0].chunk.has_stats());
  EXPECT_FALSE(sent_[0].buffered);
  std::vector<uint32_t> ids;
  std::vector<bool> buffered;
  for (size_t i = 1; i < 6; ++i) {
    ASSERT_TRUE(sent_[i].chunk.has_bucket());
    ids.push_back(sent_[i].chunk.bucket().id());
    buffered.push_back(sent_[i].buffered);
  }
  EXPECT_EQ(ids, (std::vector<uint32_t>{0, 5, 9, 17, 200}));
  // Held only while another bucket of the same window follows; each window ends unbuffered.
  EXPECT_EQ(buffered, (std::vector<bool>{true, true, false, true, false}));
  EXPECT_TRUE(sent_[6].last);
  EXPECT_FALSE(sent_[6].buffered);
}

TEST_F(ChunkCoalescerTest, NoRowsIsOneLastMessage) {
  ChunkCoalescer out(Recorder());
  ASSERT_TRUE(out.Add(Opening(100)));
  ASSERT_TRUE(out.Add(Closing(100)));
  EXPECT_TRUE(sent_.empty());  // both wait for the status
  ASSERT_TRUE(out.Finish(true));
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_TRUE(sent_[0].last);
  const pb::FragmentStats& stats = sent_[0].chunk.stats();
  EXPECT_EQ(stats.rows_to_read(), 100u);
  EXPECT_EQ(stats.read_rows(), 100u);
  EXPECT_EQ(stats.elapsed_us(), 7u);
  EXPECT_EQ(stats.parts_total(), 2u);
}

TEST_F(ChunkCoalescerTest, RowsGoOutAtOnceAfterTheOpeningStatistics) {
  ChunkCoalescer out(Recorder());
  ASSERT_TRUE(out.Add(Opening(100)));
  ASSERT_TRUE(out.Add(Rows(3)));
  // The rows are not held back: streamed rows reach the coordinator as they are produced.
  ASSERT_EQ(sent_.size(), 2u);
  EXPECT_EQ(sent_[0].chunk.stats().rows_to_read(), 100u);
  EXPECT_EQ(sent_[1].chunk.block().rows(), 3u);
  ASSERT_TRUE(out.Add(Closing(100)));
  EXPECT_EQ(sent_.size(), 2u);
  ASSERT_TRUE(out.Finish(true));
  ASSERT_EQ(sent_.size(), 3u);
  EXPECT_TRUE(sent_[2].last);
  EXPECT_EQ(sent_[2].chunk.stats().rows_to_read(), 0u);  // counted once, in the first message
  EXPECT_EQ(sent_[2].chunk.stats().read_rows(), 100u);
}

TEST_F(ChunkCoalescerTest, ProgressTakesTheOpeningCountsAndGoesOutAtOnce) {
  ChunkCoalescer out(Recorder());
  ASSERT_TRUE(out.Add(Opening(1000)));
  ASSERT_TRUE(out.Add(Progress(10)));
  ASSERT_EQ(sent_.size(), 1u);  // progress is never held: the client sees it while the scan runs
  EXPECT_EQ(sent_[0].chunk.stats().rows_to_read(), 1000u);
  EXPECT_EQ(sent_[0].chunk.stats().read_rows(), 10u);
  ASSERT_TRUE(out.Add(Progress(20)));
  ASSERT_EQ(sent_.size(), 2u);
  EXPECT_EQ(sent_[1].chunk.stats().rows_to_read(), 0u);
  ASSERT_TRUE(out.Add(Closing(970)));
  ASSERT_TRUE(out.Finish(true));
  ASSERT_EQ(sent_.size(), 3u);
  uint64_t read = 0, to_read = 0;
  for (const Sent& s : sent_) {
    read += s.chunk.stats().read_rows();
    to_read += s.chunk.stats().rows_to_read();
  }
  EXPECT_EQ(read, 1000u);
  EXPECT_EQ(to_read, 1000u);
}

TEST_F(ChunkCoalescerTest, AFailedFragmentSendsItsStatisticsBeforeTheError) {
  ChunkCoalescer out(Recorder());
  ASSERT_TRUE(out.Add(Opening(5)));
  ASSERT_TRUE(out.Finish(false));
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_FALSE(sent_[0].last);  // an ordinary write: the error status follows on its own
  EXPECT_EQ(sent_[0].chunk.stats().rows_to_read(), 5u);
}

TEST_F(ChunkCoalescerTest, AChunkAfterTheClosingStatisticsFollowsThem) {
  ChunkCoalescer out(Recorder());
  ASSERT_TRUE(out.Add(Closing(4)));  // the first chunk is the opening one, however it looks
  ASSERT_TRUE(out.Add(Closing(6)));
  ASSERT_TRUE(out.Add(Rows(1)));
  ASSERT_TRUE(out.Finish(true));
  ASSERT_EQ(sent_.size(), 2u);
  EXPECT_EQ(sent_[0].chunk.stats().read_rows(), 10u);
  EXPECT_EQ(sent_[1].chunk.block().rows(), 1u);
  EXPECT_FALSE(sent_[1].last);
}

TEST_F(ChunkCoalescerTest, AGoneReceiverIsReported) {
  ChunkCoalescer out(Recorder());
  gone_ = true;
  ASSERT_TRUE(out.Add(Opening(5)));  // held: nothing sent yet
  EXPECT_FALSE(out.Add(Rows(1)));
}

}  // namespace
}  // namespace granite::worker
