#include "coordinator/formats/json_each_row_output.h"

#include "coordinator/formats/json_output.h"
#include "coordinator/formats/text_escaping.h"

namespace granite::coordinator {

void JsonEachRowOutput::Begin(const std::vector<std::string>& names,
                              const std::vector<core::TypeId>& types, std::string* out) {
  prefixes_.clear();
  for (size_t i = 0; i < names.size(); ++i) {
    std::string prefix(1, i == 0 ? '{' : ',');
    AppendJsonString(names[i], &prefix);
    prefix.push_back(':');
    prefixes_.push_back(std::move(prefix));
  }
}

void JsonEachRowOutput::Write(const core::Block& block, std::string* out) {
  const size_t rows = block.rows();
  const size_t columns = block.columns.size();
  for (size_t row = 0; row < rows; ++row) {
    if (columns == 0) out->push_back('{');
    for (size_t c = 0; c < columns; ++c) {
      out->append(prefixes_[c]);
      AppendJsonValue(*block.columns[c], row, quote_64bit_, out);
    }
    out->append("}\n");
  }
}

}  // namespace granite::coordinator
