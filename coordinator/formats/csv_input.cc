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
  const char* position() const { return p_; }

 private:
  void CountNewlines(const char* from, const char* to) {
    for (; from < to; ++from) newlines_ += *from == '\n';
  }

  const char* p_;
  const char* end_;
  size_t newlines_ = 0;
  std::string scratch_;
};

// Returns where the chunk of `data` ends (CutChunk); rows are found with the parser's own cursor,
// so both agree on where a quoted field ends.
size_t FindCut(std::string_view data, bool last, const InputLimits& limits, int headers,
               bool* final) {
  size_t text_end = data.size();  // trailing blank lines are not rows
  while (text_end > 0 && (data[text_end - 1] == '\n' || data[text_end - 1] == '\r')) --text_end;
  CsvCursor cursor(data.data(), data.data() + data.size());
  CsvField field;
  return CutChunk(data, text_end, last, limits, headers, final, [&](size_t, bool) -> size_t {
    while (cursor.ReadField(&field)) {  // false: an open quoted field
      if (cursor.SkipComma()) continue;
      if (cursor.AtEnd()) break;
      // Text after a quoted field: the parser reports it, so it gets all the text there is.
      if (!cursor.AtLineEnd()) return kWholeText;
      const bool complete = static_cast<size_t>(cursor.position() - data.data()) < text_end;
      cursor.SkipLineEnd();
      return complete ? static_cast<size_t>(cursor.position() - data.data()) : kNoCompleteRow;
    }
    return kNoCompleteRow;
  });
}

}  // namespace

size_t CutCsv(std::string_view data, bool last, const InputLimits& limits, bool* final) {
  return FindCut(data, last, limits, /*headers=*/0, final);
}

absl::StatusOr<size_t> ParseCsv(std::string_view data, bool last, const InputLimits& limits,
                                int header_lines, InputProgress* progress,
                                InputBlockBuilder* builder) {
  bool final;
  const size_t cut = FindCut(data, last, limits, progress->started ? 0 : header_lines, &final);
  if (cut == 0 && !final) return 0;
  const char* begin = data.data();
  const char* end = begin + cut;
  if (final) {
    while (end > begin && (end[-1] == '\n' || end[-1] == '\r')) --end;
  }
  CsvCursor cursor(begin, end);
  const size_t first_line = progress->lines + 1;

  CsvField field;
  if (!progress->started) {
    progress->started = true;
    progress->field_to_column.clear();
    for (size_t c = 0; c < builder->column_count(); ++c) {
      progress->field_to_column.push_back(static_cast<int>(c));
    }
    for (int h = 0; h < header_lines && !cursor.AtEnd(); ++h) {
      builder->SetPosition(0, first_line + cursor.newlines());
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
        ASSIGN_OR_RETURN(progress->field_to_column, builder->MapHeader(header));
      }
    }
  }
  const std::vector<int>& field_to_column = progress->field_to_column;
  const size_t fields = field_to_column.size();
  if (fields == 0) {
    if (!cursor.AtEnd()) {
      return builder->ExpectedError("end of data", cursor.Rest(), -1, "no columns to read");
    }
    progress->lines += cursor.newlines();
    return cut;
  }

  size_t row = progress->rows;
  while (!cursor.AtEnd()) {
    ++row;
    builder->SetPosition(row, first_line + cursor.newlines());
    for (size_t f = 0; f < fields; ++f) {
      const int column = field_to_column[f];
      if (!cursor.ReadField(&field)) {
        return builder->ExpectedError("'\"'", "", column,
                                      "the quoted field that starts here is not closed");
      }
      bool is_null = !field.quoted && field.text == "\\N";
      // An empty unquoted field is the column's default: NULL for a Nullable one.
      const core::TypeId type = builder->type(column);
      bool empty_as_default =
          field.text.empty() && (!core::HasStringLayout(type) || (core::IsNullable(type) && !field.quoted));
      if (is_null) {
        RETURN_IF_ERROR(builder->AppendNull(column));
      } else if (empty_as_default) {
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
  progress->rows = row;
  progress->lines += cursor.newlines();
  return cut;
}

}  // namespace granite::coordinator
