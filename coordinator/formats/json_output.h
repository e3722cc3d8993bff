// JSON output formats: JSON and JSONCompact (one document with "meta", "data" and "rows"), and
// the value writer shared with JSONEachRow (json_each_row_output.h). Part of the output formats
// (coordinator/formats/output_format.h).
//
// Layout, byte for byte as ClickHouse writes it with output_format_write_statistics = 0:
//   {\n\t"meta":\n\t[\n\t\t{\n\t\t\t"name": "a",\n\t\t\t"type": "UInt64"\n\t\t}\n\t],\n\n
//   \t"data":\n\t[\n\t\t[1, "x"],\n\t\t[2, "y"]\n\t],\n\n\t"rows": 2\n}\n
// JSON writes each row as \t\t{\n\t\t\t"a": 1,\n\t\t\t"s": "x"\n\t\t} instead. With statistics
// (the default), "rows": 2 is followed by ,\n\n\t"statistics":\n\t{\n\t\t"elapsed": 0.001,\n
// \t\t"rows_read": 10,\n\t\t"bytes_read": 80\n\t}. 64-bit integers are quoted when asked
// (output_format_json_quote_64bit_integers, off by default as in ClickHouse 26).
#pragma once

#include <string>
#include <vector>

#include "coordinator/formats/output_format.h"
#include "core/column.h"

namespace granite::coordinator {

// Appends row `row` of `column` as a JSON value: integers and finite floats as numbers (64-bit
// integers as strings when `quote_64bit`), nan / inf as null, strings, Date and DateTime as JSON
// strings.
// An array is a JSON array of its elements, a named tuple an object, an unnamed one an array, a
// map an object; with `pretty_indent` >= 0 (the JSON format's rows, whose fields sit at that
// many tabs) tuples, maps and arrays of arrays or tuples put each element on its own line.
void AppendJsonValue(const core::Column& column, size_t row, bool quote_64bit, std::string* out,
                     int pretty_indent = -1);

// Writes the JSON or JSONCompact document.
// Thread-safety: none.
class JsonOutput : public OutputFormat {
 public:
  JsonOutput(bool compact, bool quote_64bit, bool write_statistics)
      : compact_(compact), quote_64bit_(quote_64bit), write_statistics_(write_statistics) {}

  void Begin(const std::vector<std::string>& names, const std::vector<core::TypeId>& types,
             std::string* out) override;
  void Write(const core::Block& block, std::string* out) override;
  void WriteTotals(const core::Block& totals, std::string* out) override;
  void WriteExtremes(const core::Block& extremes, std::string* out) override;
  void End(std::string* out) override;
  std::string_view ContentType() const override { return "application/json; charset=UTF-8"; }

 private:
  // Constant after construction.
  const bool compact_;
  const bool quote_64bit_;
  const bool write_statistics_;
  // Set by Begin.
  std::vector<std::string> quoted_names_;  // JSON-escaped names with quotes, for JSON rows
  size_t rows_ = 0;
  // Appends row `row` of `block` as a JSON object (JSON) or array (JSONCompact); `indent` tabs
  // before each of the object's members and its closing brace.
  void AppendRow(const core::Block& block, size_t row, int indent, std::string* out) const;

  std::string totals_;    // the "totals" value, written by End
  std::string extremes_;  // the "extremes" value, written by End
};

}  // namespace granite::coordinator
