#include "coordinator/server/utf8_check.h"

#include <string>

#include "gtest/gtest.h"

namespace granite::coordinator {
namespace {

TEST(Utf8CheckTest, AcceptsWellFormedText) {
  EXPECT_EQ(FirstInvalidUtf8Byte(""), std::nullopt);
  EXPECT_EQ(FirstInvalidUtf8Byte("SELECT 1"), std::nullopt);
  EXPECT_EQ(FirstInvalidUtf8Byte("SELECT 'h\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80'"), std::nullopt);
  EXPECT_EQ(FirstInvalidUtf8Byte("\xF4\x8F\xBF\xBF"), std::nullopt);  // U+10FFFF
}

TEST(Utf8CheckTest, NamesTheFirstBadByte) {
  EXPECT_EQ(FirstInvalidUtf8Byte("SELECT '\xFF'"), 8u);
  EXPECT_EQ(FirstInvalidUtf8Byte("ab\x80"), 2u);            // a lone continuation byte
  EXPECT_EQ(FirstInvalidUtf8Byte("ab\xC3"), 2u);            // truncated at the end
  EXPECT_EQ(FirstInvalidUtf8Byte("\xC3(x"), 0u);            // bad continuation
  EXPECT_EQ(FirstInvalidUtf8Byte("x\xC0\xAF"), 1u);         // overlong '/'
  EXPECT_EQ(FirstInvalidUtf8Byte("\xE0\x80\xAF"), 0u);      // overlong, 3 bytes
  EXPECT_EQ(FirstInvalidUtf8Byte("\xED\xA0\x80"), 0u);      // a surrogate
  EXPECT_EQ(FirstInvalidUtf8Byte("\xF4\x90\x80\x80"), 0u);  // past U+10FFFF
  EXPECT_EQ(FirstInvalidUtf8Byte("\xE2\x82\xAC\xF5"), 3u);  // after a good one
  EXPECT_EQ(FirstInvalidUtf8Byte(std::string("a\0\xFE", 3)), 2u);
}

}  // namespace
}  // namespace granite::coordinator
