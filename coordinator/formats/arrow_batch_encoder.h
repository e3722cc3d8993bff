// Encodes one result block as the body of an Arrow record batch (the columnar IPC layout): per
// column, depth first, a FieldNode (length, null count) and its buffers: a validity bitmap (empty
// when no value is NULL), then offsets and data as the Arrow type needs (arrow_types.h gives the
// types). Every buffer starts 8-byte aligned in the body; with a codec each is compressed
// (arrow_compression.h). Used by ArrowOutput (arrow_output.h).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/formats/arrow_types.h"
#include "core/block.h"

namespace granite::coordinator {

// The parts of one record batch message.
struct ArrowBatch {
  int64_t length = 0;  // rows
  std::vector<arrow_fb::FieldNode> nodes;
  std::vector<arrow_fb::Buffer> buffers;
  std::string body;  // a multiple of 8 bytes
};

// Returns `block` encoded for a schema of `types` (a column may lack the null map its Nullable
// type allows). Fails with TOO_LARGE_STRING_SIZE when a String or Array column holds more than
// 2^31 - 1 bytes or elements (Arrow's 32-bit offsets).
// REQUIRES: block has one column per type, of that type (Nullable aside).
absl::StatusOr<ArrowBatch> EncodeArrowBatch(const core::Block& block,
                                            const std::vector<core::TypeId>& types,
                                            const ArrowWriteOptions& options);

}  // namespace granite::coordinator
