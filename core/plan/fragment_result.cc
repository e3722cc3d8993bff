#include "core/plan/fragment_result.h"

#include <utility>

namespace granite::core::plan {

EncodedBlock EncodeResultBlock(const Block& block, WireCompression compression) {
  std::string raw = EncodeBlock(block);
  EncodedBlock out;
  out.rows = block.rows();
  out.raw_size = raw.size();
  out.data = CompressForWire(std::move(raw), compression);
  return out;
}

}  // namespace granite::core::plan
