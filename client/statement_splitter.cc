#include "client/statement_splitter.h"

#include <cctype>

namespace granite::client {
namespace {

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Returns the position just past the quoted token that opens at `pos` with `quote`, or
// text.size() if the token is not closed. A backslash escapes the next character; a doubled quote
// ('it''s') needs no special case: it closes the token and the caller opens a new one.
size_t SkipQuoted(std::string_view text, size_t pos, char quote) {
  for (size_t i = pos + 1; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == quote) {
      return i + 1;
    }
  }
  return text.size();
}

// Returns the position just past the line comment that opens at `pos` ("--"), newline included.
size_t SkipLineComment(std::string_view text, size_t pos) {
  size_t end = text.find('\n', pos);
  return end == std::string_view::npos ? text.size() : end + 1;
}

// Returns the position just past the (possibly nested) block comment that opens at `pos` ("/*"),
// or text.size() if it is not closed.
size_t SkipBlockComment(std::string_view text, size_t pos) {
  int depth = 0;
  size_t i = pos;
  while (i + 1 < text.size()) {
    if (text[i] == '/' && text[i + 1] == '*') {
      ++depth;
      i += 2;
    } else if (text[i] == '*' && text[i + 1] == '/') {
      i += 2;
      if (--depth == 0) return i;
    } else {
      ++i;
    }
  }
  return text.size();
}

bool StartsLineComment(std::string_view text, size_t i) {
  return text[i] == '-' && i + 1 < text.size() && text[i + 1] == '-';
}

bool StartsBlockComment(std::string_view text, size_t i) {
  return text[i] == '/' && i + 1 < text.size() && text[i + 1] == '*';
}

// Returns the position just past the comment at `i`, or `i` if no comment opens there.
size_t SkipComment(std::string_view text, size_t i) {
  if (StartsLineComment(text, i)) return SkipLineComment(text, i);
  if (StartsBlockComment(text, i)) return SkipBlockComment(text, i);
  return i;
}

std::string_view Trim(std::string_view text) {
  size_t begin = 0;
  size_t end = text.size();
  while (begin < end && IsSpace(text[begin])) ++begin;
  while (end > begin && IsSpace(text[end - 1])) --end;
  return text.substr(begin, end - begin);
}

}  // namespace

SplitResult SplitStatements(std::string_view script) {
  SplitResult result;
  size_t start = 0;
  size_t i = 0;
  while (i < script.size()) {
    char c = script[i];
    if (c == '\'' || c == '"' || c == '`') {
      i = SkipQuoted(script, i, c);
    } else if (size_t after = SkipComment(script, i); after != i) {
      i = after;
    } else if (c == ';') {
      std::string_view statement = script.substr(start, i - start);
      if (!IsBlank(statement)) result.statements.emplace_back(Trim(statement));
      start = ++i;
    } else {
      ++i;
    }
  }
  result.remainder = std::string(script.substr(start));
  return result;
}

bool IsBlank(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    if (IsSpace(text[i])) {
      ++i;
    } else if (size_t after = SkipComment(text, i); after != i) {
      i = after;
    } else {
      return false;
    }
  }
  return true;
}

std::string FirstKeyword(std::string_view statement) {
  size_t i = 0;
  while (i < statement.size()) {
    if (IsSpace(statement[i]) || statement[i] == '(') {
      ++i;
    } else if (size_t after = SkipComment(statement, i); after != i) {
      i = after;
    } else {
      break;
    }
  }
  std::string word;
  for (; i < statement.size() && IsWordChar(statement[i]); ++i) {
    word.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(statement[i]))));
  }
  return word;
}

}  // namespace granite::client
