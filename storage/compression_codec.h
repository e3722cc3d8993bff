// CompressionCodec: encodes and decodes one granule's raw bytes (storage/part_format.h) with a
// column's codec chain (core/codec_spec.h). PartWriter encodes each granule with the table's
// current codec; each part records per column the chain that wrote it (PartMeta::codecs), and Part
// decodes with that, so parts written before a codec or default change read unchanged; parts
// from before codecs existed are plain LZ4.
//
// Block layout: steps apply in order; a chain of one generic codec writes exactly that codec's
// output (a lone LZ4 block is the pre-codec format). A generic codec after a preprocessing step
// prefixes its output with the u32 size of its input, which the other steps' formats record
// themselves (storage/codec_transforms.h).
//
// Decode runs once per granule (into the uncompressed cache): a switch per step, then a template
// loop; ZSTD uses one decompression context per thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/codec_spec.h"
#include "core/table_schema.h"

namespace granite::storage {

// Thread-safety: immutable; Encode and Decode may run concurrently (scratch is per thread).
class CompressionCodec {
 public:
  // Returns plain LZ4, the codec of parts written before codecs existed.
  static CompressionCodec Lz4();
  // Returns the codec a column without CODEC(...) gets (chosen per type by bench/codecs):
  // DoubleDelta then ZSTD(3) for Date, DateTime and DateTime64, ZSTD(3) for the others.
  static core::CodecSpec DefaultSpec(core::TypeId type);
  // Returns the codec of `column`: its CODEC(...), else its type's default. Errors as
  // core::ParseCodecSpec.
  static absl::StatusOr<CompressionCodec> ForColumn(const core::ColumnSchema& column);

  explicit CompressionCodec(core::CodecSpec spec);

  const core::CodecSpec& spec() const { return spec_; }
  // True when blocks are LZ4 blocks of the raw bytes (LZ4 or LZ4HC alone): a prefix of them
  // decodes without the rest (LZ4_decompress_safe_partial).
  bool is_lz4_block() const { return lz4_block_; }

  // Sets *out to the encoded block of `raw`. Fails with ARGUMENT_OUT_OF_BOUND when `raw` is
  // larger than LZ4 or the formats allow (2 GB), LOGICAL_ERROR when a library fails.
  absl::Status Encode(std::string_view raw, std::string* out) const;

  // Decodes `block` into `out`, which has room for exactly `raw_size` bytes; false when the block
  // is malformed or decodes to another size.
  bool Decode(const char* block, size_t block_size, char* out, size_t raw_size) const;

 private:
  core::CodecSpec spec_;
  bool lz4_block_ = false;
};

}  // namespace granite::storage
