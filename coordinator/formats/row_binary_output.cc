#include "coordinator/formats/row_binary_output.h"

#include "coordinator/formats/binary_encoding.h"

namespace granite::coordinator {

void RowBinaryOutput::Begin(const std::vector<std::string>& names,
                            const std::vector<core::TypeId>& types, std::string* out) {
  nullable_.clear();
  for (core::TypeId type : types) nullable_.push_back(core::IsNullable(type));
  if (!with_names_) return;
  AppendVarUInt(names.size(), out);
  for (const std::string& name : names) AppendBinaryString(name, out);
  if (!with_types_) return;
  for (core::TypeId type : types) AppendBinaryString(core::TypeName(type), out);
}

void RowBinaryOutput::Write(const core::Block& block, std::string* out) {
  const size_t rows = block.rows();
  for (size_t row = 0; row < rows; ++row) {
    for (size_t c = 0; c < block.columns.size(); ++c) {
      const core::Column& column = *block.columns[c];
      const bool nullable = c < nullable_.size() ? nullable_[c] : column.nullable();
      if (nullable && !column.nullable()) out->push_back(0);  // declared Nullable, no NULL here
      AppendBinaryValue(column, row, out);
    }
  }
}

}  // namespace granite::coordinator
