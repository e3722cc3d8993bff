#include "coordinator/formats/parquet_compression.h"

#include <brotli/decode.h>
#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "absl/strings/str_cat.h"
#include "coordinator/formats/parquet_metadata.h"
#include "core/error.h"

namespace granite::coordinator {
namespace {

absl::Status Failed(std::string_view codec, std::string_view why) {
  return core::Error(core::ErrorCode::kCannotDecompress,
                     absl::StrCat("Cannot decompress a Parquet page (", std::string(codec),
                                  "): ", std::string(why)));
}

absl::Status Gunzip(std::string_view data, std::string* out) {
  z_stream stream{};
  // 15 + 32: a zlib or a gzip header, detected.
  if (inflateInit2(&stream, 15 + 32) != Z_OK) return Failed("GZIP", "inflateInit2 failed");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out->data());
  stream.avail_out = static_cast<uInt>(out->size());
  const int result = inflate(&stream, Z_FINISH);
  const size_t produced = out->size() - stream.avail_out;
  inflateEnd(&stream);
  if (result != Z_STREAM_END || produced != out->size()) {
    return Failed("GZIP", "the stream does not decode to the page's size");
  }
  return absl::OkStatus();
}

// Hadoop's LZ4 framing: blocks of [uncompressed size, compressed size] (big-endian 32-bit) and an
// LZ4 block. Returns false when the data is not in that form.
bool HadoopLz4(std::string_view data, std::string* out) {
  size_t in = 0, produced = 0;
  auto be32 = [&](size_t at) {
    return (uint32_t{static_cast<uint8_t>(data[at])} << 24) |
           (uint32_t{static_cast<uint8_t>(data[at + 1])} << 16) |
           (uint32_t{static_cast<uint8_t>(data[at + 2])} << 8) | static_cast<uint8_t>(data[at + 3]);
  };
  while (in < data.size()) {
    if (data.size() - in < 8) return false;
    const uint32_t raw = be32(in), packed = be32(in + 4);
    in += 8;
    if (packed > data.size() - in || raw > out->size() - produced) return false;
    const int got = LZ4_decompress_safe(data.data() + in, out->data() + produced,
                                        static_cast<int>(packed), static_cast<int>(raw));
    if (got < 0 || static_cast<uint32_t>(got) != raw) return false;
    in += packed;
    produced += raw;
  }
  return produced == out->size();
}

}  // namespace

absl::StatusOr<std::string> DecompressParquetPage(int32_t codec, std::string_view data,
                                                  size_t uncompressed_size) {
  if (codec == parquet::kUncompressed) {
    if (data.size() != uncompressed_size) return Failed("UNCOMPRESSED", "sizes disagree");
    return std::string(data);
  }
  // Writers cut pages at about 1 MiB; a corrupt header cannot make one allocation over 1 GiB
  // (and the query's memory limit applies to what is allocated).
  constexpr size_t kMaxPageBytes = size_t{1} << 30;
  if (uncompressed_size > kMaxPageBytes) return Failed("page", "a page is over 1 GiB");
  std::string out(uncompressed_size, '\0');
  switch (codec) {
    case parquet::kSnappy: {
      size_t length = 0;
      if (snappy_uncompressed_length(data.data(), data.size(), &length) != SNAPPY_OK ||
          length != uncompressed_size) {
        return Failed("SNAPPY", "the length header does not match the page");
      }
      if (snappy_uncompress(data.data(), data.size(), out.data(), &length) != SNAPPY_OK) {
        return Failed("SNAPPY", "corrupt data");
      }
      return out;
    }
    case parquet::kGzip:
      if (absl::Status status = Gunzip(data, &out); !status.ok()) return status;
      return out;
    case parquet::kBrotli: {
      size_t length = uncompressed_size;
      if (BrotliDecoderDecompress(data.size(), reinterpret_cast<const uint8_t*>(data.data()),
                                  &length, reinterpret_cast<uint8_t*>(out.data())) !=
              BROTLI_DECODER_RESULT_SUCCESS ||
          length != uncompressed_size) {
        return Failed("BROTLI", "corrupt data");
      }
      return out;
    }
    case parquet::kZstd: {
      const size_t got = ZSTD_decompress(out.data(), out.size(), data.data(), data.size());
      if (ZSTD_isError(got) || got != uncompressed_size) {
        return Failed("ZSTD", ZSTD_isError(got) ? ZSTD_getErrorName(got) : "sizes disagree");
      }
      return out;
    }
    case parquet::kLz4:
      if (HadoopLz4(data, &out)) return out;
      [[fallthrough]];  // some writers put a bare block under the old codec id
    case parquet::kLz4Raw: {
      const int got = LZ4_decompress_safe(data.data(), out.data(), static_cast<int>(data.size()),
                                          static_cast<int>(out.size()));
      if (got < 0 || static_cast<size_t>(got) != uncompressed_size) {
        return Failed("LZ4", "corrupt data");
      }
      return out;
    }
    case parquet::kLzo:
      return Failed("LZO", "LZO is not supported");
    default:
      return Failed(absl::StrCat("codec ", codec), "unknown codec");
  }
}

}  // namespace granite::coordinator
