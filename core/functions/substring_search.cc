#include "core/functions/substring_search.h"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#define GRANITE_SUBSTRING_SEARCH_X86 1
#endif

namespace granite::core {
namespace {

using FirstPair = SubstringSearcher::FirstPair;

inline char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }
inline char AsciiUpper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c; }

// Returns true if the n bytes at `text` equal `needle` (ASCII-folded when kFold; then `needle`
// is lowercase).
// Short needles are compared inline: a memcmp call per candidate would also force the vector
// loops to spill their broadcast registers.
template <bool kFold>
inline bool EqualBytes(const char* text, const char* needle, size_t n) {
  if constexpr (!kFold) {
    if (n > 16) return std::memcmp(text, needle, n) == 0;
    for (size_t i = 0; i < n; ++i) {
      if (text[i] != needle[i]) return false;
    }
    return true;
  } else {
    for (size_t i = 0; i < n; ++i) {
      if (AsciiLower(text[i]) != needle[i]) return false;
    }
    return true;
  }
}

template <bool kFold>
inline bool PairAt(const char* c, const FirstPair& pair) {
  if constexpr (!kFold) {
    return c[0] == pair.first_lower && c[1] == pair.second_lower;
  } else {
    return (c[0] == pair.first_lower || c[0] == pair.first_upper) &&
           (c[1] == pair.second_lower || c[1] == pair.second_upper);
  }
}

// Checks every start position in [p, end - needle.size()] one byte at a time: the reference loop
// and the tail of the vector loops. REQUIRES: needle.size() >= 2.
template <bool kFold>
inline const char* FindScalar(const char* p, const char* end, std::string_view needle,
                              const FirstPair& pair) {
  const size_t m = needle.size();
  if (static_cast<size_t>(end - p) < m) return end;
  for (const char* last = end - m; p <= last; ++p) {
    if (PairAt<kFold>(p, pair) && EqualBytes<kFold>(p + 2, needle.data() + 2, m - 2)) return p;
  }
  return end;
}

// Verifies the candidates of one window: bit i of `mask` set means the first two needle bytes
// occur at p + i. Sets *found to the first full match, or to `end` when a candidate is too close
// to the end for the needle (later ones are closer still). Returns true if the search is over.
template <bool kFold>
inline bool VerifyCandidates(uint64_t mask, const char* p, const char* end, std::string_view needle,
                             const char** found) {
  const size_t m = needle.size();
  while (mask != 0) {
    const char* c = p + __builtin_ctzll(mask);
    if (static_cast<size_t>(end - c) < m) {
      *found = end;
      return true;
    }
    if (EqualBytes<kFold>(c + 2, needle.data() + 2, m - 2)) {
      *found = c;
      return true;
    }
    mask &= mask - 1;
  }
  return false;
}

#ifdef GRANITE_SUBSTRING_SEARCH_X86

// Returns bit i set where the needle's first two bytes occur at p + i, for the 16 positions
// [p, p + 16); reads [p, p + 17).
template <bool kFold>
inline uint32_t Sse2PairMask(const char* p, __m128i first_lower, __m128i first_upper,
                             __m128i second_lower, __m128i second_upper) {
  const __m128i at_p = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i at_next = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 1));
  __m128i first = _mm_cmpeq_epi8(at_p, first_lower);
  __m128i second = _mm_cmpeq_epi8(at_next, second_lower);
  if constexpr (kFold) {
    first = _mm_or_si128(first, _mm_cmpeq_epi8(at_p, first_upper));
    second = _mm_or_si128(second, _mm_cmpeq_epi8(at_next, second_upper));
  }
  return static_cast<uint32_t>(_mm_movemask_epi8(_mm_and_si128(first, second)));
}

// 16 positions per step. The last positions are covered by one window ending exactly at `end`
// that overlaps the previous step, with the already searched positions masked off; haystacks
// shorter than one window take the scalar loop. REQUIRES: needle.size() >= 2.
template <bool kFold>
const char* FindSse2(const char* begin, const char* end, std::string_view needle,
                     const FirstPair& pair) {
  if (end - begin < 17) return FindScalar<kFold>(begin, end, needle, pair);
  const __m128i first_lower = _mm_set1_epi8(pair.first_lower);
  const __m128i first_upper = _mm_set1_epi8(pair.first_upper);
  const __m128i second_lower = _mm_set1_epi8(pair.second_lower);
  const __m128i second_upper = _mm_set1_epi8(pair.second_upper);
  const char* p = begin;
  const char* found;
  // Each step reads [p, p + 17).
  while (end - p >= 17 && static_cast<size_t>(end - p) >= needle.size()) {
    const uint32_t mask =
        Sse2PairMask<kFold>(p, first_lower, first_upper, second_lower, second_upper);
    if (mask != 0 && VerifyCandidates<kFold>(mask, p, end, needle, &found)) return found;
    p += 16;
  }
  if (static_cast<size_t>(end - p) < needle.size()) return end;
  // The window [end - 17, end) holds positions end - 17 .. end - 2; those below p are done.
  const char* last = end - 17;
  const uint32_t mask =
      Sse2PairMask<kFold>(last, first_lower, first_upper, second_lower, second_upper) &
      (~0u << (p - last));
  if (mask != 0 && VerifyCandidates<kFold>(mask, last, end, needle, &found)) return found;
  return end;
}

// Returns bit i set where the needle's first two bytes occur at p + i, for the 32 positions
// [p, p + 32); reads [p, p + 33).
template <bool kFold>
__attribute__((target("avx2"), always_inline)) inline uint32_t Avx2PairMask(
    const char* p, __m256i first_lower, __m256i first_upper, __m256i second_lower,
    __m256i second_upper) {
  const __m256i at_p = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i at_next = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 1));
  __m256i first = _mm256_cmpeq_epi8(at_p, first_lower);
  __m256i second = _mm256_cmpeq_epi8(at_next, second_lower);
  if constexpr (kFold) {
    first = _mm256_or_si256(first, _mm256_cmpeq_epi8(at_p, first_upper));
    second = _mm256_or_si256(second, _mm256_cmpeq_epi8(at_next, second_upper));
  }
  return static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_and_si256(first, second)));
}

// 64 positions per step (two windows halve the loop overhead), then 32, then one window ending
// at `end` as in FindSse2; haystacks shorter than one window go to FindSse2. Compiled for AVX2
// by attribute so the project needs no -mavx2; called only when CpuHasAvx2().
template <bool kFold>
__attribute__((target("avx2"))) const char* FindAvx2(const char* begin, const char* end,
                                                     std::string_view needle,
                                                     const FirstPair& pair) {
  if (end - begin < 33) return FindSse2<kFold>(begin, end, needle, pair);
  const __m256i first_lower = _mm256_set1_epi8(pair.first_lower);
  const __m256i first_upper = _mm256_set1_epi8(pair.first_upper);
  const __m256i second_lower = _mm256_set1_epi8(pair.second_lower);
  const __m256i second_upper = _mm256_set1_epi8(pair.second_upper);
  const char* p = begin;
  const char* found;
  // Each step reads [p, p + 65).
  while (end - p >= 65 && static_cast<size_t>(end - p) >= needle.size()) {
    const uint64_t low =
        Avx2PairMask<kFold>(p, first_lower, first_upper, second_lower, second_upper);
    const uint64_t high =
        Avx2PairMask<kFold>(p + 32, first_lower, first_upper, second_lower, second_upper);
    const uint64_t mask = low | high << 32;
    if (mask != 0 && VerifyCandidates<kFold>(mask, p, end, needle, &found)) return found;
    p += 64;
  }
  if (end - p >= 33 && static_cast<size_t>(end - p) >= needle.size()) {
    const uint32_t mask =
        Avx2PairMask<kFold>(p, first_lower, first_upper, second_lower, second_upper);
    if (mask != 0 && VerifyCandidates<kFold>(mask, p, end, needle, &found)) return found;
    p += 32;
  }
  if (static_cast<size_t>(end - p) < needle.size()) return end;
  // The window [end - 33, end) holds positions end - 33 .. end - 2; those below p are done.
  const char* last = end - 33;
  const uint32_t mask =
      Avx2PairMask<kFold>(last, first_lower, first_upper, second_lower, second_upper) &
      (~0u << (p - last));
  if (mask != 0 && VerifyCandidates<kFold>(mask, last, end, needle, &found)) return found;
  return end;
}

#endif  // GRANITE_SUBSTRING_SEARCH_X86

template <bool kFold>
const char* FindScalarLoop(const char* p, const char* end, std::string_view needle,
                           const FirstPair& pair) {
  return FindScalar<kFold>(p, end, needle, pair);
}

const char* FindEmpty(const char* begin, const char*, std::string_view, const FirstPair&) {
  return begin;
}

const char* FindByte(const char* begin, const char* end, std::string_view needle,
                     const FirstPair&) {
  const void* hit = std::memchr(begin, static_cast<unsigned char>(needle[0]), end - begin);
  return hit == nullptr ? end : static_cast<const char*>(hit);
}

// A one-byte ASCII letter needle, folded: the earlier of the two cases.
const char* FindByteFolded(const char* begin, const char* end, std::string_view,
                           const FirstPair& pair) {
  const char* lower = static_cast<const char*>(
      std::memchr(begin, static_cast<unsigned char>(pair.first_lower), end - begin));
  const char* upper_end = lower == nullptr ? end : lower;
  const char* upper = static_cast<const char*>(
      std::memchr(begin, static_cast<unsigned char>(pair.first_upper), upper_end - begin));
  if (upper != nullptr) return upper;
  return lower == nullptr ? end : lower;
}

}  // namespace

bool SubstringSearcher::CpuHasAvx2() {
#ifdef GRANITE_SUBSTRING_SEARCH_X86
  static const bool has_avx2 = __builtin_cpu_supports("avx2");
  return has_avx2;
#else
  return false;
#endif
}

SubstringSearcher::SubstringSearcher(std::string_view needle, bool case_insensitive, Isa isa)
    : needle_(needle), case_insensitive_(case_insensitive) {
  if (case_insensitive_) {
    for (char& c : needle_) c = AsciiLower(c);
  }
#ifdef GRANITE_SUBSTRING_SEARCH_X86
  if (isa == Isa::kAuto) isa = CpuHasAvx2() ? Isa::kAvx2 : Isa::kSse2;
#else
  isa = Isa::kScalar;
#endif
  isa_ = isa;
  const char first = needle_.empty() ? 0 : needle_[0];
  const char second = needle_.size() < 2 ? 0 : needle_[1];
  pair_ = {first, case_insensitive_ ? AsciiUpper(first) : first, second,
           case_insensitive_ ? AsciiUpper(second) : second};

  if (needle_.empty()) {
    find_ = FindEmpty;
  } else if (needle_.size() == 1) {
    find_ = pair_.first_lower != pair_.first_upper ? FindByteFolded : FindByte;
  } else {
    switch (isa_) {
#ifdef GRANITE_SUBSTRING_SEARCH_X86
      case Isa::kAvx2:
        find_ = case_insensitive_ ? FindAvx2<true> : FindAvx2<false>;
        break;
      case Isa::kSse2:
        find_ = case_insensitive_ ? FindSse2<true> : FindSse2<false>;
        break;
#endif
      default:
        find_ = case_insensitive_ ? FindScalarLoop<true> : FindScalarLoop<false>;
        break;
    }
  }
}

namespace {

// Returns the row holding byte `at`: the first row >= `row` whose end offset is above `at`.
// Gallops from `row` because consecutive hits are usually close (frequent needles) but may be
// millions of rows apart (rare ones). REQUIRES: offsets[rows - 1] > at.
size_t RowOf(const uint64_t* offsets, size_t row, size_t rows, uint64_t at) {
  if (offsets[row] > at) return row;
  size_t below = row;  // offsets[below] <= at
  size_t step = 1;
  while (below + step < rows && offsets[below + step] <= at) {
    below += step;
    step *= 2;
  }
  const size_t above = std::min(below + step, rows - 1);  // offsets[above] > at
  return std::upper_bound(offsets + below + 1, offsets + above + 1, at) - offsets;
}

}  // namespace

void SubstringSearcher::MarkRowsContaining(const char* chars, const uint64_t* offsets,
                                           size_t rows, uint8_t* out) const {
  if (rows == 0) return;
  if (needle_.empty()) {
    std::memset(out, 1, rows);
    return;
  }
  const size_t m = needle_.size();
  const char* end = chars + offsets[rows - 1];
  const char* pos = chars;
  size_t row = 0;
  while (row < rows) {
    const char* hit = Find(pos, end);
    if (hit == end) break;
    const uint64_t at = static_cast<uint64_t>(hit - chars);
    row = RowOf(offsets, row, rows, at);
    // A hit that runs into the next row is rejected; any later hit in this row ends later still,
    // so the search resumes at the next row either way.
    if (at + m <= offsets[row]) out[row] = 1;
    pos = chars + offsets[row];
    ++row;
  }
}

}  // namespace granite::core
