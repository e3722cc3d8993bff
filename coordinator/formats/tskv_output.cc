#include "coordinator/formats/tskv_output.h"

#include "coordinator/formats/text_escaping.h"
#include "core/value_text.h"

namespace granite::coordinator {
namespace {

// Appends `text` TSV-escaped with '=' written as \= (a TSKV key).
void AppendTskvEscaped(std::string_view text, std::string* out) {
  std::string escaped;
  AppendTsvEscaped(text, &escaped);
  for (char c : escaped) {
    if (c == '=') out->push_back('\\');
    out->push_back(c);
  }
}

}  // namespace

void TskvOutput::Begin(const std::vector<std::string>& names,
                       const std::vector<core::TypeId>& types, std::string* out) {
  prefixes_.clear();
  for (size_t i = 0; i < names.size(); ++i) {
    std::string prefix = i == 0 ? "" : "\t";
    AppendTskvEscaped(names[i], &prefix);
    prefix.push_back('=');
    prefixes_.push_back(std::move(prefix));
  }
}

void TskvOutput::Write(const core::Block& block, std::string* out) {
  const size_t rows = block.rows();
  const size_t columns = block.columns.size();
  for (size_t row = 0; row < rows; ++row) {
    for (size_t c = 0; c < columns; ++c) {
      out->append(prefixes_[c]);
      const core::Column& column = *block.columns[c];
      if (column.IsNullAt(row)) {
        out->append("\\N");
      } else if (core::HasStringLayout(column.type())) {
        AppendTsvEscaped(column.StringAt(row), out);
      } else {
        core::AppendValueText(column, row, out);
      }
    }
    out->push_back('\n');
  }
}

}  // namespace granite::coordinator
