// Arrow IPC body compression (BodyCompression, method BUFFER): each buffer of a compressed record
// batch is its uncompressed length as a little-endian int64, then the buffer compressed whole
// (an LZ4 frame or a zstd frame); a length of -1 says the bytes follow uncompressed. Used by the
// Arrow output (arrow_output.h) and input (arrow_input.h).
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "coordinator/formats/arrow_types.h"

namespace granite::coordinator {

// Appends `bytes` in the compressed buffer form of `codec`, uncompressed (-1) when that would not
// be shorter. REQUIRES: codec != kNone.
void AppendCompressedArrowBuffer(ArrowWriteOptions::Codec codec, std::string_view bytes,
                                 std::string* out);

// Returns the bytes of a compressed buffer form; CANNOT_DECOMPRESS when it is malformed.
absl::StatusOr<std::string> DecompressArrowBuffer(ArrowWriteOptions::Codec codec,
                                                  std::string_view buffer);

}  // namespace granite::coordinator
