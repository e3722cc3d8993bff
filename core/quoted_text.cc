#include "core/quoted_text.h"

#include "core/tuple_type.h"

#include <cctype>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// Walks the text of one array: Next* functions read one element's text and advance.
class ArrayTextReader {
 public:
  explicit ArrayTextReader(std::string_view text) : text_(text) {}

  void SkipSpaces() {
    while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
  }
  bool Take(char c) {
    SkipSpaces();
    if (pos_ >= text_.size() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  bool AtEnd() {
    SkipSpaces();
    return pos_ == text_.size();
  }
  char Peek() {
    SkipSpaces();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  // Reads a quoted element ('...' or "..."), quotes included; false when it is not closed.
  bool Quoted(std::string_view* out) {
    const char quote = text_[pos_];
    size_t i = pos_ + 1;
    while (i < text_.size()) {
      if (text_[i] == '\\') {
        i += 2;
        continue;
      }
      if (text_[i] == quote) {
        if (i + 1 < text_.size() && text_[i + 1] == quote) {  // a doubled quote
          i += 2;
          continue;
        }
        *out = text_.substr(pos_, i + 1 - pos_);
        pos_ = i + 1;
        return true;
      }
      ++i;
    }
    return false;
  }
  // Reads a nested array's text, brackets included, skipping brackets inside quotes.
  bool Bracketed(std::string_view* out) {
    int depth = 0;
    size_t i = pos_;
    while (i < text_.size()) {
      const char c = text_[i];
      if (c == '\'' || c == '"') {
        const size_t saved = pos_;
        pos_ = i;
        std::string_view quoted;
        if (!Quoted(&quoted)) return false;
        i = pos_;
        pos_ = saved;
        continue;
      }
      if (c == '[') ++depth;
      if (c == ']' && --depth == 0) {
        *out = text_.substr(pos_, i + 1 - pos_);
        pos_ = i + 1;
        return true;
      }
      ++i;
    }
    return false;
  }
  // Reads a bare element: up to the next ',' or ']' (trailing spaces dropped).
  std::string_view Bare() {
    const size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != ']') ++pos_;
    size_t end = pos_;
    while (end > start && IsSpace(text_[end - 1])) --end;
    return text_.substr(start, end - start);
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

// Parses one element's text into `nested` (of type `element`).
absl::Status ParseElement(ArrayTextReader& reader, TypeId element, Column* nested, bool* ok) {
  const char first = reader.Peek();
  if (IsArray(element)) {
    std::string_view inner;
    if (first != '[' || !reader.Bracketed(&inner)) return *ok = false, absl::OkStatus();
    return ParseArrayText(inner, element, nested);
  }
  if (first == '\'' || first == '"') {
    std::string_view quoted;
    if (!reader.Quoted(&quoted)) return *ok = false, absl::OkStatus();
    return ParseValueText(UnquoteText(quoted), RemoveNullable(element), nested);
  }
  const std::string_view bare = reader.Bare();
  if (bare.empty()) return *ok = false, absl::OkStatus();
  if ((bare == "NULL" || bare == "null") && nested->nullable()) {
    nested->AppendNull();
    return absl::OkStatus();
  }
  return ParseValueText(bare, RemoveNullable(element), nested);
}

}  // namespace

void AppendTsvEscaped(std::string_view text, std::string* out) {
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char replacement;
    switch (text[i]) {
      case '\\': replacement = '\\'; break;
      case '\t': replacement = 't'; break;
      case '\n': replacement = 'n'; break;
      case '\r': replacement = 'r'; break;
      case '\0': replacement = '0'; break;
      case '\b': replacement = 'b'; break;
      case '\f': replacement = 'f'; break;
      case '\'': replacement = '\''; break;
      default: continue;
    }
    out->append(text.data() + start, i - start);
    out->push_back('\\');
    out->push_back(replacement);
    start = i + 1;
  }
  out->append(text.data() + start, text.size() - start);
}

void AppendSqlQuoted(std::string_view text, std::string* out) {
  out->push_back('\'');
  AppendTsvEscaped(text, out);
  out->push_back('\'');
}

std::string UnquoteText(std::string_view quoted) {
  std::string out;
  if (quoted.size() < 2) return out;
  const char quote = quoted.front();
  std::string_view body = quoted.substr(1, quoted.size() - 2);
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c == quote && i + 1 < body.size() && body[i + 1] == quote) {
      out.push_back(quote);
      ++i;
      continue;
    }
    if (c != '\\' || i + 1 >= body.size()) {
      out.push_back(c);
      continue;
    }
    char e = body[++i];
    switch (e) {
      case 'n': out.push_back('\n'); break;
      case 't': out.push_back('\t'); break;
      case 'r': out.push_back('\r'); break;
      case '0': out.push_back('\0'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'a': out.push_back('\a'); break;
      case 'v': out.push_back('\v'); break;
      case 'e': out.push_back('\x1b'); break;
      case '\\':
      case '\'':
      case '"':
      case '`': out.push_back(e); break;
      case 'x':
      case 'X':
        if (i + 2 < body.size() && IsHexDigit(body[i + 1]) && IsHexDigit(body[i + 2])) {
          out.push_back(static_cast<char>(HexValue(body[i + 1]) * 16 + HexValue(body[i + 2])));
          i += 2;
          break;
        }
        [[fallthrough]];
      default:
        out.push_back('\\');
        out.push_back(e);
    }
  }
  return out;
}

void AppendQuotedValueText(const Column& column, size_t row, std::string* out) {
  if (column.IsNullAt(row)) {
    out->append("NULL");
    return;
  }
  switch (BaseOf(column.type())) {
    case TypeId::kArray: return AppendArrayText(column, row, out);
    case TypeId::kTuple: return AppendTupleText(column, row, out);
    case TypeId::kFixedString:
    case TypeId::kString: return AppendSqlQuoted(column.StringAt(row), out);
    case TypeId::kDate:
    case TypeId::kDateTime:
    case TypeId::kDateTime64:
    case TypeId::kUUID:
      out->push_back('\'');
      AppendValueText(column, row, out);
      out->push_back('\'');
      return;
    default: AppendValueText(column, row, out);
  }
}

void AppendTupleText(const Column& column, size_t row, std::string* out) {
  if (IsMap(column.type())) {  // {k1:v1,k2:v2}
    const Column& keys = column.Element(0);
    const Column& values = column.Element(1);
    out->push_back('{');
    for (uint64_t i = keys.ArrayBegin(row); i < keys.Offsets()[row]; ++i) {
      if (i != keys.ArrayBegin(row)) out->push_back(',');
      AppendQuotedValueText(keys.Nested(), i, out);
      out->push_back(':');
      AppendQuotedValueText(values.Nested(), i, out);
    }
    out->push_back('}');
    return;
  }
  if (IsArrayOfTuples(column.type())) {  // [(a1,b1),(a2,b2)]
    const Column& first = column.Element(0);
    out->push_back('[');
    for (uint64_t i = first.ArrayBegin(row); i < first.Offsets()[row]; ++i) {
      if (i != first.ArrayBegin(row)) out->push_back(',');
      out->push_back('(');
      for (size_t k = 0; k < column.TupleSize(); ++k) {
        if (k > 0) out->push_back(',');
        AppendQuotedValueText(column.Element(k).Nested(), i, out);
      }
      out->push_back(')');
    }
    out->push_back(']');
    return;
  }
  out->push_back('(');
  for (size_t i = 0; i < column.TupleSize(); ++i) {
    if (i > 0) out->push_back(',');
    AppendQuotedValueText(column.Element(i), row, out);
  }
  out->push_back(')');
}

void AppendArrayText(const Column& column, size_t row, std::string* out) {
  out->push_back('[');
  const Column& nested = column.Nested();
  for (uint64_t i = column.ArrayBegin(row); i < column.Offsets()[row]; ++i) {
    if (i != column.ArrayBegin(row)) out->push_back(',');
    AppendQuotedValueText(nested, i, out);
  }
  out->push_back(']');
}

absl::Status ParseArrayText(std::string_view text, TypeId type, Column* column) {
  ArrayTextReader reader(text);
  Column& nested = column->MutableNested();
  const size_t before = nested.size();
  auto fail = [&](absl::Status status) {
    Column rolled_back = nested.Slice(0, before);
    nested = std::move(rolled_back);
    return status;
  };
  auto malformed = [&] {
    return fail(Error(ErrorCode::kCannotParseText,
                      absl::StrCat("Cannot parse \"", ToAbsl(text.substr(0, 100)), "\" as ",
                                   ToAbsl(TypeName(type)))));
  };
  if (!reader.Take('[')) return malformed();
  if (!reader.Take(']')) {
    while (true) {
      bool ok = true;
      absl::Status status = ParseElement(reader, ArrayElementOf(type), &nested, &ok);
      if (!status.ok()) return fail(std::move(status));
      if (!ok) return malformed();
      if (reader.Take(']')) break;
      if (!reader.Take(',')) return malformed();
    }
  }
  if (!reader.AtEnd()) return malformed();
  column->AppendArrayEnd();
  return absl::OkStatus();
}

absl::Status ParseQuotedValueText(std::string_view text, TypeId type, Column* column) {
  ArrayTextReader reader(text);
  const size_t before = column->size();
  bool ok = true;
  absl::Status status = ParseElement(reader, type, column, &ok);
  if (status.ok() && ok && reader.AtEnd()) return absl::OkStatus();
  if (column->size() > before) {
    Column rolled_back = column->Slice(0, before);
    *column = std::move(rolled_back);
  }
  if (!status.ok()) return status;
  return Error(ErrorCode::kCannotParseText,
               absl::StrCat("Cannot parse \"", ToAbsl(text.substr(0, 100)), "\" as ",
                            ToAbsl(TypeName(type))));
}

}  // namespace granite::core
