// Fuzz target: the block wire codec (core/block_codec.h) on bytes from a peer. The first four
// input bytes are the raw size the message claims; the rest is the wire data (LZ4 or raw). A
// block that decodes must encode back to bytes that decode to an equal encoding.
#include <cstring>
#include <string>
#include <string_view>

#include "core/block_codec.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4 || size > 1 << 16) return 0;
  uint32_t raw_size = 0;
  std::memcpy(&raw_size, data, 4);
  raw_size &= (1u << 20) - 1;  // a peer's claimed size; bounded so the fuzzer does not OOM
  std::string_view wire(reinterpret_cast<const char*>(data + 4), size - 4);
  absl::StatusOr<granite::core::Block> block = granite::core::DecodeWireBlock(wire, raw_size);
  if (!block.ok()) return 0;
  for (const auto& column : block->columns) {
    FUZZ_CHECK(column->size() == block->rows(), "columns of a block are equally long");
    if (column->type() != granite::core::TypeId::kString) continue;
    // Every value of a decoded String column lies within its chars (ASan sees any read outside).
    size_t total = 0;
    for (size_t row = 0; row < column->size(); ++row) {
      std::string_view value = column->StringAt(row);
      total += value.size();
      std::string copy(value);  // the copy reads every byte
    }
    FUZZ_CHECK(total == column->Chars().size(), "the values cover the chars exactly");
  }
  const std::string encoded = granite::core::EncodeBlock(*block);
  absl::StatusOr<granite::core::Block> again = granite::core::DecodeBlock(encoded);
  FUZZ_CHECK(again.ok(), "an encoded block decodes");
  FUZZ_CHECK(granite::core::EncodeBlock(*again) == encoded, "encoding is stable");
  return 0;
}
