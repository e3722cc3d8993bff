#include "core/functions/like_matcher.h"

#include <re2/re2.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"

namespace granite::core {
namespace {

// One element of a parsed pattern: a literal byte, '%' or '_'.
struct PatternItem {
  enum Type { kLiteral, kAnyRun, kOneChar } type;
  char byte;
};

std::vector<PatternItem> ParsePattern(std::string_view pattern) {
  std::vector<PatternItem> items;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      items.push_back({PatternItem::kLiteral, pattern[++i]});
    } else if (c == '%') {
      // Consecutive '%' mean the same as one.
      if (items.empty() || items.back().type != PatternItem::kAnyRun) {
        items.push_back({PatternItem::kAnyRun, 0});
      }
    } else if (c == '_') {
      items.push_back({PatternItem::kOneChar, 0});
    } else {
      items.push_back({PatternItem::kLiteral, c});
    }
  }
  return items;
}

bool EqualsFolded(std::string_view a, std::string_view b) {
  return absl::EqualsIgnoreCase(ToAbsl(a), ToAbsl(b));
}

// Sets out[i] = row_matches(row i) != negated for every row of a String column.
template <typename RowPredicate>
void MatchRows(const Column& strings, bool negated, uint8_t* out, RowPredicate row_matches) {
  const size_t rows = strings.size();
  const uint64_t* offsets = strings.Offsets().data();
  const char* chars = strings.Chars().data();
  uint64_t begin = 0;
  for (size_t i = 0; i < rows; ++i) {
    out[i] = row_matches(std::string_view(chars + begin, offsets[i] - begin)) != negated;
    begin = offsets[i];
  }
}

}  // namespace

LikeMatcher::~LikeMatcher() = default;

absl::StatusOr<std::unique_ptr<LikeMatcher>> LikeMatcher::Compile(std::string_view pattern,
                                                                  bool case_insensitive) {
  std::unique_ptr<LikeMatcher> matcher(new LikeMatcher());
  matcher->case_insensitive_ = case_insensitive;
  std::vector<PatternItem> items = ParsePattern(pattern);

  // Classify: literals with '%' only at the ends become a literal match.
  const bool leading_any = !items.empty() && items.front().type == PatternItem::kAnyRun;
  const bool trailing_any = items.size() > (leading_any ? 1 : 0) &&
                            items.back().type == PatternItem::kAnyRun;
  bool literal_middle = true;
  std::string literal;
  for (size_t i = leading_any ? 1 : 0; i < items.size() - (trailing_any ? 1 : 0); ++i) {
    if (items[i].type != PatternItem::kLiteral) {
      literal_middle = false;
      break;
    }
    literal.push_back(items[i].byte);
  }
  // ILIKE with a non-ASCII letter in the pattern ('%ЯНДЕКС%') needs Unicode case folding, which
  // RE2 does in UTF-8 mode; the byte-wise fast paths fold ASCII only.
  const bool fold_unicode =
      case_insensitive && std::any_of(pattern.begin(), pattern.end(),
                                      [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
  if (literal_middle && !fold_unicode) {
    if (case_insensitive) literal = absl::AsciiStrToLower(literal);
    matcher->needle_ = std::move(literal);
    if (leading_any && (trailing_any || matcher->needle_.empty())) {
      matcher->kind_ = matcher->needle_.empty() ? Kind::kAny : Kind::kSubstring;
    } else if (leading_any) {
      matcher->kind_ = Kind::kSuffix;
    } else if (trailing_any) {
      matcher->kind_ = Kind::kPrefix;
    } else {
      matcher->kind_ = Kind::kExact;
    }
    if (matcher->kind_ == Kind::kSubstring) {
      matcher->searcher_.emplace(matcher->needle_, case_insensitive);
    }
    return matcher;
  }

  // Literal runs separated by '%' only ('%special%requests%', 'a%b'): each run found after the
  // previous one, leftmost first, which is exact when no '_' constrains the gaps.
  const bool has_one_char = std::any_of(items.begin(), items.end(), [](const PatternItem& item) {
    return item.type == PatternItem::kOneChar;
  });
  if (!has_one_char && !fold_unicode) {
    std::vector<std::string> segments;
    for (const PatternItem& item : items) {
      if (item.type == PatternItem::kAnyRun) {
        if (!segments.empty() && !segments.back().empty()) segments.emplace_back();
        continue;
      }
      if (segments.empty()) segments.emplace_back();
      segments.back().push_back(case_insensitive ? absl::ascii_tolower(item.byte) : item.byte);
    }
    if (!segments.empty() && segments.back().empty()) segments.pop_back();
    matcher->kind_ = Kind::kSequence;
    matcher->anchored_start_ = !leading_any;
    matcher->anchored_end_ = !trailing_any;
    for (const std::string& segment : segments) {
      if (segment.size() > matcher->needle_.size()) matcher->needle_ = segment;
      matcher->segment_searchers_.emplace_back(segment, case_insensitive);
    }
    matcher->searcher_.emplace(matcher->needle_, case_insensitive);
    return matcher;
  }

  std::string regex;
  std::string run;  // the current run of literal bytes
  for (const PatternItem& item : items) {
    if (item.type == PatternItem::kLiteral) {
      regex += RE2::QuoteMeta(re2::StringPiece(&item.byte, 1));
      // Under Unicode folding only ASCII bytes may serve in the prefilter's literal run.
      if (!fold_unicode || static_cast<unsigned char>(item.byte) < 0x80) {
        run.push_back(item.byte);
        continue;
      }
    } else {
      regex += item.type == PatternItem::kAnyRun ? ".*" : ".";
    }
    if (run.size() > matcher->needle_.size()) matcher->needle_ = run;
    run.clear();
  }
  if (run.size() > matcher->needle_.size()) matcher->needle_ = run;
  if (case_insensitive) matcher->needle_ = absl::AsciiStrToLower(matcher->needle_);
  if (!matcher->needle_.empty()) matcher->searcher_.emplace(matcher->needle_, case_insensitive);
  RE2::Options options;
  options.set_dot_nl(true);
  options.set_log_errors(false);
  options.set_case_sensitive(!case_insensitive);
  matcher->kind_ = Kind::kRegex;
  matcher->regex_ = std::make_unique<RE2>(regex, options);
  if (!matcher->regex_->ok()) {
    return Error(ErrorCode::kBadArguments,
                 absl::StrCat("Cannot compile LIKE pattern '", ToAbsl(pattern),
                              "': ", matcher->regex_->error()));
  }
  return matcher;
}

bool LikeMatcher::MatchesLiteral(std::string_view text) const {
  const std::string_view needle = needle_;
  switch (kind_) {
    case Kind::kExact:
      return case_insensitive_ ? EqualsFolded(text, needle) : text == needle;
    case Kind::kPrefix:
      return text.size() >= needle.size() &&
             (case_insensitive_ ? EqualsFolded(text.substr(0, needle.size()), needle)
                                : std::memcmp(text.data(), needle.data(), needle.size()) == 0);
    case Kind::kSuffix:
      return text.size() >= needle.size() &&
             (case_insensitive_
                  ? EqualsFolded(text.substr(text.size() - needle.size()), needle)
                  : std::memcmp(text.data() + text.size() - needle.size(), needle.data(),
                                needle.size()) == 0);
    case Kind::kSubstring:
      return searcher_->Contains(text);
    case Kind::kAny:
      return true;
    case Kind::kSequence:
    case Kind::kRegex:
      break;
  }
  return false;
}

bool LikeMatcher::MatchesSequence(std::string_view text) const {
  const size_t count = segment_searchers_.size();
  size_t first = 0, last = count;
  size_t pos = 0, limit = text.size();
  auto equal = [&](std::string_view a, std::string_view b) {
    return case_insensitive_ ? EqualsFolded(a, b) : a == b;
  };
  if (anchored_start_) {
    const std::string& head = segment_searchers_.front().needle();
    if (text.size() < head.size() || !equal(text.substr(0, head.size()), head)) return false;
    pos = head.size();
    first = 1;
  }
  if (anchored_end_) {
    const std::string& tail = segment_searchers_.back().needle();
    if (limit < pos + tail.size() || !equal(text.substr(limit - tail.size()), tail)) return false;
    limit -= tail.size();
    last = count - 1;
  }
  for (size_t i = first; i < last; ++i) {
    const SubstringSearcher& searcher = segment_searchers_[i];
    const char* end = text.data() + limit;
    const char* hit = searcher.Find(text.data() + pos, end);
    if (hit == end) return false;
    pos = static_cast<size_t>(hit - text.data()) + searcher.needle().size();
  }
  return true;
}

bool LikeMatcher::Matches(std::string_view text) const {
  if (kind_ == Kind::kSequence) return MatchesSequence(text);
  if (kind_ == Kind::kRegex) {
    return RE2::FullMatch(re2::StringPiece(text.data(), text.size()), *regex_);
  }
  return MatchesLiteral(text);
}

void LikeMatcher::MatchColumn(const Column& strings, bool negated, uint8_t* out) const {
  const size_t rows = strings.size();
  if (rows == 0) return;  // `out` may be null then
  switch (kind_) {
    case Kind::kAny:
      std::memset(out, negated ? 0 : 1, rows);
      return;
    case Kind::kSubstring:
      std::memset(out, 0, rows);
      searcher_->MarkRowsContaining(strings, out);
      if (negated) {
        for (size_t i = 0; i < rows; ++i) out[i] ^= 1;
      }
      return;
    case Kind::kRegex: {
      // Rows without the pattern's longest literal run cannot match: RE2 sees only candidates.
      std::memset(out, searcher_ ? 0 : 1, rows);
      if (searcher_) searcher_->MarkRowsContaining(strings, out);
      const uint64_t* offsets = strings.Offsets().data();
      const char* chars = strings.Chars().data();
      uint64_t begin = 0;
      for (size_t i = 0; i < rows; ++i) {
        const uint64_t end = offsets[i];
        if (out[i]) out[i] = RE2::FullMatch(re2::StringPiece(chars + begin, end - begin), *regex_);
        out[i] ^= negated;
        begin = end;
      }
      return;
    }
    case Kind::kSequence: {
      // Rows without the longest run cannot match: only candidates are walked run by run.
      std::memset(out, 0, rows);
      searcher_->MarkRowsContaining(strings, out);
      const uint64_t* offsets = strings.Offsets().data();
      const char* chars = strings.Chars().data();
      uint64_t begin = 0;
      for (size_t i = 0; i < rows; ++i) {
        const uint64_t end = offsets[i];
        if (out[i]) out[i] = MatchesSequence(std::string_view(chars + begin, end - begin));
        out[i] ^= negated;
        begin = end;
      }
      return;
    }
    case Kind::kExact:
    case Kind::kPrefix:
    case Kind::kSuffix:
      MatchColumnLiteral(strings, negated, out);
      return;
  }
}

void LikeMatcher::MatchColumnLiteral(const Column& strings, bool negated, uint8_t* out) const {
  const std::string_view needle = needle_;
  const size_t m = needle.size();
  if (case_insensitive_) {
    switch (kind_) {
      case Kind::kExact:
        return MatchRows(strings, negated, out,
                         [&](std::string_view s) { return EqualsFolded(s, needle); });
      case Kind::kPrefix:
        return MatchRows(strings, negated, out, [&](std::string_view s) {
          return s.size() >= m && EqualsFolded(s.substr(0, m), needle);
        });
      case Kind::kSuffix:
        return MatchRows(strings, negated, out, [&](std::string_view s) {
          return s.size() >= m && EqualsFolded(s.substr(s.size() - m), needle);
        });
      default:
        return;
    }
  }
  switch (kind_) {
    case Kind::kExact:
      return MatchRows(strings, negated, out, [&](std::string_view s) {
        return s.size() == m && std::memcmp(s.data(), needle.data(), m) == 0;
      });
    case Kind::kPrefix:
      return MatchRows(strings, negated, out, [&](std::string_view s) {
        return s.size() >= m && std::memcmp(s.data(), needle.data(), m) == 0;
      });
    case Kind::kSuffix:
      return MatchRows(strings, negated, out, [&](std::string_view s) {
        return s.size() >= m && std::memcmp(s.data() + s.size() - m, needle.data(), m) == 0;
      });
    default:
      return;
  }
}

}  // namespace granite::core
