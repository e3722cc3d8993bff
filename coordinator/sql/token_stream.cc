#include "coordinator/sql/token_stream.h"

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"

namespace granite::coordinator::sql {
namespace {

constexpr size_t kExcerptBytes = 40;

// Returns at most kExcerptBytes of `text`, cut before a UTF-8 continuation byte and without
// trailing whitespace.
std::string_view Excerpt(std::string_view text) {
  if (text.size() > kExcerptBytes) {
    size_t cut = kExcerptBytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text = text.substr(0, cut);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\t' ||
                           text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

}  // namespace

TokenStream::TokenStream(std::string_view query) : query_(query), lexer_(query) {}

Token TokenStream::Fill(size_t k) {
  while (count_ <= k) {
    ring_[(head_ + count_) % kMaxLookahead] = lexer_.Next();
    ++count_;
  }
  return ring_[(head_ + k) % kMaxLookahead];
}

Token TokenStream::Take() {
  Token token = Peek(0);
  // The end and error tokens stay in place so that every later Peek sees them again.
  if (token.kind != TokenKind::kEnd && token.kind != TokenKind::kError) {
    head_ = (head_ + 1) % kMaxLookahead;
    --count_;
  }
  return token;
}

bool TokenStream::TakeKeyword(std::string_view keyword) {
  if (!Peek().Is(keyword)) return false;
  Take();
  return true;
}

bool TokenStream::TakeSymbol(std::string_view symbol) {
  if (!Peek().IsSymbol(symbol)) return false;
  Take();
  return true;
}

absl::Status TokenStream::ExpectKeyword(std::string_view keyword) {
  if (TakeKeyword(keyword)) return absl::OkStatus();
  return Error(absl::StrCat("Expected ", core::ToAbsl(keyword)));
}

absl::Status TokenStream::ExpectSymbol(std::string_view symbol) {
  if (TakeSymbol(symbol)) return absl::OkStatus();
  return Error(absl::StrCat("Expected '", core::ToAbsl(symbol), "'"));
}

absl::Status TokenStream::ErrorAt(const Token& token, std::string_view what) const {
  size_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < token.position && i < query_.size(); ++i) {
    if (query_[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  std::string message = absl::StrCat("Syntax error: failed at position ", token.position + 1,
                                     " (line ", line, ", col ", token.position - line_start + 1,
                                     ")");
  if (token.kind == TokenKind::kEnd) {
    absl::StrAppend(&message, " (end of query)");
  } else {
    absl::StrAppend(&message, " ('", core::ToAbsl(Excerpt(token.text)), "'): ",
                    core::ToAbsl(Excerpt(query_.substr(token.position))));
  }
  std::string_view explanation = token.kind == TokenKind::kError ? lexer_.error() : what;
  if (!explanation.empty()) absl::StrAppend(&message, ". ", core::ToAbsl(explanation));
  return core::Error(core::ErrorCode::kSyntaxError, message);
}

}  // namespace granite::coordinator::sql
