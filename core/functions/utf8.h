// UTF-8 decoding and encoding for the *UTF8 string functions (lengthUTF8, lowerUTF8,
// substringUTF8, ...). Invalid bytes count as one code point each, as in ClickHouse.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace granite::core {

// Returns the byte length of the code point starting with byte `c` (1 for an invalid lead byte).
inline size_t Utf8SequenceLength(unsigned char c) {
  if (c < 0x80) return 1;
  if (c >= 0xF0 && c < 0xF8) return 4;
  if (c >= 0xE0) return c < 0xF0 ? 3 : 1;
  if (c >= 0xC0) return 2;
  return 1;
}

// Decodes the code point at s[*pos] and advances *pos; an invalid or truncated sequence yields
// its first byte's value and advances by one.
inline uint32_t DecodeUtf8(std::string_view s, size_t* pos) {
  const auto c = static_cast<unsigned char>(s[*pos]);
  const size_t n = Utf8SequenceLength(c);
  if (n == 1 || *pos + n > s.size()) {
    ++*pos;
    return c;
  }
  uint32_t cp = n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[*pos + k]);
    if ((b & 0xC0) != 0x80) {
      ++*pos;
      return c;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  *pos += n;
  return cp;
}

inline void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Returns the number of code points.
inline size_t Utf8Length(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++n) i += Utf8SequenceLength(static_cast<unsigned char>(s[i]));
  return n;
}

// Returns the byte offset of code point `index` (s.size() when past the end).
inline size_t Utf8Offset(std::string_view s, size_t index) {
  size_t i = 0;
  for (size_t k = 0; k < index && i < s.size(); ++k) {
    i += Utf8SequenceLength(static_cast<unsigned char>(s[i]));
  }
  return i < s.size() ? i : s.size();
}

// Simple case mapping of the Latin, Greek and Cyrillic letters (ClickHouse maps by code point
// too, without locale rules such as final sigma).
uint32_t LowerCodePoint(uint32_t cp);
uint32_t UpperCodePoint(uint32_t cp);

}  // namespace granite::core
