// LikeMatcher: a compiled SQL LIKE pattern ('%' any bytes, '_' one character, '\' escapes the
// next character). Compiling picks the cheapest way to match:
//   'abc'    exact: length check + memcmp
//   'abc%'   prefix, '%abc' suffix
//   '%abc%'  substring: one two-byte SIMD search (substring_search.h) over the whole chars buffer
//            of a column, hits mapped back to rows (rows without the needle cost nothing, as in
//            ClickHouse)
//   '%'      anything
//   '%a%b%'  sequence: literal runs separated by '%' only; rows holding the longest run (one
//            column-wide search) are walked run by run, each run searched after the previous one
//            (leftmost matching is exact without '_'); 'a%b' anchors the first and last runs
//   else     (a '_' in a pattern with a '%' inside) an RE2 regex with '.*' and '.', matched in full (UTF-8, '.' matches newlines); the
//            longest literal run of the pattern is searched first like a substring, so only rows
//            that contain it reach RE2 ('%goo_le%' runs RE2 only on rows containing "goo")
// Case-insensitive matching (ILIKE) folds ASCII letters in the literal paths; a pattern with a
// non-ASCII byte ('%ЯНДЕКС%') takes the RE2 path, which folds Unicode letters in UTF-8, with its
// longest ASCII-only run as the prefilter. MatchColumn picks the loop for the kind once per column;
// the per-row loops have no switch inside.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/column.h"
#include "core/functions/substring_search.h"

namespace re2 {
class RE2;
}

namespace granite::core {

// Matches strings against one LIKE pattern.
// Thread-safety: immutable after Compile; matching may run concurrently.
class LikeMatcher {
 public:
  enum class Kind { kExact, kPrefix, kSuffix, kSubstring, kAny, kSequence, kRegex };

  // Compiles `pattern`. Errors: kCannotCompileRegexp-like failures of RE2 as kBadArguments.
  static absl::StatusOr<std::unique_ptr<LikeMatcher>> Compile(std::string_view pattern,
                                                              bool case_insensitive);
  ~LikeMatcher();

  Kind kind() const { return kind_; }

  // Returns true if `text` matches.
  bool Matches(std::string_view text) const;

  // Sets out[i] to 1 where row i of `strings` matches and to 0 elsewhere; `negated` flips both.
  // REQUIRES: strings.type() == String; out has strings.size() bytes.
  void MatchColumn(const Column& strings, bool negated, uint8_t* out) const;

 private:
  LikeMatcher() = default;
  bool MatchesLiteral(std::string_view text) const;
  // kSequence: whether the runs of segment_searchers_ occur in order in `text` (anchored as set).
  bool MatchesSequence(std::string_view text) const;
  // Sets out[i] = MatchesLiteral(row i) != negated for a kExact / kPrefix / kSuffix kind.
  void MatchColumnLiteral(const Column& strings, bool negated, uint8_t* out) const;

  Kind kind_ = Kind::kExact;
  bool case_insensitive_ = false;
  std::string needle_;  // the literal part (kRegex: the longest literal run); lowercase when
                        // case-insensitive
  std::unique_ptr<re2::RE2> regex_;
  // Searches needle_: kSubstring, and kRegex with a non-empty literal run (its prefilter).
  std::optional<SubstringSearcher> searcher_;
  // kSequence: one searcher per literal run, in pattern order; the first (last) run is a prefix
  // (suffix) when the pattern does not start (end) with '%'.
  std::vector<SubstringSearcher> segment_searchers_;
  bool anchored_start_ = false;
  bool anchored_end_ = false;
};

}  // namespace granite::core
