#include "core/functions/regexp_prefix.h"

namespace granite::core {

std::optional<std::string> PrefixBeforeTrailingDotStar(std::string_view pattern) {
  constexpr std::string_view kSuffix = ".*$";
  if (pattern.size() < kSuffix.size() ||
      pattern.substr(pattern.size() - kSuffix.size()) != kSuffix ||
      pattern.find("\\Q") != std::string_view::npos) {
    return std::nullopt;
  }
  const size_t cut = pattern.size() - kSuffix.size();
  // Walks P tracking escapes, character classes and group depth; the suffix counts only when the
  // walk lands exactly on it at depth 0, outside any class.
  size_t depth = 0;
  size_t i = 0;
  while (i < cut) {
    const char c = pattern[i];
    if (c == '\\') {
      i += 2;
      continue;
    }
    if (c == '[') {
      ++i;
      if (i < cut && pattern[i] == '^') ++i;
      if (i < cut && pattern[i] == ']') ++i;  // a leading ']' is a literal
      while (i < cut && pattern[i] != ']') {
        if (pattern[i] == '\\') {
          i += 2;
        } else if (pattern[i] == '[' && i + 1 < cut && pattern[i + 1] == ':') {
          size_t end = pattern.find(":]", i + 2);
          if (end == std::string_view::npos || end + 2 > cut) return std::nullopt;
          i = end + 2;
        } else {
          ++i;
        }
      }
      if (i >= cut) return std::nullopt;  // the class swallows the suffix
      ++i;
      continue;
    }
    if (c == '(') {
      ++depth;
    } else if (c == ')') {
      if (depth == 0) return std::nullopt;
      --depth;
    } else if (c == '|' && depth == 0) {
      return std::nullopt;
    }
    ++i;
  }
  if (i != cut || depth != 0) return std::nullopt;
  return std::string(pattern.substr(0, cut));
}

}  // namespace granite::core
