// Round trips of every codec chain over granules of every fixed-width type and String, with edge
// values (type minimum and maximum, NaN and infinities, empty and one-value granules, a Nullable
// null-map tail), plus the rejection of damaged blocks.
#include "storage/compression_codec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/codec_spec.h"

namespace granite::storage {
namespace {

using core::TypeId;

template <typename T>
std::string Bytes(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

// Values of T that stress each codec: extremes, steps that overflow, runs, noise.
template <typename T>
std::vector<T> EdgeValues() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {L::min(), L::max(), L::min(), T{0}, L::max(), L::lowest(), T{1}};
  if constexpr (std::is_floating_point_v<T>) {
    for (T x : {L::quiet_NaN(), L::infinity(), -L::infinity(), T{-0.0}, L::denorm_min(),
                L::quiet_NaN()}) {
      v.push_back(x);
    }
  }
  std::mt19937_64 random(7);
  for (int i = 0; i < 300; ++i) v.push_back(static_cast<T>(i * 3));        // steady steps
  for (int i = 0; i < 100; ++i) v.push_back(static_cast<T>(42));           // a run
  for (int i = 0; i < 300; ++i) {                                          // noise
    uint64_t bits = random();
    T x;
    std::memcpy(&x, &bits, sizeof(T));
    v.push_back(x);
  }
  v.push_back(L::max());
  v.push_back(L::min());
  return v;
}

void ExpectRoundTrip(const std::string& codec_text, TypeId type, const std::string& raw) {
  absl::StatusOr<core::CodecSpec> spec = core::ParseCodecSpec(codec_text, type, "c");
  ASSERT_TRUE(spec.ok()) << codec_text << ": " << spec.status();
  CompressionCodec codec(*spec);
  std::string block;
  ASSERT_TRUE(codec.Encode(raw, &block).ok()) << codec_text;
  std::string decoded(raw.size(), '\xee');
  ASSERT_TRUE(codec.Decode(block.data(), block.size(), decoded.data(), decoded.size()))
      << codec_text << " on " << core::TypeName(type) << ", " << raw.size() << " bytes";
  ASSERT_TRUE(decoded == raw) << codec_text << " on " << core::TypeName(type);
  // A block never decodes to another size, and a cut block is refused, not overrun.
  if (!raw.empty()) {
    std::string bigger(raw.size() + 1, '\0');
    EXPECT_FALSE(codec.Decode(block.data(), block.size(), bigger.data(), bigger.size()))
        << codec_text;
    if (block.size() > 1) {
      std::string cut = block.substr(0, block.size() / 2);
      (void)codec.Decode(cut.data(), cut.size(), decoded.data(), decoded.size());
    }
  }
}

// Every chain that is valid for `type`, written as a user would.
std::vector<std::string> ChainsFor(TypeId type) {
  std::vector<std::string> chains = {"NONE", "LZ4", "LZ4HC", "LZ4HC(12)", "ZSTD",
                                     "ZSTD(1)", "ZSTD(22)", "ZSTD(-5)"};
  if (core::IsString(core::RemoveNullable(type))) return chains;
  for (const char* pre : {"Delta", "Delta(1)", "Delta(2)", "Delta(4)", "Delta(8)"}) {
    chains.push_back(std::string(pre) + ", LZ4");
    chains.push_back(std::string(pre) + ", ZSTD(1)");
  }
  chains.push_back("DoubleDelta");
  chains.push_back("DoubleDelta, LZ4");
  chains.push_back("Delta, DoubleDelta, ZSTD(3)");
  if (core::IsFloat(core::RemoveNullable(type))) {
    chains.push_back("Gorilla");
    chains.push_back("Gorilla, ZSTD(1)");
    chains.push_back("Gorilla(4), LZ4");
  } else {
    chains.push_back("T64");
    chains.push_back("T64, LZ4");
    chains.push_back("Delta, T64, ZSTD(1)");
  }
  return chains;
}

template <typename T>
void CheckType(TypeId type) {
  std::vector<T> values = EdgeValues<T>();
  const std::string all = Bytes(values);
  for (const std::string& chain : ChainsFor(type)) {
    ExpectRoundTrip(chain, type, "");                             // an empty granule
    ExpectRoundTrip(chain, type, all.substr(0, sizeof(T)));       // one row
    ExpectRoundTrip(chain, type, all.substr(0, 2 * sizeof(T)));   // two rows
    ExpectRoundTrip(chain, type, all.substr(0, 65 * sizeof(T)));  // just past a T64 block
    ExpectRoundTrip(chain, type, all);
    // Nullable(T): the values then one null-map byte per row, which no multiple of T's width.
    std::string nullable = all.substr(0, 33 * sizeof(T)) + std::string(33, '\x01');
    nullable[33 * sizeof(T) + 5] = 0;
    ExpectRoundTrip(chain, core::MakeNullable(type), nullable);
  }
}

TEST(CompressionCodecTest, EveryChainRoundTripsEveryFixedWidthType) {
  CheckType<uint8_t>(TypeId::kUInt8);
  CheckType<uint16_t>(TypeId::kUInt16);
  CheckType<uint32_t>(TypeId::kUInt32);
  CheckType<uint64_t>(TypeId::kUInt64);
  CheckType<int8_t>(TypeId::kInt8);
  CheckType<int16_t>(TypeId::kInt16);
  CheckType<int32_t>(TypeId::kInt32);
  CheckType<int64_t>(TypeId::kInt64);
  CheckType<float>(TypeId::kFloat32);
  CheckType<double>(TypeId::kFloat64);
  CheckType<uint16_t>(TypeId::kDate);
  CheckType<uint32_t>(TypeId::kDateTime);
  CheckType<int64_t>(core::MakeDecimal(18, 4));
}

TEST(CompressionCodecTest, StringGranulesRoundTrip) {
  // A String granule: u32 lengths, then the characters.
  std::string raw;
  std::string chars;
  for (int i = 0; i < 500; ++i) {
    std::string value = i % 7 == 0 ? "" : "https://example.test/page/" + std::to_string(i % 37);
    uint32_t length = static_cast<uint32_t>(value.size());
    raw.append(reinterpret_cast<const char*>(&length), 4);
    chars += value;
  }
  raw += chars;
  for (const std::string& chain : ChainsFor(TypeId::kString)) {
    ExpectRoundTrip(chain, TypeId::kString, raw);
    ExpectRoundTrip(chain, TypeId::kString, raw.substr(0, 4));
  }
}

TEST(CompressionCodecTest, PreprocessingMakesSortedIntegersSmaller) {
  std::vector<uint64_t> values;
  for (uint64_t i = 0; i < 8192; ++i) values.push_back(1'600'000'000'000ull + i * 1000 + (i % 3));
  const std::string raw = Bytes(values);
  auto size = [&](const char* text) {
    CompressionCodec codec(*core::ParseCodecSpec(text, TypeId::kUInt64, "c"));
    std::string block;
    EXPECT_TRUE(codec.Encode(raw, &block).ok());
    return block.size();
  };
  EXPECT_LT(size("DoubleDelta"), raw.size() / 4);
  EXPECT_LT(size("Delta, ZSTD(1)"), size("ZSTD(1)"));
  EXPECT_LT(size("T64, LZ4"), raw.size() / 2);
}

TEST(CompressionCodecTest, PlainLz4IsThePreCodecBlockFormat) {
  // Parts from before codecs hold bare LZ4 blocks; CompressionCodec::Lz4() must write and read
  // exactly those, and only LZ4 / LZ4HC blocks allow a partial (length prefix) decode.
  std::string raw(10000, 'a');
  std::string block;
  ASSERT_TRUE(CompressionCodec::Lz4().Encode(raw, &block).ok());
  std::string decoded(raw.size(), '\0');
  ASSERT_TRUE(CompressionCodec::Lz4().Decode(block.data(), block.size(), decoded.data(),
                                             decoded.size()));
  EXPECT_EQ(decoded, raw);
  EXPECT_TRUE(CompressionCodec::Lz4().is_lz4_block());
  EXPECT_TRUE(CompressionCodec(*core::ParseCodecSpec("LZ4HC(3)", TypeId::kString, "s"))
                  .is_lz4_block());
  EXPECT_FALSE(CompressionCodec(*core::ParseCodecSpec("ZSTD", TypeId::kString, "s"))
                   .is_lz4_block());
}

TEST(CompressionCodecTest, DefaultCodecIsValidForEveryType) {
  for (TypeId type : {TypeId::kUInt8, TypeId::kUInt64, TypeId::kInt32, TypeId::kFloat32,
                      TypeId::kFloat64, TypeId::kString, TypeId::kDate, TypeId::kDateTime,
                      core::MakeDecimal(38, 2), core::MakeNullable(TypeId::kString),
                      core::MakeNullable(TypeId::kInt64), core::MakeNullable(TypeId::kDate),
                      core::MakeFixedString(3), TypeId::kUUID}) {
    core::CodecSpec spec = CompressionCodec::DefaultSpec(type);
    absl::StatusOr<core::CodecSpec> parsed = core::ParseCodecSpec(spec.ToString(), type, "c");
    ASSERT_TRUE(parsed.ok()) << core::TypeName(type) << ": " << parsed.status();
    EXPECT_EQ(*parsed, spec);
  }
}

}  // namespace
}  // namespace granite::storage
