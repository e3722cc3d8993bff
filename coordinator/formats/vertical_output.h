// Vertical output: each row as a block of "name: value" lines, for wide rows at a terminal.
// Part of the output formats (coordinator/formats/output_format.h). ClickHouse layout:
//   Row 1:
//   ──────
//   a:   1
//   abc: x
//   (blank line between rows)
// Values are written in their plain text form, strings with control characters TSV-escaped.
#pragma once

#include <string>
#include <vector>

#include "coordinator/formats/output_format.h"

namespace granite::coordinator {

// Writes rows as name/value blocks.
// Thread-safety: none.
class VerticalOutput : public OutputFormat {
 public:
  void Begin(const std::vector<std::string>& names, const std::vector<core::TypeId>& types,
             std::string* out) override;
  void Write(const core::Block& block, std::string* out) override;
  void End(std::string* out) override {}

 private:
  // Set by Begin: "name:" followed by the spaces that align the values.
  std::vector<std::string> prefixes_;
  size_t rows_ = 0;
};

}  // namespace granite::coordinator
