// SubstringSearcher: finds one fixed needle in many haystacks. It backs LIKE '%x%' (and the
// literal prefilter of general LIKE patterns, see like_matcher.h).
//
// Algorithm (the two-byte idea of ClickHouse's StringSearcher / Volnitsky, written anew here):
// a first-byte scan (memchr, or std::string_view::find) stops at every occurrence of the needle's
// first byte, which in URL-like text is frequent ('g', '/', '.'). Comparing the FIRST TWO needle
// bytes at once is far more selective: for a window of W haystack positions (W = 32 with AVX2,
// 16 with SSE2) we load the haystack at p and at p + 1, compare the two vectors with the
// broadcast n[0] and n[1], AND the two masks and get one bit per position where both bytes match.
// Only those candidates are verified (inline for short needles, memcmp beyond 16 bytes). Text
// without the pair costs two loads, two compares, an AND and a branch per W bytes; the AVX2
// loop handles two windows (64 positions) per branch.
//
// Bounds: every load lies inside [begin, end) (ASan-clean, no page-crossing tricks). The main
// loops run while p + W + 1 <= end; the positions left are covered by one more window ending
// exactly at `end`, with the positions already searched masked off. Haystacks shorter than
// 17 bytes take a scalar loop. A one-byte needle uses memchr; an empty needle matches at the
// start. Measurements: bench/results/like-2026-11-22.md.
//
// Case-insensitive mode (ILIKE) folds ASCII letters: each of the two bytes is compared with both
// its lower and upper case form, and candidates are verified with an ASCII-folding compare, so
// the haystack is never copied or lowered.
//
// Column batch path: a String column keeps all rows in one contiguous chars buffer with end
// offsets (core/column.h). MarkRowsContaining() searches that buffer once, maps each hit to its
// row through the offsets, and resumes at the next row; a hit that runs past its row's end
// (a needle spanning two rows) is rejected. Rows without the needle are never visited one by one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/column.h"

namespace granite::core {

// Searches a haystack for one needle with a two-byte SIMD filter.
// Thread-safety: immutable after construction; searches may run concurrently.
class SubstringSearcher {
 public:
  // The instruction set of the vector loop. kAuto picks AVX2 when the CPU has it, else SSE2
  // (x86-64 always has SSE2). kScalar is the plain byte loop (reference and non-x86 builds).
  enum class Isa { kAuto, kScalar, kSse2, kAvx2 };

  // Builds a searcher for `needle`; `case_insensitive` folds ASCII letters.
  // REQUIRES: isa != kAvx2 unless CpuHasAvx2().
  explicit SubstringSearcher(std::string_view needle, bool case_insensitive = false,
                             Isa isa = Isa::kAuto);

  // Returns true if the CPU supports AVX2 (checked once per process).
  static bool CpuHasAvx2();

  // Returns the instruction set actually used (never kAuto).
  Isa isa() const { return isa_; }
  // Returns the needle (lowercase in case-insensitive mode).
  const std::string& needle() const { return needle_; }

  // Returns the first occurrence of the needle in [begin, end), or `end` if there is none.
  const char* Find(const char* begin, const char* end) const {
    return find_(begin, end, needle_, pair_);
  }

  // Returns the offset of the first occurrence in `haystack`, or std::string_view::npos.
  size_t Find(std::string_view haystack) const {
    const char* end = haystack.data() + haystack.size();
    const char* hit = Find(haystack.data(), end);
    return hit == end && !needle_.empty() ? std::string_view::npos
                                          : static_cast<size_t>(hit - haystack.data());
  }
  bool Contains(std::string_view haystack) const {
    return Find(haystack) != std::string_view::npos;
  }

  // Sets out[i] = 1 for each row i of the string rows that contains the needle; leaves other
  // rows untouched. Rows are [offsets[i-1], offsets[i]) of `chars` (offsets[-1] = 0).
  // REQUIRES: offsets non-decreasing, offsets[rows - 1] <= chars_size; out has `rows` bytes.
  void MarkRowsContaining(const char* chars, const uint64_t* offsets, size_t rows,
                          uint8_t* out) const;
  // The same for a String column. REQUIRES: strings.type() == String; out has size() bytes.
  void MarkRowsContaining(const Column& strings, uint8_t* out) const {
    if (strings.empty()) return;
    MarkRowsContaining(strings.Chars().data(), strings.Offsets().data(), strings.size(), out);
  }

  // The first two needle bytes in both cases (equal pairs when not folding), broadcast by the
  // vector loops. Public only for the loop templates in the .cc file.
  struct FirstPair {
    char first_lower, first_upper, second_lower, second_upper;
  };

 private:
  // Returns the first occurrence of `needle` in [begin, end), or `end`.
  using FindFunction = const char* (*)(const char* begin, const char* end, std::string_view needle,
                                       const FirstPair& pair);

  std::string needle_;
  bool case_insensitive_;
  Isa isa_;
  FirstPair pair_;
  FindFunction find_;  // the loop for the needle's length, the case mode and isa_
};

}  // namespace granite::core
