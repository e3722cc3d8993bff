// CSV output family: CSV, CSVWithNames and CSVWithNamesAndTypes. Part of the output formats
// (coordinator/formats/output_format.h).
#pragma once

#include <string>
#include <vector>

#include "coordinator/formats/output_format.h"

namespace granite::coordinator {

// Writes one line per row ('\n'), fields separated by ','. Strings, Date and DateTime are written
// in double quotes with '"' doubled; numbers (including nan and inf) are unquoted. Header lines
// hold the quoted names and types.
// Thread-safety: none.
class CsvOutput : public OutputFormat {
 public:
  CsvOutput(bool with_names, bool with_types) : with_names_(with_names), with_types_(with_types) {}

  void Begin(const std::vector<std::string>& names, const std::vector<core::TypeId>& types,
             std::string* out) override;
  void Write(const core::Block& block, std::string* out) override;
  void WriteTotals(const core::Block& totals, std::string* out) override {
    out->push_back('\n');
    Write(totals, out);
  }
  void WriteExtremes(const core::Block& extremes, std::string* out) override {
    out->push_back('\n');
    Write(extremes, out);
  }
  void End(std::string* out) override {}
  std::string_view ContentType() const override {
    return "text/csv; charset=UTF-8; header=absent";
  }

 private:
  // Constant after construction.
  const bool with_names_;
  const bool with_types_;
};

}  // namespace granite::coordinator
