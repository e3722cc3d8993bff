// Decompresses Parquet pages: UNCOMPRESSED, SNAPPY (libsnappy), GZIP (zlib), BROTLI (libbrotli),
// ZSTD (libzstd), LZ4_RAW and the older LZ4 (Hadoop's framing, or a bare block as some writers
// produced it) from liblz4, all Debian's. LZO is refused.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace granite::coordinator {

// Returns `data` decompressed with parquet::Codec `codec` into exactly `uncompressed_size` bytes:
// CANNOT_DECOMPRESS when it does not decode to that size, or for a codec granite lacks (named).
absl::StatusOr<std::string> DecompressParquetPage(int32_t codec, std::string_view data,
                                                  size_t uncompressed_size);

}  // namespace granite::coordinator
