// LEB128 variable-length unsigned integers for serialized aggregate states (uniqExact, uniq).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace granite::core {

// Appends `value` as LEB128 (7 bits per byte, low bits first).
inline void PutVarint64(std::string* out, uint64_t value) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

// Reads a LEB128 value from the front of `in` and advances it. Returns false on truncated or
// over-long input (more than 10 bytes).
inline bool GetVarint64(std::string_view* in, uint64_t* value) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64 && !in->empty(); shift += 7) {
    auto byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

}  // namespace granite::core
