// Counting the rows a filter mask keeps: one byte per row, 0 or 1 (other non-zero bytes count as
// kept too, a byte at a time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace granite::core {

// Returns the number of non-zero bytes of mask[0, rows): 32 at a time. The four words' bytes are
// added lane-wise (each lane <= 4) and the lanes summed with one multiply: no popcount, which
// without -mpopcnt is a libgcc call per word, and no widening of each byte to a 64-bit counter
// (std::count's vectorized form).
inline size_t CountNonZero(const uint8_t* mask, size_t rows) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  size_t kept = 0;
  size_t i = 0;
  for (; i + 32 <= rows; i += 32) {
    uint64_t w[4];
    std::memcpy(w, mask + i, 32);
    if (((w[0] | w[1] | w[2] | w[3]) & ~kOnes) == 0) {
      kept += static_cast<size_t>(((w[0] + w[1] + w[2] + w[3]) * kOnes) >> 56);
    } else {
      for (size_t j = i; j < i + 32; ++j) kept += mask[j] != 0;
    }
  }
  for (; i < rows; ++i) kept += mask[i] != 0;
  return kept;
}

// Writes the indices of the non-zero bytes of mask[0, rows) to selection[0, kept) without a
// branch per row. REQUIRES: kept == CountNonZero(mask, rows); selection holds kept entries.
inline void SelectNonZero(const uint8_t* mask, size_t rows, size_t kept, uint32_t* selection) {
  if (kept == 0) return;
  size_t n = 0;
  for (size_t r = 0; r < rows; ++r) {
    selection[n] = static_cast<uint32_t>(r);
    n += mask[r] != 0;
    if (n == kept) break;
  }
}

}  // namespace granite::core
