#include "client/progress_line.h"

#include <sstream>

#include "gtest/gtest.h"

namespace granite::client {
namespace {

clickhouse::grpc::Progress Increment(uint64_t rows, uint64_t bytes, uint64_t total) {
  clickhouse::grpc::Progress progress;
  progress.set_read_rows(rows);
  progress.set_read_bytes(bytes);
  progress.set_total_rows_to_read(total);
  return progress;
}

TEST(ProgressLineTest, TextReadsLikeClickHouses) {
  EXPECT_EQ(ProgressLine::Text(12345678, 98760000, 100000000, 0.5),
            "Progress: 12.35 million rows, 98.76 MB (24.69 million rows/s., 197.52 MB/s.) 12%");
  EXPECT_EQ(ProgressLine::Text(999, 999, 0, 0), "Progress: 999 rows, 999 B");
}

TEST(ProgressLineTest, DrawsOnlyAfterTheDelayAndClears) {
  std::ostringstream err;
  const auto start = ProgressLine::Clock::time_point();
  ProgressLine line(&err, start);
  line.Add(Increment(10, 80, 100), start + std::chrono::milliseconds(100));
  line.Clear();
  EXPECT_EQ(err.str(), "");  // a short query draws nothing
  line.Add(Increment(40, 320, 0), start + std::chrono::seconds(1));
  EXPECT_EQ(err.str(), "\r\033[KProgress: 50 rows, 400 B (50 rows/s., 400 B/s.) 50%");
  line.Clear();
  EXPECT_EQ(err.str().substr(err.str().size() - 4), "\r\033[K");
}

}  // namespace
}  // namespace granite::client
