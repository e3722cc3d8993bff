// Markdown output: a GitHub table, "| a | b |", an alignment row ("|:-|-:|": strings to the left,
// everything else to the right) and "| 1 | x |" per row; strings TabSeparated-escaped, as
// ClickHouse writes them (output_format_markdown_escape_special_characters = 0). Part of the
// output formats (coordinator/formats/output_format.h).
#pragma once

#include <string>
#include <vector>

#include "coordinator/formats/output_format.h"

namespace granite::coordinator {

// Writes one Markdown table.
// Thread-safety: none.
class MarkdownOutput : public OutputFormat {
 public:
  void Begin(const std::vector<std::string>& names, const std::vector<core::TypeId>& types,
             std::string* out) override;
  void Write(const core::Block& block, std::string* out) override;
  void End(std::string* out) override {}
  std::string_view ContentType() const override { return "text/markdown; charset=UTF-8"; }
};

}  // namespace granite::coordinator
