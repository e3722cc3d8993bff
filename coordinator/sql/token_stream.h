// The parser's view of the lexer (lexer.h): a few tokens of lookahead, keyword matching, and the
// ClickHouse-style syntax error message that every parse failure goes through.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "coordinator/sql/lexer.h"

namespace granite::coordinator::sql {

// Buffers up to kMaxLookahead tokens ahead of the parser's position.
// Thread-safety: none; one TokenStream per parse.
class TokenStream {
 public:
  static constexpr size_t kMaxLookahead = 8;

  // REQUIRES: `query` outlives the stream and every token it returns.
  explicit TokenStream(std::string_view query);

  // Returns the k-th token ahead without consuming it (Peek(0) is the next token).
  // REQUIRES: k < kMaxLookahead.
  Token Peek(size_t k = 0) {
    if (k < count_) return ring_[(head_ + k) % kMaxLookahead];
    return Fill(k);
  }
  // Consumes and returns the next token.
  Token Take();
  // Consumes the next token if it is the keyword (upper-case) and returns whether it did.
  bool TakeKeyword(std::string_view keyword);
  // Consumes the next token if it is the punctuation `symbol` and returns whether it did.
  bool TakeSymbol(std::string_view symbol);
  // Consumes the keyword or fails with "Expected <keyword>".
  absl::Status ExpectKeyword(std::string_view keyword);
  // Consumes the symbol or fails with "Expected '<symbol>'".
  absl::Status ExpectSymbol(std::string_view symbol);

  // Returns a SYNTAX_ERROR naming `token`'s position, line and column, its text and an excerpt of
  // the query from there, then `what` (e.g. "Expected one of: FROM, WHERE"). For a lexer error
  // token, the lexer's explanation replaces `what`.
  absl::Status ErrorAt(const Token& token, std::string_view what) const;
  // Same for the next token.
  absl::Status Error(std::string_view what) { return ErrorAt(Peek(), what); }

  std::string_view query() const { return query_; }

 private:
  // Lexes tokens until Peek(k) is buffered and returns it.
  Token Fill(size_t k);

  std::string_view query_;
  Lexer lexer_;
  std::array<Token, kMaxLookahead> ring_;
  size_t head_ = 0;   // index of Peek(0) in ring_
  size_t count_ = 0;  // buffered tokens
};

}  // namespace granite::coordinator::sql
