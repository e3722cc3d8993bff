#include "coordinator/formats/native_output.h"

#include "coordinator/formats/binary_encoding.h"

namespace granite::coordinator {

void NativeOutput::Begin(const std::vector<std::string>& names,
                         const std::vector<core::TypeId>& types, std::string* out) {
  names_ = names;
  types_ = types;
}

void NativeOutput::Write(const core::Block& block, std::string* out) {
  batcher_.Add(block, [&](const core::Block& batch) { WriteBlock(batch, out); });
}

void NativeOutput::End(std::string* out) {
  batcher_.Flush([&](const core::Block& batch) { WriteBlock(batch, out); });
}

void NativeOutput::WriteBlock(const core::Block& block, std::string* out) const {
  AppendVarUInt(names_.size(), out);
  AppendVarUInt(block.rows(), out);
  for (size_t c = 0; c < names_.size(); ++c) {
    AppendBinaryString(names_[c], out);
    AppendBinaryString(core::TypeName(types_[c]), out);
    AppendNativeColumn(*block.columns[c], out, core::IsNullable(types_[c]));
  }
}

}  // namespace granite::coordinator
