#include "coordinator/formats/tab_separated_output.h"

#include "coordinator/formats/text_escaping.h"
#include "core/value_text.h"

namespace granite::coordinator {

void TabSeparatedOutput::AppendField(std::string_view text, std::string* out) const {
  if (raw_) {
    out->append(text);
  } else {
    AppendTsvEscaped(text, out);
  }
}

void TabSeparatedOutput::Begin(const std::vector<std::string>& names,
                               const std::vector<core::TypeId>& types, std::string* out) {
  if (with_names_) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (i > 0) out->push_back('\t');
      AppendField(names[i], out);
    }
    out->push_back('\n');
  }
  if (with_types_) {
    for (size_t i = 0; i < types.size(); ++i) {
      if (i > 0) out->push_back('\t');
      out->append(core::TypeName(types[i]));
    }
    out->push_back('\n');
  }
}

void TabSeparatedOutput::Write(const core::Block& block, std::string* out) {
  const size_t rows = block.rows();
  const size_t columns = block.columns.size();
  for (size_t row = 0; row < rows; ++row) {
    for (size_t c = 0; c < columns; ++c) {
      if (c > 0) out->push_back('\t');
      const core::Column& column = *block.columns[c];
      if (column.IsNullAt(row)) {
        out->append("\\N");
      } else if (core::HasStringLayout(column.type())) {
        AppendField(column.StringAt(row), out);
      } else {
        core::AppendValueText(column, row, out);
      }
    }
    out->push_back('\n');
  }
}

}  // namespace granite::coordinator
