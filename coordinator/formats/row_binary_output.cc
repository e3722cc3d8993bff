#include "coordinator/formats/row_binary_output.h"

#include "coordinator/formats/binary_encoding.h"

namespace granite::coordinator {

void RowBinaryOutput::Begin(const std::vector<std::string>& names,
                            const std::vector<core::TypeId>& types, std::string* out) {
  if (!with_names_) return;
  AppendVarUInt(names.size(), out);
  for (const std::string& name : names) AppendBinaryString(name, out);
  if (!with_types_) return;
  for (core::TypeId type : types) AppendBinaryString(core::TypeName(type), out);
}

void RowBinaryOutput::Write(const core::Block& block, std::string* out) {
  const size_t rows = block.rows();
  for (size_t row = 0; row < rows; ++row) {
    for (const auto& column : block.columns) AppendBinaryValue(*column, row, out);
  }
}

}  // namespace granite::coordinator
