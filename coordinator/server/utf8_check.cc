#include "coordinator/server/utf8_check.h"

#include <cstdint>

namespace granite::coordinator {

std::optional<size_t> FirstInvalidUtf8Byte(std::string_view text) {
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const uint8_t lead = static_cast<uint8_t>(text[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    // Length and the allowed range of the second byte (the rest are 0x80..0xBF), per lead byte
    // (RFC 3629, table 3-7 of the Unicode standard).
    size_t length = 0;
    uint8_t low = 0x80, high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;   // overlong
      if (lead == 0xED) high = 0x9F;  // surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;   // overlong
      if (lead == 0xF4) high = 0x8F;  // past U+10FFFF
    } else {
      return i;
    }
    if (i + length > n) return i;
    const uint8_t second = static_cast<uint8_t>(text[i + 1]);
    if (second < low || second > high) return i;
    for (size_t k = 2; k < length; ++k) {
      const uint8_t next = static_cast<uint8_t>(text[i + k]);
      if (next < 0x80 || next > 0xBF) return i;
    }
    i += length;
  }
  return std::nullopt;
}

}  // namespace granite::coordinator
