#include "core/block_codec.h"

#include <gtest/gtest.h>

namespace granite::core {
namespace {

TEST(BlockCodecTest, RoundTripsFixedAndStringColumns) {
  auto numbers = std::make_shared<Column>(TypeId::kUInt64);
  auto names = std::make_shared<Column>(TypeId::kString);
  for (uint64_t i = 0; i < 1000; ++i) {
    numbers->Append<uint64_t>(i * 7);
    names->AppendString(std::string(i % 13, 'x'));
  }
  Block block;
  block.columns = {numbers, names};
  std::string raw = EncodeBlock(block);
  std::string packed = CompressLz4(raw);
  auto unpacked = DecompressLz4(packed, raw.size());
  ASSERT_TRUE(unpacked.ok());
  auto decoded = DecodeBlock(*unpacked);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->rows(), 1000u);
  EXPECT_EQ(decoded->columns[0]->Get<uint64_t>(999), 999u * 7);
  EXPECT_EQ(decoded->columns[1]->StringAt(12), std::string(12, 'x'));
}

TEST(BlockCodecTest, RejectsTruncatedInput) {
  auto numbers = std::make_shared<Column>(TypeId::kUInt32);
  numbers->Append<uint32_t>(5);
  Block block;
  block.columns = {numbers};
  std::string raw = EncodeBlock(block);
  EXPECT_FALSE(DecodeBlock(raw.substr(0, raw.size() - 1)).ok());
  EXPECT_FALSE(DecompressLz4("garbage", 100).ok());
}

}  // namespace
}  // namespace granite::core
