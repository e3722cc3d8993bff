#include "coordinator/formats/vertical_output.h"

#include <algorithm>

#include "coordinator/formats/text_escaping.h"
#include "core/value_text.h"

namespace granite::coordinator {

void VerticalOutput::Begin(const std::vector<std::string>& names,
                           const std::vector<core::TypeId>& types, std::string* out) {
  size_t max_width = 0;
  for (const std::string& name : names) max_width = std::max(max_width, Utf8Width(name));
  prefixes_.clear();
  for (const std::string& name : names) {
    std::string prefix = name + ":";
    prefix.append(max_width - Utf8Width(name) + 1, ' ');
    prefixes_.push_back(std::move(prefix));
  }
  rows_ = 0;
}

void VerticalOutput::Write(const core::Block& block, std::string* out) {
  const size_t rows = block.rows();
  for (size_t row = 0; row < rows; ++row) {
    if (rows_ > 0) out->push_back('\n');
    ++rows_;
    std::string title = "Row " + std::to_string(rows_) + ":";
    out->append(title);
    out->push_back('\n');
    for (size_t i = 0; i < title.size(); ++i) out->append("─");
    out->push_back('\n');
    for (size_t c = 0; c < block.columns.size(); ++c) {
      out->append(prefixes_[c]);
      const core::Column& column = *block.columns[c];
      if (column.IsNullAt(row)) {
        out->append("ᴺᵁᴸᴸ");
      } else if (core::HasStringLayout(column.type())) {
        for (char ch : column.StringAt(row)) {
          if (static_cast<unsigned char>(ch) < 0x20 && ch != ' ') {
            AppendTsvEscaped(std::string_view(&ch, 1), out);
          } else {
            out->push_back(ch);
          }
        }
      } else {
        core::AppendValueText(column, row, out);
      }
      out->push_back('\n');
    }
  }
}

}  // namespace granite::coordinator
