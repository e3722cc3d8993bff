// The JSONEachRow reader is a small hand-written JSON scanner: objects are walked key by key,
// strings without escapes are parsed in place, keys are matched first against the column after
// the previous key (rows usually list keys in table order) and then through a hash map.
#include "coordinator/formats/json_each_row_input.h"

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(uint32_t code_point, std::string* out) {
  if (code_point < 0x80) {
    out->push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

// Walks JSON text, counting lines.
class JsonCursor {
 public:
  JsonCursor(std::string_view data, size_t first_line)
      : p_(data.data()), end_(data.data() + data.size()), line_(first_line) {}

  bool AtEnd() const { return p_ == end_; }
  char Peek() const { return *p_; }
  void Advance() { ++p_; }
  std::string_view Rest() const { return std::string_view(p_, end_ - p_); }
  size_t line() const { return line_; }

  void SkipWhitespace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) {
      line_ += *p_ == '\n';
      ++p_;
    }
  }

  // Reads a string literal at the cursor (which is at '"'); the result points into the data or
  // into `scratch`. Returns false if the literal is malformed or not closed.
  bool ReadString(std::string* scratch, std::string_view* result) {
    ++p_;  // opening quote
    const char* start = p_;
    while (p_ < end_ && *p_ != '"' && *p_ != '\\') ++p_;
    if (p_ == end_) return false;
    if (*p_ == '"') {
      *result = std::string_view(start, p_ - start);
      ++p_;
      return true;
    }
    scratch->assign(start, p_ - start);
    while (p_ < end_ && *p_ != '"') {
      if (*p_ != '\\') {
        line_ += *p_ == '\n';
        scratch->push_back(*p_++);
        continue;
      }
      if (++p_ == end_) return false;
      char e = *p_++;
      switch (e) {
        case '"': scratch->push_back('"'); break;
        case '\\': scratch->push_back('\\'); break;
        case '/': scratch->push_back('/'); break;
        case 'b': scratch->push_back('\b'); break;
        case 'f': scratch->push_back('\f'); break;
        case 'n': scratch->push_back('\n'); break;
        case 'r': scratch->push_back('\r'); break;
        case 't': scratch->push_back('\t'); break;
        case 'u': {
          uint32_t code_point;
          if (!ReadHex4(&code_point)) return false;
          if (code_point >= 0xD800 && code_point <= 0xDBFF && end_ - p_ >= 6 && p_[0] == '\\' &&
              p_[1] == 'u') {
            p_ += 2;
            uint32_t low;
            if (!ReadHex4(&low)) return false;
            if (low >= 0xDC00 && low <= 0xDFFF) {
              code_point = 0x10000 + ((code_point - 0xD800) << 10) + (low - 0xDC00);
            } else {
              AppendUtf8(code_point, scratch);
              code_point = low;
            }
          }
          AppendUtf8(code_point, scratch);
          break;
        }
        default: return false;
      }
    }
    if (p_ == end_) return false;
    ++p_;  // closing quote
    *result = *scratch;
    return true;
  }

  // Reads a bare token (number, true, false, null) up to the next delimiter. A quote or an
  // opening bracket ends it too: they cannot be part of one, and FindCut, which finds rows by
  // their braces outside string literals, must see the same structure as the parser.
  std::string_view ReadToken() {
    const char* start = p_;
    while (p_ < end_ && *p_ != ',' && *p_ != '}' && *p_ != ']' && *p_ != ' ' && *p_ != '\t' &&
           *p_ != '\n' && *p_ != '\r' && *p_ != '"' && *p_ != '{' && *p_ != '[') {
      ++p_;
    }
    return std::string_view(start, p_ - start);
  }

  // Skips a nested object or array at the cursor and returns its raw text; false if unbalanced.
  bool ReadNested(std::string* scratch, std::string_view* result) {
    const char* start = p_;
    int depth = 0;
    while (p_ < end_) {
      char c = *p_;
      if (c == '"') {
        std::string_view ignored;
        if (!ReadString(scratch, &ignored)) return false;
        continue;
      }
      line_ += c == '\n';
      ++p_;
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') {
        if (--depth == 0) {
          *result = std::string_view(start, p_ - start);
          return true;
        }
      }
    }
    return false;
  }

 private:
  bool ReadHex4(uint32_t* value) {
    if (end_ - p_ < 4) return false;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      int h = HexValue(p_[i]);
      if (h < 0) return false;
      v = v * 16 + h;
    }
    p_ += 4;
    *value = v;
    return true;
  }

  const char* p_;
  const char* end_;
  size_t line_;
};

// Parses the value at the cursor into column `column`.
absl::Status ReadValue(JsonCursor* cursor, int column, std::string* scratch,
                       InputBlockBuilder* builder) {
  const bool is_string = core::IsString(builder->type(column));
  std::string_view text;
  char c = cursor->Peek();
  const std::string_view value_start = cursor->Rest();
  if (c == '"') {
    if (!cursor->ReadString(scratch, &text)) {
      return builder->ExpectedError("a closed JSON string", value_start, column, "");
    }
    return builder->AppendText(column, text);
  }
  if (c == '{' || c == '[') {
    if (!cursor->ReadNested(scratch, &text)) {
      return builder->ExpectedError("a balanced JSON value", value_start, column, "");
    }
    // A JSON array fills an Array column: its text parses as an array's ([1,2], ["a","b"]).
    if (is_string || (c == '[' && core::IsArray(builder->type(column)))) {
      return builder->AppendText(column, text);
    }
    return builder->PositionError(
        core::ErrorCode::kCannotParseText,
        "Cannot parse JSON " + std::string(c == '{' ? "object" : "array") + " as " +
            std::string(core::TypeName(builder->type(column))),
        column);
  }
  text = cursor->ReadToken();
  if (text.empty()) return builder->ExpectedError("a JSON value", cursor->Rest(), column, "");
  if (text == "null") {  // NULL, or the default (whatever input_format_null_as_default says)
    builder->AppendDefault(column);
    return absl::OkStatus();
  }
  if (!is_string && (text == "true" || text == "false")) {
    return builder->AppendText(column, text == "true" ? "1" : "0");
  }
  return builder->AppendText(column, text);
}

// Returns where the chunk of `data` ends (after an object's closing '}'); sets *final if it is the
// end of all the text. Objects are found by their braces, skipping string literals.
size_t FindCut(std::string_view data, bool last, const InputLimits& limits, bool started,
               bool* final) {
  *final = false;
  if (limits.precut) {
    *final = last;
    return data.size();
  }
  if (last && limits.unlimited()) {
    *final = true;
    return data.size();
  }
  size_t pos = 0, rows = 0;
  const size_t n = data.size();
  bool first = !started;
  while (true) {
    size_t q = pos;
    while (q < n && (data[q] == ' ' || data[q] == '\t' || data[q] == '\n' || data[q] == '\r' ||
                     data[q] == ',')) {
      ++q;
    }
    if (q < n && first && data[q] == '[') {
      first = false;
      pos = q + 1;  // the '[' may end a chunk: the parser then notes it and reads no row
      continue;
    }
    if (q == n) break;
    if (data[q] != '{') {
      if (data[q] == ']') break;  // the end, or an error the last chunk reports
      *final = last;  // an error: the parser reports it from all the text there is
      return n;
    }
    int depth = 0;
    size_t end = std::string_view::npos;
    for (size_t i = q; i < n; ++i) {
      char c = data[i];
      if (c == '"') {
        for (++i; i < n && data[i] != '"'; ++i) {
          if (data[i] == '\\') ++i;
        }
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if ((c == '}' || c == ']') && --depth == 0) {
        end = i + 1;
        break;
      }
    }
    if (end == std::string_view::npos) break;
    first = false;
    pos = end;
    if (++rows >= limits.max_rows || pos >= limits.max_bytes) {
      // A row that ends the whole text makes the cut final, so the parser checks what must
      // follow the last row (the ']' of an array): no later call would.
      if (last && pos == n) *final = true;
      return pos;
    }
  }
  if (last) {
    *final = true;
    return n;
  }
  return pos;
}

}  // namespace

size_t CutJsonEachRow(std::string_view data, bool last, const InputLimits& limits,
                      bool* final) {
  return FindCut(data, last, limits, /*started=*/true, final);
}

absl::StatusOr<size_t> ParseJsonEachRow(std::string_view data, bool last,
                                        const InputLimits& limits, InputProgress* progress,
                                        InputBlockBuilder* builder) {
  bool final;
  const size_t cut = FindCut(data, last, limits, progress->started, &final);
  if (cut == 0 && !final) return 0;
  JsonCursor cursor(data.substr(0, cut), progress->lines + 1);
  const size_t columns = builder->column_count();
  std::vector<uint8_t> seen(columns);
  std::string scratch;
  std::string key_scratch;
  size_t row = progress->rows;
  builder->SetPosition(row, cursor.line());
  cursor.SkipWhitespace();
  if (!progress->started) {
    progress->started = true;
    if (!cursor.AtEnd() && cursor.Peek() == '[') {
      progress->in_array = true;
      cursor.Advance();
    }
  }
  const bool in_array = progress->in_array;
  while (true) {
    cursor.SkipWhitespace();
    if (cursor.AtEnd()) {
      if (in_array && final) return builder->ExpectedError("']'", "", -1, "");
      break;
    }
    char c = cursor.Peek();
    if (c == ',') {
      cursor.Advance();
      continue;
    }
    if (in_array && c == ']') {
      cursor.Advance();
      cursor.SkipWhitespace();
      if (!cursor.AtEnd()) return builder->ExpectedError("end of data", cursor.Rest(), -1, "");
      break;
    }
    ++row;
    builder->SetPosition(row, cursor.line());
    if (c != '{') return builder->ExpectedError("'{'", cursor.Rest(), -1, "");
    cursor.Advance();
    std::fill(seen.begin(), seen.end(), 0);
    int last_column = -1;
    cursor.SkipWhitespace();
    if (!cursor.AtEnd() && cursor.Peek() == '}') {
      cursor.Advance();
    } else {
      while (true) {
        if (cursor.AtEnd() || cursor.Peek() != '"') {
          return builder->ExpectedError("'\"' (a key)", cursor.Rest(), -1, "");
        }
        std::string_view key;
        const std::string_view key_start = cursor.Rest();
        if (!cursor.ReadString(&key_scratch, &key)) {
          return builder->ExpectedError("a closed JSON string", key_start, -1, "");
        }
        int column = -1;
        size_t hint = static_cast<size_t>(last_column + 1);
        if (hint < columns && builder->name(hint) == key) {
          column = static_cast<int>(hint);
        } else {
          column = builder->FindColumn(key);
        }
        if (column < 0) {
          return builder->PositionError(
              core::ErrorCode::kIncorrectData,
              "Unknown field found while parsing JSONEachRow format: " + std::string(key), -1);
        }
        if (seen[column]) {
          return builder->PositionError(
              core::ErrorCode::kIncorrectData,
              "Duplicate field found while parsing JSONEachRow format: " + std::string(key),
              column);
        }
        seen[column] = 1;
        last_column = column;
        cursor.SkipWhitespace();
        if (cursor.AtEnd() || cursor.Peek() != ':') {
          return builder->ExpectedError("':'", cursor.Rest(), column, "");
        }
        cursor.Advance();
        cursor.SkipWhitespace();
        if (cursor.AtEnd()) return builder->ExpectedError("a JSON value", "", column, "");
        RETURN_IF_ERROR(ReadValue(&cursor, column, &scratch, builder));
        cursor.SkipWhitespace();
        if (!cursor.AtEnd() && cursor.Peek() == ',') {
          cursor.Advance();
          cursor.SkipWhitespace();
          continue;
        }
        if (!cursor.AtEnd() && cursor.Peek() == '}') {
          cursor.Advance();
          break;
        }
        return builder->ExpectedError("',' or '}'", cursor.Rest(), column, "");
      }
    }
    for (size_t i = 0; i < columns; ++i) {
      if (!seen[i]) builder->AppendOmitted(i);
    }
  }
  progress->rows = row;
  progress->lines = cursor.line() - 1;
  return cut;
}

}  // namespace granite::coordinator
