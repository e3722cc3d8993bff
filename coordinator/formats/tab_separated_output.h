// TabSeparated output family: TabSeparated (TSV), TabSeparatedRaw, and the WithNames /
// WithNamesAndTypes variants that add header lines. Part of the output formats
// (coordinator/formats/output_format.h).
#pragma once

#include <string>
#include <vector>

#include "coordinator/formats/output_format.h"

namespace granite::coordinator {

// Writes one line per row, values separated by '\t'. Strings are escaped as in
// AppendTsvEscaped unless `raw`; numbers, Date and DateTime are written in their plain text form.
// Thread-safety: none.
class TabSeparatedOutput : public OutputFormat {
 public:
  TabSeparatedOutput(bool with_names, bool with_types, bool raw)
      : with_names_(with_names), with_types_(with_types), raw_(raw) {}

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
    return "text/tab-separated-values; charset=UTF-8";
  }

 private:
  void AppendField(std::string_view text, std::string* out) const;

  // Constant after construction.
  const bool with_names_;
  const bool with_types_;
  const bool raw_;
};

}  // namespace granite::coordinator
