// Stream compression of a query's input and output bytes, as ClickHouse's gRPC protocol
// (QueryInfo.input_compression_type / output_compression_type) and HTTP interface
// (Content-Encoding / Accept-Encoding with enable_http_compression) apply it: the whole output of a
// query is one compressed stream, cut wherever the messages are cut; likewise the input.
// Methods: gzip and deflate (zlib), lz4 (the LZ4 frame format), zstd; "" and "none" pass bytes
// through. Any other name is UNKNOWN_COMPRESSION_METHOD naming the supported ones.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace granite::coordinator {

// Compresses one stream piece by piece.
// Thread-safety: none; one instance per stream.
class StreamCompressor {
 public:
  virtual ~StreamCompressor() = default;
  // Appends the compressed form of `data` to *out (maybe nothing yet: the codec buffers).
  virtual absl::Status Add(std::string_view data, std::string* out) = 0;
  // Appends whatever ends the stream. REQUIRES: called once, after the last Add.
  virtual absl::Status Finish(std::string* out) = 0;
};

// Decompresses one stream piece by piece.
// Thread-safety: none; one instance per stream.
class StreamDecompressor {
 public:
  virtual ~StreamDecompressor() = default;
  // Appends the bytes `data` decompresses to; CANNOT_DECOMPRESS on corrupt input.
  virtual absl::Status Add(std::string_view data, std::string* out) = 0;
  // Fails with CANNOT_DECOMPRESS when the stream ended in the middle of a frame.
  virtual absl::Status Finish() = 0;
};

// Returns true for "" and "none" (case-insensitive): no compression.
bool IsNoCompression(std::string_view method);

// Returns a compressor for `method` at `level` (0: the codec's default), or
// UNKNOWN_COMPRESSION_METHOD. "" and "none" give nullptr (no compression).
absl::StatusOr<std::unique_ptr<StreamCompressor>> MakeStreamCompressor(std::string_view method,
                                                                       int level);

// Returns a decompressor for `method`, or UNKNOWN_COMPRESSION_METHOD; nullptr for none.
absl::StatusOr<std::unique_ptr<StreamDecompressor>> MakeStreamDecompressor(
    std::string_view method);

}  // namespace granite::coordinator
