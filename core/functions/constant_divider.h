// ConstantDivider: divides unsigned 64-bit integers by a divisor fixed when a kernel is compiled
// (x % 10000, intDiv(x, 60)) with one 64x64->128 multiply and shifts instead of a hardware
// division, which costs 25-90 cycles on x86. The scheme is Granlund and Montgomery's "division by
// invariant integers using multiplication", in the form libdivide uses for uint64_t:
//   l = floor(log2(d)), m = floor(2^(64+l) / d) + 1 (65 bits when the "add" flag is set),
//   q = mulhi(m, n) >> l, or with the flag ((n - t) / 2 + t) >> l where t = mulhi(m, n).
#pragma once

#include <cstdint>
#include <limits>

namespace granite::core {

// The widest vector copy the 32-bit division loop of `intDiv` / `modulo` (arithmetic.cc) may use;
// the widest the CPU supports is used up to this cap. The default is kAvx512 (no cap); tests lower it
// so that every copy runs on a machine that has them all.
enum class DivideIsa { kPlain, kAvx2, kAvx512 };
// Thread-safety: safe to call at any time; kernels read the cap once per call.
void SetDivideIsaCap(DivideIsa cap);

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
    if (divisor <= std::numeric_limits<uint32_t>::max()) {
      // The same scheme for 32-bit dividends: m32 = floor(2^(32+l) / d) + 1.
      const uint64_t numerator32 = uint64_t{1} << (32 + shift_);
      uint32_t m32 = static_cast<uint32_t>(numerator32 / divisor);
      const uint32_t remainder32 = static_cast<uint32_t>(numerator32 % divisor);
      const uint32_t d32 = static_cast<uint32_t>(divisor);
      if (d32 - remainder32 < (uint32_t{1} << shift_)) {
        add32_ = false;
      } else {
        m32 += m32;
        const uint32_t twice = remainder32 + remainder32;
        if (twice >= d32 || twice < remainder32) ++m32;
        add32_ = true;
      }
      magic32_ = m32 + 1;
    }
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

  // The 32-bit form, for loops whose dividends are all below 2^32 (a 32x32->64 multiply, which
  // SIMD units have, instead of 64x64->128): q = mulhi32(magic32, n) >> shift, or with add32
  // ((n - t) / 2 + t) >> shift. Valid when fits32(); a power of two is a plain shift.
  bool fits32() const { return divisor_ <= std::numeric_limits<uint32_t>::max(); }
  bool power_of_two() const { return power_of_two_; }
  bool add32() const { return add32_; }
  uint32_t magic32() const { return magic32_; }
  int shift() const { return shift_; }

  // REQUIRES: fits32().
  uint32_t Divide32(uint32_t n) const {
    if (power_of_two_) return n >> shift_;
    const uint32_t t = static_cast<uint32_t>((uint64_t{n} * magic32_) >> 32);
    if (add32_) return (((n - t) >> 1) + t) >> shift_;
    return t >> shift_;
  }

 private:
  uint64_t divisor_;
  uint64_t magic_ = 0;
  int shift_ = 0;
  bool power_of_two_ = false;
  bool add_ = false;
  uint32_t magic32_ = 0;
  bool add32_ = false;
};

}  // namespace granite::core
