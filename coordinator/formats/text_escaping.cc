#include "coordinator/formats/text_escaping.h"

namespace granite::coordinator {

bool AlignsLeft(core::TypeId type) {
  const core::TypeId base = core::BaseOf(type);
  return base == core::TypeId::kString || base == core::TypeId::kFixedString ||
         base == core::TypeId::kBool || base == core::TypeId::kUUID || base == core::TypeId::kArray ||
         base == core::TypeId::kTuple;
}

void AppendCsvQuoted(std::string_view text, std::string* out) {
  out->push_back('"');
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '"') continue;
    out->append(text.data() + start, i + 1 - start);  // includes the quote
    out->push_back('"');
    start = i + 1;
  }
  out->append(text.data() + start, text.size() - start);
  out->push_back('"');
}

void AppendJsonString(std::string_view text, std::string* out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out->push_back('"');
  size_t start = 0;
  const size_t n = text.size();
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    const char* escape = nullptr;
    char unicode[7];
    size_t skip = 0;
    switch (c) {
      case '"': escape = "\\\""; break;
      case '\\': escape = "\\\\"; break;
      case '/': escape = "\\/"; break;
      case '\b': escape = "\\b"; break;
      case '\f': escape = "\\f"; break;
      case '\n': escape = "\\n"; break;
      case '\r': escape = "\\r"; break;
      case '\t': escape = "\\t"; break;
      default:
        if (c <= 0x1F) {
          unicode[0] = '\\';
          unicode[1] = 'u';
          unicode[2] = '0';
          unicode[3] = '0';
          unicode[4] = kHex[c >> 4];
          unicode[5] = kHex[c & 0xF];
          unicode[6] = '\0';
          escape = unicode;
        } else if (c == 0xE2 && i + 2 < n && text[i + 1] == '\x80' &&
                   (text[i + 2] == '\xA8' || text[i + 2] == '\xA9')) {
          escape = text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
          skip = 2;
        } else {
          continue;
        }
    }
    out->append(text.data() + start, i - start);
    out->append(escape);
    i += skip;
    start = i + 1;
  }
  out->append(text.data() + start, n - start);
  out->push_back('"');
}

size_t Utf8Width(std::string_view text) {
  size_t width = 0;
  for (char c : text) width += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return width;
}

void AppendErrorSnippet(std::string_view text, size_t max_bytes, std::string* out) {
  if (text.size() > max_bytes) {
    AppendTsvEscaped(text.substr(0, max_bytes), out);
    out->append("...");
  } else {
    AppendTsvEscaped(text, out);
  }
}

}  // namespace granite::coordinator
