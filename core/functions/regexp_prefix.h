// The prefix of a regular expression that ends in a top-level ".*$" — the form of the URL-domain
// patterns of replaceRegexpAll(s, '^https?://([^/]+)/.*$', '\1'). On a text without '\n', P.*$
// matches at a position exactly where P does, with the same capture groups (".*$" then always
// succeeds, so the leftmost-first choice inside P is the same), and the match runs to the end of
// the text. ReplaceRegexpKernel (regexp_functions.cc) then matches only P, so RE2's capture engine
// walks the few bytes P needs instead of the whole text.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace granite::core {

// Returns P when `pattern` is P.*$ with ".*$" at the top level (not escaped, not inside a group
// or character class, no top-level '|' in P), else nullopt. Patterns with \Q...\E quoting are
// never split.
std::optional<std::string> PrefixBeforeTrailingDotStar(std::string_view pattern);

}  // namespace granite::core
