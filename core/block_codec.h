// Wire encoding of blocks between workers and the coordinator: a little-endian column dump,
// compressed with LZ4. Used for result blocks and for partial-aggregate buckets.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/block.h"

namespace granite::core {

// Serializes `block` (column count, row count, then per column: type id, raw values or
// offsets + chars). Not compressed.
std::string EncodeBlock(const Block& block);

// Parses the output of EncodeBlock. Fails with CORRUPTED_DATA on truncated or malformed input.
absl::StatusOr<Block> DecodeBlock(std::string_view bytes);

// Compresses with LZ4 (block format). The caller keeps the raw size.
std::string CompressLz4(std::string_view raw);

// Decompresses LZ4 data of known raw size. Fails with CORRUPTED_DATA if it does not match.
absl::StatusOr<std::string> DecompressLz4(std::string_view compressed, size_t raw_size);

}  // namespace granite::core
