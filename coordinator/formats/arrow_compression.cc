#include "coordinator/formats/arrow_compression.h"

#include <lz4frame.h>
#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "core/error.h"

namespace granite::coordinator {
namespace {

// Bounds what a buffer may claim to expand to, so a corrupt length cannot ask for terabytes.
constexpr int64_t kMaxBufferBytes = int64_t{1} << 36;

absl::Status Malformed(std::string_view why) {
  return core::Error(core::ErrorCode::kCannotDecompress,
                     absl::StrCat("Cannot decompress an Arrow buffer: ", std::string(why)));
}

// Returns the compressed form of `bytes`, or "" when the codec fails.
std::string Compress(ArrowWriteOptions::Codec codec, std::string_view bytes) {
  std::string out;
  if (codec == ArrowWriteOptions::Codec::kZstd) {
    out.resize(ZSTD_compressBound(bytes.size()));
    const size_t n = ZSTD_compress(out.data(), out.size(), bytes.data(), bytes.size(), 1);
    if (ZSTD_isError(n)) return "";
    out.resize(n);
    return out;
  }
  out.resize(LZ4F_compressFrameBound(bytes.size(), nullptr));
  const size_t n = LZ4F_compressFrame(out.data(), out.size(), bytes.data(), bytes.size(), nullptr);
  if (LZ4F_isError(n)) return "";
  out.resize(n);
  return out;
}

}  // namespace

void AppendCompressedArrowBuffer(ArrowWriteOptions::Codec codec, std::string_view bytes,
                                 std::string* out) {
  std::string compressed = Compress(codec, bytes);
  const bool smaller = !compressed.empty() && compressed.size() < bytes.size();
  const int64_t length = smaller ? static_cast<int64_t>(bytes.size()) : -1;
  out->append(reinterpret_cast<const char*>(&length), sizeof(length));
  if (smaller) {
    out->append(compressed);
  } else {
    out->append(bytes);
  }
}

absl::StatusOr<std::string> DecompressArrowBuffer(ArrowWriteOptions::Codec codec,
                                                  std::string_view buffer) {
  if (buffer.empty()) return std::string();  // writers leave empty buffers without a length
  if (buffer.size() < 8) return Malformed("shorter than its length prefix");
  int64_t length;
  std::memcpy(&length, buffer.data(), 8);
  buffer.remove_prefix(8);
  if (length == -1) return std::string(buffer);
  if (length < 0 || length > kMaxBufferBytes) {
    return Malformed(absl::StrCat("bad uncompressed length ", length));
  }
  std::string out(static_cast<size_t>(length), '\0');
  if (codec == ArrowWriteOptions::Codec::kZstd) {
    const size_t n = ZSTD_decompress(out.data(), out.size(), buffer.data(), buffer.size());
    if (ZSTD_isError(n) || n != out.size()) return Malformed(ZSTD_getErrorName(n));
    return out;
  }
  LZ4F_dctx* raw = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION))) {
    return Malformed("no LZ4 context");
  }
  std::unique_ptr<LZ4F_dctx, decltype(&LZ4F_freeDecompressionContext)> context(
      raw, &LZ4F_freeDecompressionContext);
  size_t written = 0, read = 0;
  while (read < buffer.size()) {
    size_t dst = out.size() - written, src = buffer.size() - read;
    const size_t hint = LZ4F_decompress(context.get(), out.data() + written, &dst,
                                        buffer.data() + read, &src, nullptr);
    if (LZ4F_isError(hint)) return Malformed(LZ4F_getErrorName(hint));
    written += dst;
    read += src;
    if (hint == 0) break;  // the frame ended
    if (dst == 0 && src == 0) return Malformed("the LZ4 frame does not fit its length");
  }
  if (written != out.size()) return Malformed("the LZ4 frame is shorter than its length");
  return out;
}

}  // namespace granite::coordinator
