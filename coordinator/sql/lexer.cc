#include "coordinator/sql/lexer.h"

#include "core/quoted_text.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace granite::coordinator::sql {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool IsWordStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsWordChar(char c) { return IsWordStart(c) || IsDigit(c) || c == '$'; }
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
char ToUpper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }


// Upper-case. Words that may follow an expression in a clause, or start one.
constexpr std::string_view kReservedWords[] = {
    "ALL",       "AND",       "ANTI",      "ANY",       "ARRAY",     "AS",        "ASC",
    "ASCENDING", "ASOF",      "ASYNC",     "BETWEEN",   "BY",        "CASE",      "COLLATE",
    "CROSS",     "DESC",      "DESCENDING", "DISTINCT",  "DIV",       "ELSE",      "END",
    "EXCEPT",    "FALSE",     "FETCH",     "FINAL",     "FORMAT",    "FROM",      "FULL",
    "GLOBAL",    "GROUP",     "HAVING",    "ILIKE",     "IN",        "INNER",     "INTERSECT",
    "INTERVAL",  "INTO",      "IS",        "JOIN",      "LEFT",      "LIKE",      "LIMIT",
    "MOD",       "NOT",       "NULL",      "NULLS",     "OFFSET",    "ON",        "OR",
    "ORDER",     "OUTER",     "PARTITION", "PREWHERE",  "PRIMARY",   "QUALIFY",   "RIGHT",
    "SAMPLE",    "SELECT",    "SEMI",      "SETTINGS",  "SYNC",      "THEN",      "TRUE",
    "TTL",       "UNION",     "USING",     "VALUES",    "WHEN",      "WHERE",     "WINDOW",
    "WITH"};

}  // namespace

bool Token::Is(std::string_view keyword) const {
  if (kind != TokenKind::kBareWord || text.size() != keyword.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (ToUpper(text[i]) != keyword[i]) return false;
  }
  return true;
}

bool IsReservedWord(std::string_view word) {
  if (word.size() > 10) return false;
  char upper[10];
  for (size_t i = 0; i < word.size(); ++i) upper[i] = ToUpper(word[i]);
  std::string_view key(upper, word.size());
  return std::find(std::begin(kReservedWords), std::end(kReservedWords), key) !=
         std::end(kReservedWords);
}

Token Lexer::Make(TokenKind kind, size_t start, size_t end) {
  pos_ = end;
  return Token{kind, query_.substr(start, end - start), start};
}

Token Lexer::Fail(size_t start, size_t end, std::string message) {
  failed_ = true;
  error_ = std::move(message);
  last_error_ = Token{TokenKind::kError, query_.substr(start, end - start), start};
  pos_ = query_.size();
  return last_error_;
}

void Lexer::SkipSpaceAndComments() {
  const size_t n = query_.size();
  while (pos_ < n) {
    char c = query_[pos_];
    if (IsSpace(c)) {
      ++pos_;
    } else if (c == '-' && pos_ + 1 < n && query_[pos_ + 1] == '-') {
      while (pos_ < n && query_[pos_] != '\n') ++pos_;
    } else if (c == '/' && pos_ + 1 < n && query_[pos_ + 1] == '*') {
      const size_t start = pos_;
      int depth = 0;
      while (pos_ < n) {
        if (query_[pos_] == '/' && pos_ + 1 < n && query_[pos_ + 1] == '*') {
          ++depth;
          pos_ += 2;
        } else if (query_[pos_] == '*' && pos_ + 1 < n && query_[pos_ + 1] == '/') {
          pos_ += 2;
          if (--depth == 0) break;
        } else {
          ++pos_;
        }
      }
      if (depth != 0) {
        Fail(start, n, "Multiline comment is not closed");
        return;
      }
    } else {
      return;
    }
  }
}

Token Lexer::LexNumber(size_t start) {
  const size_t n = query_.size();
  size_t p = start;
  if (query_[p] == '0' && p + 2 < n && (query_[p + 1] == 'x' || query_[p + 1] == 'X') &&
      IsHexDigit(query_[p + 2])) {
    p += 2;
    while (p < n && IsHexDigit(query_[p])) ++p;
  } else {
    while (p < n && IsDigit(query_[p])) ++p;
    if (p < n && query_[p] == '.') {
      ++p;
      while (p < n && IsDigit(query_[p])) ++p;
    }
    if (p < n && (query_[p] == 'e' || query_[p] == 'E')) {
      size_t q = p + 1;
      if (q < n && (query_[q] == '+' || query_[q] == '-')) ++q;
      if (q < n && IsDigit(query_[q])) {
        p = q;
        while (p < n && IsDigit(query_[p])) ++p;
      }
    }
  }
  if (p < n && IsWordChar(query_[p])) {
    size_t end = p;
    while (end < n && IsWordChar(query_[end])) ++end;
    return Fail(start, end, "Invalid number");
  }
  return Make(TokenKind::kNumber, start, p);
}

Token Lexer::LexQuoted(size_t start, char quote) {
  const size_t n = query_.size();
  size_t p = start + 1;
  while (p < n) {
    char c = query_[p];
    if (c == '\\') {
      p += 2;
    } else if (c == quote) {
      if (p + 1 < n && query_[p + 1] == quote) {
        p += 2;
      } else {
        return Make(quote == '\'' ? TokenKind::kString : TokenKind::kQuotedIdentifier, start,
                    p + 1);
      }
    } else {
      ++p;
    }
  }
  const char* what = quote == '\'' ? "Single quoted string is not closed"
                     : quote == '"' ? "Double quoted string is not closed"
                                    : "Back quoted string is not closed";
  return Fail(start, n, what);
}

Token Lexer::Next() {
  if (failed_) return last_error_;
  SkipSpaceAndComments();
  if (failed_) return last_error_;
  const size_t n = query_.size();
  if (pos_ >= n) return Token{TokenKind::kEnd, query_.substr(n, 0), n};
  const size_t start = pos_;
  const char c = query_[start];
  const char next = start + 1 < n ? query_[start + 1] : '\0';
  if (IsWordStart(c)) {
    size_t p = start + 1;
    while (p < n && IsWordChar(query_[p])) ++p;
    return Make(TokenKind::kBareWord, start, p);
  }
  if (IsDigit(c) || (c == '.' && IsDigit(next))) return LexNumber(start);
  if (c == '\'' || c == '"' || c == '`') return LexQuoted(start, c);
  static constexpr std::string_view kTwoChar[] = {"==", "!=", "<>", "<=", ">=", "::", "||", "->"};
  for (std::string_view op : kTwoChar) {
    if (c == op[0] && next == op[1]) return Make(TokenKind::kPunctuation, start, start + 2);
  }
  static constexpr std::string_view kOneChar = "(),.;*/%+-=<>?[]{}:";
  if (kOneChar.find(c) != std::string_view::npos) {
    return Make(TokenKind::kPunctuation, start, start + 1);
  }
  return Fail(start, start + 1, "Unrecognized token");
}

std::string Unquote(std::string_view quoted) { return core::UnquoteText(quoted); }

}  // namespace granite::coordinator::sql
