#include "coordinator/server/stream_compression.h"

#include <string>

#include "core/error.h"
#include "gtest/gtest.h"

namespace granite::coordinator {
namespace {

std::string Sample() {
  std::string text;
  for (int i = 0; i < 50000; ++i) text += std::to_string(i * 7919 % 10007) + ",abc\n";
  return text;
}

// Compresses in uneven pieces and decompresses in other uneven pieces.
TEST(StreamCompressionTest, RoundTripsEveryMethod) {
  const std::string text = Sample();
  for (const char* method : {"gzip", "deflate", "lz4", "zstd", "GZIP"}) {
    auto compressor = MakeStreamCompressor(method, 0);
    ASSERT_TRUE(compressor.ok() && *compressor) << method;
    std::string packed;
    for (size_t at = 0; at < text.size(); at += 70001) {
      ASSERT_TRUE((*compressor)->Add(std::string_view(text).substr(at, 70001), &packed).ok());
    }
    ASSERT_TRUE((*compressor)->Finish(&packed).ok());
    EXPECT_LT(packed.size(), text.size() / 2) << method;
    auto decompressor = MakeStreamDecompressor(method);
    ASSERT_TRUE(decompressor.ok() && *decompressor) << method;
    std::string unpacked;
    for (size_t at = 0; at < packed.size(); at += 333) {
      ASSERT_TRUE((*decompressor)->Add(std::string_view(packed).substr(at, 333), &unpacked).ok())
          << method;
    }
    EXPECT_TRUE((*decompressor)->Finish().ok()) << method;
    EXPECT_EQ(unpacked, text) << method;
  }
}

TEST(StreamCompressionTest, NoneAndUnknown) {
  auto none = MakeStreamCompressor("none", 0);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
  auto unknown = MakeStreamCompressor("brotli", 0);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(core::CodeOf(unknown.status()), core::ErrorCode::kUnknownCompressionMethod);
  EXPECT_NE(unknown.status().message().find("brotli"), std::string_view::npos);
}

TEST(StreamCompressionTest, TruncatedAndCorruptInputFail) {
  for (const char* method : {"gzip", "lz4", "zstd"}) {
    auto compressor = MakeStreamCompressor(method, 0);
    std::string packed;
    ASSERT_TRUE((*compressor)->Add(Sample(), &packed).ok());
    ASSERT_TRUE((*compressor)->Finish(&packed).ok());
    auto decompressor = MakeStreamDecompressor(method);
    std::string unpacked;
    absl::Status status = (*decompressor)->Add(packed.substr(0, packed.size() / 2), &unpacked);
    if (status.ok()) status = (*decompressor)->Finish();
    EXPECT_EQ(core::CodeOf(status), core::ErrorCode::kCannotDecompress) << method;
  }
  auto garbage = MakeStreamDecompressor("zstd");
  std::string out;
  EXPECT_EQ(core::CodeOf((*garbage)->Add("definitely not zstd", &out)),
            core::ErrorCode::kCannotDecompress);
}

}  // namespace
}  // namespace granite::coordinator
