#include "coordinator/formats/native_output.h"

#include "coordinator/formats/binary_encoding.h"
#include "core/block_sort.h"

namespace granite::coordinator {

void NativeOutput::Begin(const std::vector<std::string>& names,
                         const std::vector<core::TypeId>& types, std::string* out) {
  names_ = names;
  types_ = types;
}

void NativeOutput::Write(const core::Block& block, std::string* out) {
  if (block.rows() == 0) return;
  held_.push_back(block);
  held_rows_ += block.rows();
  if (held_rows_ < kBlockRows) return;
  core::Block all = core::ConcatBlocks(held_);
  held_.clear();
  size_t at = 0;
  for (; at + kBlockRows <= all.rows(); at += kBlockRows) {
    WriteBlock(core::SliceRows(all, at, kBlockRows), out);
  }
  held_rows_ = all.rows() - at;
  if (held_rows_ > 0) held_.push_back(core::SliceRows(all, at, held_rows_));
}

void NativeOutput::End(std::string* out) {
  if (held_rows_ > 0) WriteBlock(core::ConcatBlocks(held_), out);
  held_.clear();
  held_rows_ = 0;
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
