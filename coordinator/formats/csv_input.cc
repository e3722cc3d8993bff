// The CSV reader works on the whole text with a cursor. Unquoted fields and quoted fields without
// "" are parsed in place; only fields with doubled quotes are copied into a reused buffer.
#include "coordinator/formats/csv_input.h"

#include <cstring>
#include <string>
#include <vector>

#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

// One field as read from the text.
struct CsvField {
  std::string_view text;
  bool quoted = false;
};

// Walks the text field by field.
class CsvCursor {
 public:
  CsvCursor(const char* begin, const char* end) : p_(begin), end_(end) {}

  bool AtEnd() const { return p_ == end_; }
  std::string_view Rest() const { return std::string_view(p_, end_ - p_); }
  // Lines started so far (each row end and each newline inside a quoted field adds one).
  size_t newlines() const { return newlines_; }

  // Reads one field; returns false on an unterminated quoted field.
  bool ReadField(CsvField* field) {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t')) ++p_;
    if (p_ < end_ && *p_ == '"') {
      field->quoted = true;
      ++p_;
      const char* start = p_;
      bool doubled = false;
      while (true) {
        const char* quote = static_cast<const char*>(memchr(p_, '"', end_ - p_));
        if (quote == nullptr) return false;
        CountNewlines(p_, quote);
        p_ = quote + 1;
        if (p_ < end_ && *p_ == '"') {
          doubled = true;
          ++p_;
          continue;
        }
        break;
      }
      std::string_view raw(start, p_ - 1 - start);
      if (doubled) {
        scratch_.clear();
        for (size_t i = 0; i < raw.size(); ++i) {
          scratch_.push_back(raw[i]);
          if (raw[i] == '"') ++i;  // skip the second quote of a pair
        }
        field->text = scratch_;
      } else {
        field->text = raw;
      }
      while (p_ < end_ && (*p_ == ' ' || *p_ == '\t')) ++p_;
      return true;
    }
    field->quoted = false;
    const char* start = p_;
    while (p_ < end_ && *p_ != ',' && *p_ != '\n' && *p_ != '\r') ++p_;
    const char* stop = p_;
    while (stop > start && (stop[-1] == ' ' || stop[-1] == '\t')) --stop;
    field->text = std::string_view(start, stop - start);
    return true;
  }

  // Consumes ',' if next.
  bool SkipComma() {
    if (p_ < end_ && *p_ == ',') {
      ++p_;
      return true;
    }
    return false;
  }

  // Consumes a line end (\n, \r\n or \r) or accepts the end of data.
  bool SkipLineEnd() {
    if (p_ == end_) return true;
    if (*p_ == '\r') {
      ++p_;
      if (p_ < end_ && *p_ == '\n') ++p_;
      ++newlines_;
      return true;
    }
    if (*p_ == '\n') {
      ++p_;
      ++newlines_;
      return true;
    }
    return false;
  }

  bool AtLineEnd() const { return p_ == end_ || *p_ == '\n' || *p_ == '\r'; }

 private:
  void CountNewlines(const char* from, const char* to) {
    for (; from < to; ++from) newlines_ += *from == '\n';
  }

  const char* p_;
  const char* end_;
  size_t newlines_ = 0;
  std::string scratch_;
};

}  // namespace

absl::Status ParseCsv(std::string_view data, int header_lines, InputBlockBuilder* builder) {
  const char* begin = data.data();
  const char* end = begin + data.size();
  while (end > begin && (end[-1] == '\n' || end[-1] == '\r')) --end;
  CsvCursor cursor(begin, end);

  std::vector<int> field_to_column;
  for (size_t c = 0; c < builder->column_count(); ++c) field_to_column.push_back(static_cast<int>(c));
  CsvField field;
  for (int h = 0; h < header_lines && !cursor.AtEnd(); ++h) {
    builder->SetPosition(0, cursor.newlines() + 1);
    std::vector<std::string> header;
    while (true) {
      if (!cursor.ReadField(&field)) {
        return builder->ExpectedError("'\"'", "", -1, "unterminated quoted field in the header");
      }
      header.emplace_back(field.text);
      if (cursor.SkipComma()) continue;
      if (!cursor.SkipLineEnd()) {
        return builder->ExpectedError("',' or end of line", cursor.Rest(), -1, "in the header");
      }
      break;
    }
    if (h == 0) {
      ASSIGN_OR_RETURN(field_to_column, builder->MapHeader(header));
    }
  }
  const size_t fields = field_to_column.size();
  if (fields == 0) {
    if (!cursor.AtEnd()) {
      return builder->ExpectedError("end of data", cursor.Rest(), -1, "no columns to read");
    }
    return absl::OkStatus();
  }

  size_t row = 0;
  while (!cursor.AtEnd()) {
    ++row;
    builder->SetPosition(row, cursor.newlines() + 1);
    for (size_t f = 0; f < fields; ++f) {
      const int column = field_to_column[f];
      if (!cursor.ReadField(&field)) {
        return builder->ExpectedError("'\"'", "", column,
                                      "the quoted field that starts here is not closed");
      }
      bool is_null = !field.quoted && field.text == "\\N";
      bool empty_as_default = field.text.empty() && builder->type(column) != core::TypeId::kString;
      if (is_null || empty_as_default) {
        builder->AppendDefault(column);
      } else {
        RETURN_IF_ERROR(builder->AppendText(column, field.text));
      }
      if (f + 1 < fields) {
        if (!cursor.SkipComma()) {
          std::string note;
          if (cursor.AtLineEnd()) {
            note = "the row has " + std::to_string(f + 1) + " of " + std::to_string(fields) +
                   " columns";
          }
          return builder->ExpectedError("','", cursor.Rest(), column, note);
        }
      } else if (!cursor.SkipLineEnd()) {
        std::string note;
        if (!cursor.Rest().empty() && cursor.Rest()[0] == ',') {
          note = "the row has more than " + std::to_string(fields) + " columns";
        }
        return builder->ExpectedError("end of line", cursor.Rest(), column, note);
      }
    }
    builder->AppendDefaultsForUnmapped(field_to_column);
  }
  return absl::OkStatus();
}

}  // namespace granite::coordinator
