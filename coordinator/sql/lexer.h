// The SQL lexer: turns a query string into tokens, one at a time, for the parser (parser.h).
// Tokens point into the query (no copies); string literals and quoted identifiers are unescaped on
// demand with Unquote(). The lexer is incremental so that INSERT ... FORMAT can stop it before the
// inline data, which is not SQL.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace granite::coordinator::sql {

enum class TokenKind {
  kEnd,               // end of the query; text is empty
  kBareWord,          // identifier or keyword: [A-Za-z_][A-Za-z0-9_$]*
  kQuotedIdentifier,  // "name" or `name`; text includes the quotes
  kNumber,            // 123, 1.5, 1e10, .5, 0x1F; text as written
  kString,            // 'text'; text includes the quotes
  kPunctuation,       // ( ) , . ; * / % + - = == != <> < > <= >= :: || ? [ ] { } :
  kError,             // malformed input; error() says what is wrong
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string_view text;  // the token's bytes in the query
  size_t position = 0;    // 0-based byte offset of the first byte in the query

  size_t end() const { return position + text.size(); }
  // Returns true if this is a bare word equal to `keyword` ignoring ASCII case.
  // REQUIRES: `keyword` is upper-case.
  bool Is(std::string_view keyword) const;
  // Returns true if this is the punctuation `symbol`.
  // REQUIRES: `symbol` has one or two characters.
  bool IsSymbol(std::string_view symbol) const {
    return kind == TokenKind::kPunctuation && text.size() == symbol.size() &&
           text[0] == symbol[0] && (text.size() == 1 || text[1] == symbol[1]);
  }
};

// Splits a query into tokens, skipping whitespace, `-- line` comments and `/* block */` comments
// (which nest, as in ClickHouse).
// Thread-safety: none; one Lexer per parse.
class Lexer {
 public:
  // REQUIRES: `query` outlives the lexer and every token it returns.
  explicit Lexer(std::string_view query) : query_(query) {}

  // Returns the next token. After kEnd or kError, keeps returning the same token.
  Token Next();

  // Explains the last kError token ("Single quoted string is not closed").
  const std::string& error() const { return error_; }

 private:
  void SkipSpaceAndComments();
  Token Make(TokenKind kind, size_t start, size_t end);
  Token Fail(size_t start, size_t end, std::string message);
  Token LexNumber(size_t start);
  Token LexQuoted(size_t start, char quote);

  std::string_view query_;
  size_t pos_ = 0;
  bool failed_ = false;
  Token last_error_;
  std::string error_;
};

// Returns the contents of a quoted token (string literal or quoted identifier) with the quotes
// removed and escapes resolved like ClickHouse: \n \t \r \0 \b \f \a \v \e \xHH \\ \' \" \` are
// unescaped, an unknown escape keeps its backslash ('\.' is backslash and dot), and a doubled
// quote stands for one quote.
// REQUIRES: `quoted` is the text of a kString or kQuotedIdentifier token.
std::string Unquote(std::string_view quoted);

// Returns true for words that end an expression or start a clause (FROM, WHERE, AND, AS, ...).
// Such a word cannot be a bare alias or a plain identifier (it still names a function when
// followed by '(').
bool IsReservedWord(std::string_view word);

}  // namespace granite::coordinator::sql
