#include "coordinator/formats/json_compact_each_row_output.h"

#include "coordinator/formats/json_output.h"

namespace granite::coordinator {

void JsonCompactEachRowOutput::Write(const core::Block& block, std::string* out) {
  const size_t rows = block.rows();
  const size_t columns = block.columns.size();
  for (size_t row = 0; row < rows; ++row) {
    out->push_back('[');
    for (size_t c = 0; c < columns; ++c) {
      if (c > 0) out->append(", ");
      AppendJsonValue(*block.columns[c], row, quote_64bit_, out);
    }
    out->append("]\n");
  }
}

}  // namespace granite::coordinator
