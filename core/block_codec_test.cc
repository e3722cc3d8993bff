#include "core/block_codec.h"

#include <gtest/gtest.h>

#include "core/time_zone.h"

#include <random>

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

// Bool, UUID, DateTime64(p) and FixedString(N) keep their type ids (with parameters) and values.
TEST(BlockCodecTest, RoundTripsBoolUuidDateTime64AndFixedString) {
  auto flags = std::make_shared<Column>(TypeId::kBool);
  auto ids = std::make_shared<Column>(MakeNullable(TypeId::kUUID));
  auto times = std::make_shared<Column>(MakeDateTime64(6, kUtcTimeZone));
  auto codes = std::make_shared<Column>(MakeFixedString(3));
  for (uint64_t i = 0; i < 100; ++i) {
    flags->Append<uint8_t>(i % 2);
    if (i % 7 == 0) {
      ids->AppendNull();
    } else {
      ids->Append((static_cast<UnsignedInt128>(i) << 64) | ~i);
    }
    times->Append<int64_t>(static_cast<int64_t>(i) * 1000001 - 50);
    codes->AppendString(std::string(1, static_cast<char>('a' + i % 26)) + std::string(2, '\0'));
  }
  Block block;
  block.columns = {flags, ids, times, codes};
  absl::StatusOr<Block> decoded = DecodeBlock(EncodeBlock(block));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->rows(), 100u);
  EXPECT_EQ(decoded->columns[0]->logical_type(), TypeId::kBool);
  EXPECT_EQ(decoded->columns[1]->logical_type(), MakeNullable(TypeId::kUUID));
  EXPECT_EQ(decoded->columns[2]->logical_type(), MakeDateTime64(6, kUtcTimeZone));
  EXPECT_EQ(decoded->columns[3]->logical_type(), MakeFixedString(3));
  EXPECT_EQ(decoded->columns[0]->Get<uint8_t>(3), 1);
  EXPECT_TRUE(decoded->columns[1]->IsNullAt(14));
  EXPECT_EQ(decoded->columns[1]->Get<UnsignedInt128>(15), (static_cast<UnsignedInt128>(15) << 64) | ~uint64_t{15});
  EXPECT_EQ(decoded->columns[2]->Get<int64_t>(0), -50);
  EXPECT_EQ(decoded->columns[3]->StringAt(27), std::string("b\0\0", 3));
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

// String offsets from a peer must rise and end at the chars' size: decreasing offsets would make
// a value start past its end or outside the chars (found by fuzz/block_codec_fuzzer.cc).
TEST(BlockCodecTest, RejectsStringOffsetsThatDoNotRise) {
  auto strings = std::make_shared<Column>(TypeId::kString);
  strings->AppendString("ab");
  strings->AppendString("c");
  strings->AppendString("d");
  Block block;
  block.columns = {strings};
  std::string raw = EncodeBlock(block);
  ASSERT_TRUE(DecodeBlock(raw).ok());
  // Header (16 bytes), type (1), then offsets 2, 3, 4: make the first 5 (> the second).
  std::string bad = raw;
  bad[17] = 5;
  absl::StatusOr<Block> decoded = DecodeBlock(bad);
  EXPECT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("string offsets"), std::string_view::npos);
  // Chars without rows are malformed too.
  std::string empty = EncodeBlock(Block{{std::make_shared<Column>(TypeId::kString)}});
  empty.replace(17, 8, std::string("\x01\0\0\0\0\0\0\0", 8));
  empty += "x";
  EXPECT_FALSE(DecodeBlock(empty).ok());
}

// Wire data: 'none' sends the raw dump, 'lz4' compresses when it shrinks the data and sends
// incompressible data raw; the receiver decodes all three without being told which.
TEST(BlockCodecTest, WireDataIsRawOrLz4AndDecodesEitherWay) {
  auto repetitive = std::make_shared<Column>(TypeId::kUInt64);
  auto random = std::make_shared<Column>(TypeId::kUInt64);
  std::mt19937_64 rng(7);
  for (uint64_t i = 0; i < 5000; ++i) {
    repetitive->Append<uint64_t>(i % 3);
    random->Append<uint64_t>(rng());
  }
  for (const ColumnPtr& column : {repetitive, random}) {
    Block block;
    block.columns = {column};
    std::string raw = EncodeBlock(block);
    for (WireCompression method : {WireCompression::kLz4, WireCompression::kNone}) {
      std::string data = CompressForWire(raw, method);
      bool compressible = column == repetitive;
      if (method == WireCompression::kLz4 && compressible) {
        EXPECT_LT(data.size(), raw.size() / 4);
      } else {
        EXPECT_EQ(data, raw);  // 'none', or LZ4 would not shrink random values
      }
      auto decoded = DecodeWireBlock(data, raw.size());
      ASSERT_TRUE(decoded.ok()) << decoded.status();
      ASSERT_EQ(decoded->rows(), 5000u);
      for (size_t row : {size_t{0}, size_t{1234}, size_t{4999}}) {
        EXPECT_EQ(decoded->columns[0]->Get<uint64_t>(row), column->Get<uint64_t>(row));
      }
    }
  }
  // LZ4 output longer than the raw size (CompressLz4 of incompressible data) still decodes.
  Block block;
  block.columns = {random};
  std::string raw = EncodeBlock(block);
  std::string grown = CompressLz4(raw);
  ASSERT_GT(grown.size(), raw.size());
  auto decoded = DecodeWireBlock(grown, raw.size());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->columns[0]->Get<uint64_t>(77), random->Get<uint64_t>(77));
  EXPECT_FALSE(DecodeWireBlock("short", raw.size()).ok());
}

TEST(BlockCodecTest, ParsesNetworkCompressionMethod) {
  EXPECT_EQ(*ParseWireCompression("lz4"), WireCompression::kLz4);
  EXPECT_EQ(*ParseWireCompression("LZ4"), WireCompression::kLz4);
  EXPECT_EQ(*ParseWireCompression("none"), WireCompression::kNone);
  absl::StatusOr<WireCompression> bad = ParseWireCompression("zstd9");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("\"zstd9\""), std::string::npos)
      << bad.status();
}

}  // namespace
}  // namespace granite::core
