// A small, fully specified pseudo-random generator (SplitMix64) for the data generators in tools/.
// Every draw is defined here in integer arithmetic (plus exactly rounded double products), so the
// same seed gives the same bytes with any compiler and standard library — unlike
// std::uniform_*_distribution, whose algorithms are implementation-defined.
#pragma once

#include <cstdint>

namespace granite::tools {

// Returns the SplitMix64 finalizer of x: a bijective 64-bit mix in which every input bit affects
// every output bit. Used to derive stable per-entity values (a user's region, a page's title).
inline uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Mixes two values into one stable key (order matters).
inline uint64_t Mix64(uint64_t a, uint64_t b) { return Mix64(Mix64(a) ^ (b * 0xd6e8feb86659fd93ULL)); }

// Generates a deterministic stream of 64-bit values from a seed.
// Thread-safety: none; use one instance per thread.
class SplitMixRng {
 public:
  explicit SplitMixRng(uint64_t seed) : state_(seed) {}

  // Returns the next 64 random bits.
  uint64_t Next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  // Returns a value in [0, n) by multiply-shift (bias below 2^-40 for the n used here).
  // REQUIRES: n > 0.
  uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64);
  }

  // Returns a value in [lo, hi]. REQUIRES: lo <= hi.
  int64_t Between(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Below(static_cast<uint64_t>(hi - lo) + 1));
  }

  // Returns a double in [0, 1) with 53 random bits.
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // Returns true with probability p.
  bool Chance(double p) { return Unit() < p; }

 private:
  uint64_t state_;
};

}  // namespace granite::tools
