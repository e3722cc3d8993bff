// The micro-benchmarks' pseudo-random numbers: Marsaglia's xorshift64, seeded by the caller, so
// every run of a benchmark sees the same input.
#pragma once

#include <cstdint>

namespace granite::bench {

// Advances `*state` and returns its new value. REQUIRES: *state != 0.
inline uint64_t Xorshift(uint64_t* state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

}  // namespace granite::bench
