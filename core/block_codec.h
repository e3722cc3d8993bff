// Wire encoding of blocks between workers and the coordinator: a little-endian column dump,
// compressed with LZ4. Used for result blocks and for partial-aggregate buckets.
//
// Wire data (CompressForWire / DecodeWireBlock): the bytes sent with a raw size. Data of exactly
// the raw size is the raw dump itself (compression off, or LZ4 did not shrink it); any other
// length is LZ4. So a sender may skip LZ4 per message without a flag, and a receiver needs none.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/block.h"

namespace granite::core {

// Serializes `block` (column count, row count, then per column: type id, raw values or
// offsets + chars, then for a Nullable column its null map, a byte per row; an array: its end
// offsets, then its nested column's data the same way). Not compressed.
std::string EncodeBlock(const Block& block);

// Parses the output of EncodeBlock. Fails with CORRUPTED_DATA on truncated or malformed input.
absl::StatusOr<Block> DecodeBlock(std::string_view bytes);

// Appends one column's data as EncodeBlock writes it, without its type (an array granule of a
// part file is this form of its rows: storage/part_format.h).
void EncodeColumnData(const Column& column, std::string* out);
// Parses `rows` rows written by EncodeColumnData into the empty `column` of the writer's type;
// fails with CORRUPTED_DATA unless `bytes` holds exactly that.
absl::Status DecodeColumnData(std::string_view bytes, size_t rows, Column* column);

// Compresses with LZ4 (block format). The caller keeps the raw size.
std::string CompressLz4(std::string_view raw);

// Decompresses LZ4 data of known raw size. Fails with CORRUPTED_DATA if it does not match.
absl::StatusOr<std::string> DecompressLz4(std::string_view compressed, size_t raw_size);

// How a sender compresses wire data: query setting network_compression_method ('lz4', the
// default, or 'none', ClickHouse's names).
enum class WireCompression { kLz4, kNone };

// Parses a network_compression_method value (case-insensitive). Fails with BAD_ARGUMENTS
// naming the value otherwise.
absl::StatusOr<WireCompression> ParseWireCompression(std::string_view name);

// Returns the wire data of `raw` (an EncodeBlock result): LZ4 when `method` asks for it and it
// shrinks the data, else `raw` itself (moved, not copied). The raw size is raw.size().
std::string CompressForWire(std::string raw, WireCompression method);

// Decodes wire data of known raw size (see the file comment): raw data is parsed in place.
// Fails with CORRUPTED_DATA on malformed data.
absl::StatusOr<Block> DecodeWireBlock(std::string_view data, size_t raw_size);

}  // namespace granite::core
