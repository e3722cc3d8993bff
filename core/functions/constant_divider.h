// ConstantDivider: divides unsigned 64-bit integers by a divisor fixed when a kernel is compiled
// (x % 10000, intDiv(x, 60)) with one 64x64->128 multiply and shifts instead of a hardware
// division, which costs 25-90 cycles on x86. The scheme is Granlund and Montgomery's "division by
// invariant integers using multiplication", in the form libdivide uses for uint64_t:
//   l = floor(log2(d)), m = floor(2^(64+l) / d) + 1 (65 bits when the "add" flag is set),
//   q = mulhi(m, n) >> l, or with the flag ((n - t) / 2 + t) >> l where t = mulhi(m, n).
#pragma once

#include <cstdint>

namespace granite::core {

// Thread-safety: immutable after construction.
class ConstantDivider {
 public:
  // REQUIRES: divisor != 0.
  explicit ConstantDivider(uint64_t divisor) : divisor_(divisor) {
    shift_ = 63 - __builtin_clzll(divisor);
    if ((divisor & (divisor - 1)) == 0) {
      power_of_two_ = true;
      return;
    }
    const unsigned __int128 numerator = static_cast<unsigned __int128>(1) << (64 + shift_);
    uint64_t m = static_cast<uint64_t>(numerator / divisor);
    const uint64_t remainder = static_cast<uint64_t>(numerator % divisor);
    if (divisor - remainder < (uint64_t{1} << shift_)) {
      add_ = false;
    } else {
      // The 65-bit multiplier: 2m (+1), its top bit handled by the add step.
      m += m;
      const uint64_t twice = remainder + remainder;
      if (twice >= divisor || twice < remainder) ++m;
      add_ = true;
    }
    magic_ = m + 1;
  }

  uint64_t divisor() const { return divisor_; }

  uint64_t Divide(uint64_t n) const {
    if (power_of_two_) return n >> shift_;
    const uint64_t t =
        static_cast<uint64_t>((static_cast<unsigned __int128>(n) * magic_) >> 64);
    if (add_) return (((n - t) >> 1) + t) >> shift_;
    return t >> shift_;
  }

  uint64_t Remainder(uint64_t n) const { return n - Divide(n) * divisor_; }

 private:
  uint64_t divisor_;
  uint64_t magic_ = 0;
  int shift_ = 0;
  bool power_of_two_ = false;
  bool add_ = false;
};

}  // namespace granite::core
