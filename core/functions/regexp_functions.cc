// Regular expressions (RE2 syntax, constant patterns compiled once):
//   match(s, pattern) -> UInt8 (the pattern occurs anywhere; '.' matches newlines);
//   replaceRegexpAll / replaceRegexpOne(s, pattern, replacement) -> String, with ClickHouse's
//   replacement syntax: \0 .. \9 insert a capture group (\0 the whole match), a backslash before
//   any other character inserts that character. After an empty match the next byte is copied
//   and the search moves past it, so replaceRegexpAll('abc', '', '-') = '-a-b-c'.
// REGEXP_REPLACE is an alias of replaceRegexpAll.
// A replace pattern ending in a top-level ".*$" matches only its prefix on texts without '\n'
// (regexp_prefix.h), and a value equal to the previous row's reuses its result.
#include <re2/re2.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/functions/function_errors.h"
#include "core/functions/function_table.h"
#include "core/functions/regexp_prefix.h"
#include "core/functions/vector_loops.h"
#include "core/status_macros.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

absl::StatusOr<std::unique_ptr<RE2>> CompileRegex(std::string_view name, const std::string& pattern,
                                                  bool dot_nl) {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_dot_nl(dot_nl);
  auto regex = std::make_unique<RE2>(pattern, options);
  if (!regex->ok()) {
    return Error(ErrorCode::kBadArguments,
                 absl::StrCat("Cannot compile regular expression '", pattern, "' of function ",
                              ToAbsl(name), ": ", regex->error()));
  }
  return regex;
}

absl::StatusOr<TypeId> ResolveRegexp(std::string_view name, const std::vector<ArgumentInfo>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (!IsString(args[i].type)) return IllegalArgumentType(name, i, args[i].type);
    if (i > 0 && !args[i].constant) return ArgumentMustBeConstant(name, i);
  }
  return name == "match" ? TypeId::kUInt8 : TypeId::kString;
}

class MatchKernel : public ScalarKernel {
 public:
  explicit MatchKernel(std::unique_ptr<RE2> regex) : regex_(std::move(regex)) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    auto out = NewColumn(TypeId::kUInt8, rows);
    uint8_t* result = out->Data<uint8_t>();
    for (size_t i = 0; i < rows; ++i) {
      std::string_view s = StringOf(args[0], i);
      result[i] = RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), *regex_);
    }
    return ColumnPtr(std::move(out));
  }

 private:
  const std::unique_ptr<RE2> regex_;
};

// One step of a replacement: literal text, or a capture group when group >= 0.
struct ReplacementPiece {
  std::string literal;
  int group = -1;
};

std::vector<ReplacementPiece> ParseReplacement(std::string_view replacement) {
  std::vector<ReplacementPiece> pieces;
  std::string literal;
  for (size_t i = 0; i < replacement.size(); ++i) {
    const char c = replacement[i];
    if (c == '\\' && i + 1 < replacement.size()) {
      const char next = replacement[++i];
      if (next >= '0' && next <= '9') {
        if (!literal.empty()) pieces.push_back({std::move(literal), -1});
        literal.clear();
        pieces.push_back({"", next - '0'});
      } else {
        literal.push_back(next);
      }
    } else {
      literal.push_back(c);
    }
  }
  if (!literal.empty()) pieces.push_back({std::move(literal), -1});
  return pieces;
}

class ReplaceRegexpKernel : public ScalarKernel {
 public:
  // `prefix`, when not null, is the regex without its trailing ".*$" (regexp_prefix.h).
  ReplaceRegexpKernel(std::unique_ptr<RE2> regex, std::unique_ptr<RE2> prefix,
                      std::vector<ReplacementPiece> pieces, bool all, int groups)
      : regex_(std::move(regex)),
        prefix_(std::move(prefix)),
        pieces_(std::move(pieces)),
        all_(all),
        groups_(groups) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    auto out = std::make_shared<Column>(TypeId::kString);
    std::string& chars = out->MutableChars();
    std::vector<uint64_t>& offsets = out->MutableOffsets();
    offsets.resize(rows);
    re2::StringPiece matches[10];
    // A value equal to the previous row's (sorted tables repeat them) copies its result instead
    // of matching again.
    std::string_view previous;
    uint64_t previous_begin = 0;
    for (size_t i = 0; i < rows; ++i) {
      std::string_view s = StringOf(args[0], i);
      const uint64_t begin = chars.size();
      if (i > 0 && s == previous) {
        const uint64_t length = offsets[i - 1] - previous_begin;
        chars.resize(begin + length);
        std::memcpy(chars.data() + begin, chars.data() + previous_begin, length);
      } else {
        ReplaceOne(re2::StringPiece(s.data(), s.size()), matches, &chars);
        previous = s;
      }
      previous_begin = begin;
      offsets[i] = chars.size();
    }
    out->SetSize(rows);
    return ColumnPtr(std::move(out));
  }

 private:
  // Finds the regex's leftmost match in input[pos, end) with groups 0..groups_ in `matches`.
  bool Match(re2::StringPiece input, size_t pos, re2::StringPiece* matches) const {
    if (prefix_ != nullptr &&
        std::memchr(input.data() + pos, '\n', input.size() - pos) == nullptr) {
      if (!prefix_->Match(input, pos, input.size(), RE2::UNANCHORED, matches, groups_ + 1)) {
        return false;
      }
      // The ".*$" after the prefix runs to the end of the text.
      matches[0] = re2::StringPiece(matches[0].data(),
                                    input.data() + input.size() - matches[0].data());
      return true;
    }
    return regex_->Match(input, pos, input.size(), RE2::UNANCHORED, matches, groups_ + 1);
  }

  void ReplaceOne(re2::StringPiece input, re2::StringPiece* matches, std::string* out) const {
    size_t pos = 0;
    while (pos < input.size()) {
      if (!Match(input, pos, matches)) break;
      const re2::StringPiece& match = matches[0];
      const size_t match_begin = match.data() - input.data();
      out->append(input.data() + pos, match_begin - pos);
      pos = match_begin + match.size();
      for (const ReplacementPiece& piece : pieces_) {
        if (piece.group < 0) {
          out->append(piece.literal);
        } else {
          out->append(matches[piece.group].data(), matches[piece.group].size());
        }
      }
      if (match.empty() && pos < input.size()) out->push_back(input[pos++]);
      if (!all_) break;
    }
    if (pos < input.size()) out->append(input.data() + pos, input.size() - pos);
  }

  const std::unique_ptr<RE2> regex_;
  const std::unique_ptr<RE2> prefix_;  // may be null
  const std::vector<ReplacementPiece> pieces_;
  const bool all_;
  const int groups_;  // capture groups used (the highest \N of the replacement)
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileRegexp(std::string_view name,
                                                            const std::vector<ArgumentInfo>& args,
                                                            TypeId result_type) {
  const std::string pattern = ValueToText(*args[1].constant);
  if (name == "match") {
    ASSIGN_OR_RETURN(std::unique_ptr<RE2> regex, CompileRegex(name, pattern, true));
    return std::make_unique<MatchKernel>(std::move(regex));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<RE2> regex, CompileRegex(name, pattern, false));
  std::vector<ReplacementPiece> pieces = ParseReplacement(ValueToText(*args[2].constant));
  int used = 0;
  for (const ReplacementPiece& piece : pieces) {
    if (piece.group > regex->NumberOfCapturingGroups()) {
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("Id ", piece.group, " in replacement string of function ",
                                ToAbsl(name), " is an invalid substitution, regexp has only ",
                                regex->NumberOfCapturingGroups(), " capturing groups"));
    }
    used = std::max(used, piece.group);
  }
  std::unique_ptr<RE2> prefix;
  if (std::optional<std::string> head = PrefixBeforeTrailingDotStar(pattern)) {
    absl::StatusOr<std::unique_ptr<RE2>> compiled = CompileRegex(name, *head, false);
    if (compiled.ok() &&
        (*compiled)->NumberOfCapturingGroups() == regex->NumberOfCapturingGroups()) {
      prefix = *std::move(compiled);
    }
  }
  return std::make_unique<ReplaceRegexpKernel>(std::move(regex), std::move(prefix),
                                               std::move(pieces), name == "replaceRegexpAll",
                                               used);
}

}  // namespace

void RegisterRegexpFunctions(FunctionTable& table) {
  table.Add({"match", 2, 2, false, ResolveRegexp, CompileRegexp});
  table.Add({"replaceRegexpAll", 3, 3, false, ResolveRegexp, CompileRegexp});
  table.Add({"replaceRegexpOne", 3, 3, false, ResolveRegexp, CompileRegexp});
  table.AddAlias("REGEXP_REPLACE", "replaceRegexpAll", true);
}

}  // namespace granite::core
