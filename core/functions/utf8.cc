#include "core/functions/utf8.h"

namespace granite::core {
namespace {

// Latin Extended-A pairs: an upper-case letter and its lower case at the next code point.
bool IsUpperInPairs(uint32_t cp) {
  if (cp >= 0x100 && cp <= 0x137) return cp % 2 == 0 && cp != 0x130;
  if (cp >= 0x139 && cp <= 0x148) return cp % 2 == 1;
  if (cp >= 0x14A && cp <= 0x177) return cp % 2 == 0;
  if (cp >= 0x179 && cp <= 0x17E) return cp % 2 == 1;
  return false;
}

}  // namespace

uint32_t LowerCodePoint(uint32_t cp) {
  if (cp >= 'A' && cp <= 'Z') return cp + 32;
  if (cp < 0xC0) return cp;
  if (cp <= 0xDE && cp != 0xD7) return cp + 32;
  if (IsUpperInPairs(cp)) return cp + 1;
  if (cp == 0x178) return 0xFF;
  if (cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2) return cp + 32;
  if (cp >= 0x410 && cp <= 0x42F) return cp + 32;
  if (cp >= 0x400 && cp <= 0x40F) return cp + 80;
  return cp;
}

uint32_t UpperCodePoint(uint32_t cp) {
  if (cp >= 'a' && cp <= 'z') return cp - 32;
  if (cp < 0xE0) return cp;
  if (cp <= 0xFE && cp != 0xF7) return cp - 32;
  if (cp == 0xFF) return 0x178;
  if (cp > 0x100 && cp <= 0x17E && IsUpperInPairs(cp - 1)) return cp - 1;
  if (cp >= 0x3B1 && cp <= 0x3C9 && cp != 0x3C2) return cp - 32;
  if (cp >= 0x430 && cp <= 0x44F) return cp - 32;
  if (cp >= 0x450 && cp <= 0x45F) return cp - 80;
  return cp;
}

}  // namespace granite::core
