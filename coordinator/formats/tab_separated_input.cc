// The TSV reader scans each field once for '\t', '\n' and '\\'; only fields that contain a
// backslash are copied (unescaped into a reused buffer), all others are parsed in place. A chunk
// with limits first finds its end with memchr for '\n' (a '\n' after an odd run of backslashes
// is escaped), so no row is split between chunks.
#include "coordinator/formats/tab_separated_input.h"

#include <cstring>
#include <vector>

#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Splits one header line into unescaped names.
std::vector<std::string> SplitHeader(std::string_view line, bool raw) {
  std::vector<std::string> names;
  std::string name;
  size_t start = 0;
  while (true) {
    size_t tab = line.find('\t', start);
    std::string_view field = line.substr(start, tab == std::string_view::npos ? tab : tab - start);
    if (raw) {
      name.assign(field);
    } else {
      UnescapeTsv(field, &name);
    }
    names.push_back(name);
    if (tab == std::string_view::npos) break;
    start = tab + 1;
  }
  return names;
}

}  // namespace

void UnescapeTsv(std::string_view text, std::string* out) {
  out->clear();
  const size_t n = text.size();
  for (size_t i = 0; i < n; ++i) {
    char c = text[i];
    if (c != '\\' || i + 1 == n) {
      out->push_back(c);
      continue;
    }
    char e = text[++i];
    if (e == 'x' && i + 2 < n && HexValue(text[i + 1]) >= 0 && HexValue(text[i + 2]) >= 0) {
      out->push_back(static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2])));
      i += 2;
      continue;
    }
    if (e == 'N') continue;  // \N inside a longer field reads as nothing, as in ClickHouse
    char decoded;
    switch (e) {
      case 'a': decoded = '\a'; break;
      case 'b': decoded = '\b'; break;
      case 'e': decoded = '\x1B'; break;
      case 'f': decoded = '\f'; break;
      case 'n': decoded = '\n'; break;
      case 'r': decoded = '\r'; break;
      case 't': decoded = '\t'; break;
      case 'v': decoded = '\v'; break;
      case '0': decoded = '\0'; break;
      default: decoded = e;
    }
    // Like ClickHouse, an unknown escape such as \% keeps its backslash (handy for LIKE patterns).
    bool keeps_backslash = decoded != '\\' && decoded != '\'' && decoded != '"' &&
                           decoded != '`' && decoded != '/' && decoded != '=' &&
                           static_cast<unsigned char>(decoded) >= 0x20 && decoded != 0x7F;
    if (keeps_backslash) out->push_back('\\');
    out->push_back(decoded);
  }
}

namespace {

// Returns the index of the '\n' that ends the row starting at `from`, or npos. A '\n' after an
// odd run of backslashes is escaped (the parser reads backslashes in pairs from the run start).
size_t FindRowEnd(std::string_view data, size_t from, bool raw) {
  size_t q = from;
  while (q < data.size()) {
    const char* nl = static_cast<const char*>(memchr(data.data() + q, '\n', data.size() - q));
    if (nl == nullptr) return std::string_view::npos;
    size_t t = nl - data.data();
    if (raw) return t;
    size_t backslashes = 0;
    while (t - backslashes > from && data[t - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return t;
    q = t + 1;
  }
  return std::string_view::npos;
}

// Returns where the chunk of `data` ends (CutChunk).
size_t FindCut(std::string_view data, bool last, const InputLimits& limits, int headers, bool raw,
               bool* final) {
  size_t text_end = data.size();  // trailing blank lines are not rows
  while (text_end > 0 && data[text_end - 1] == '\n') --text_end;
  return CutChunk(data, text_end, last, limits, headers, final, [&](size_t pos, bool header) {
    const size_t t = header ? data.find('\n', pos) : FindRowEnd(data, pos, raw);
    return t == std::string_view::npos || t >= text_end ? kNoCompleteRow : t + 1;
  });
}

}  // namespace

size_t CutTabSeparated(std::string_view data, bool last, const InputLimits& limits, bool raw,
                       bool* final) {
  return FindCut(data, last, limits, /*headers=*/0, raw, final);
}

absl::StatusOr<size_t> ParseTabSeparated(std::string_view data, bool last,
                                         const InputLimits& limits, int header_lines, bool raw,
                                         InputProgress* progress, InputBlockBuilder* builder) {
  bool final;
  const size_t cut =
      FindCut(data, last, limits, progress->started ? 0 : header_lines, raw, &final);
  if (cut == 0 && !final) return 0;
  const char* p = data.data();
  const char* end = p + cut;
  if (final) {
    while (end > p && end[-1] == '\n') --end;
  }

  size_t line = progress->lines;
  if (!progress->started) {
    progress->started = true;
    progress->field_to_column.clear();
    for (size_t c = 0; c < builder->column_count(); ++c) {
      progress->field_to_column.push_back(static_cast<int>(c));
    }
    for (int h = 0; h < header_lines && p < end; ++h) {
      const char* eol = static_cast<const char*>(memchr(p, '\n', end - p));
      if (eol == nullptr) eol = end;
      ++line;
      if (h == 0) {
        builder->SetPosition(0, line);
        ASSIGN_OR_RETURN(progress->field_to_column,
                         builder->MapHeader(SplitHeader(std::string_view(p, eol - p), raw)));
      }
      p = eol == end ? end : eol + 1;
    }
  }
  const std::vector<int>& field_to_column = progress->field_to_column;
  const size_t fields = field_to_column.size();
  if (fields == 0) {
    if (p < end) {
      return builder->ExpectedError("end of data", std::string_view(p, end - p), -1,
                                    "no columns to read");
    }
    progress->lines = line;
    return cut;
  }

  std::string scratch;
  size_t row = progress->rows;
  while (p < end) {
    ++row;
    ++line;
    builder->SetPosition(row, line);
    for (size_t f = 0; f < fields; ++f) {
      const int column = field_to_column[f];
      const char* start = p;
      bool escaped = false;
      while (p < end && *p != '\t' && *p != '\n') {
        if (*p == '\\' && !raw) {
          escaped = true;
          if (p + 1 < end) ++p;  // the escaped byte may itself be '\t' or '\n'
        }
        ++p;
      }
      std::string_view field(start, p - start);
      // An array's field is its text as it stands: its strings carry quoted-string escapes; so
      // is a tuple's or a map's (a verbatim column).
      if (escaped && !(column >= 0 && (core::IsArray(builder->type(column)) ||
                                       builder->verbatim(column)))) {
        if (field == "\\N") {
          RETURN_IF_ERROR(builder->AppendNull(column));
        } else {
          UnescapeTsv(field, &scratch);
          RETURN_IF_ERROR(builder->AppendText(column, scratch));
        }
      } else {
        RETURN_IF_ERROR(builder->AppendText(column, field));
      }
      if (f + 1 < fields) {
        if (p == end || *p != '\t') {
          return builder->ExpectedError(
              "'\\t'", std::string_view(p, end - p), column,
              "the row has " + std::to_string(f + 1) + " of " + std::to_string(fields) + " columns");
        }
        ++p;
      } else if (p < end) {
        if (*p != '\n') {
          return builder->ExpectedError("'\\n'", std::string_view(p, end - p), column,
                                        "the row has more than " + std::to_string(fields) +
                                            " columns");
        }
        ++p;
      }
    }
    builder->AppendDefaultsForUnmapped(field_to_column);
  }
  progress->rows = row;
  progress->lines = line;
  return cut;
}

}  // namespace granite::coordinator
