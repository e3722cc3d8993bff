#include "coordinator/formats/values_output.h"

#include "core/quoted_text.h"

namespace granite::coordinator {

void ValuesOutput::Write(const core::Block& block, std::string* out) {
  const size_t rows = block.rows();
  const size_t columns = block.columns.size();
  for (size_t row = 0; row < rows; ++row) {
    if (!first_) out->push_back(',');
    first_ = false;
    out->push_back('(');
    for (size_t c = 0; c < columns; ++c) {
      if (c > 0) out->push_back(',');
      const core::Column& column = *block.columns[c];
      core::AppendQuotedValueText(column, row, out);
    }
    out->push_back(')');
  }
}

}  // namespace granite::coordinator
