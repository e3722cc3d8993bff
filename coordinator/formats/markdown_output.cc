#include "coordinator/formats/markdown_output.h"

#include "coordinator/formats/text_escaping.h"
#include "core/value_text.h"

namespace granite::coordinator {

void MarkdownOutput::Begin(const std::vector<std::string>& names,
                           const std::vector<core::TypeId>& types, std::string* out) {
  out->push_back('|');
  for (const std::string& name : names) {
    out->push_back(' ');
    AppendTsvEscaped(name, out);
    out->append(" |");
  }
  out->append("\n|");
  for (core::TypeId type : types) out->append(AlignsLeft(type) ? ":-|" : "-:|");
  out->push_back('\n');
}

void MarkdownOutput::Write(const core::Block& block, std::string* out) {
  const size_t rows = block.rows();
  for (size_t row = 0; row < rows; ++row) {
    out->push_back('|');
    for (const auto& column : block.columns) {
      out->push_back(' ');
      if (column->IsNullAt(row)) {
        out->append("\\N");
      } else if (core::HasStringLayout(column->type())) {
        AppendTsvEscaped(column->StringAt(row), out);
      } else {
        core::AppendValueText(*column, row, out);
      }
      out->append(" |");
    }
    out->push_back('\n');
  }
}

}  // namespace granite::coordinator
