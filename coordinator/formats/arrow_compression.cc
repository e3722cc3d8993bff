#include "coordinator/formats/arrow_compression.h"

#include <lz4frame.h>
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "core/error.h"

namespace granite::coordinator {
namespace {

// Bounds what a buffer may claim to expand to, so a corrupt length cannot ask for terabytes.
constexpr int64_t kMaxBufferBytes = int64_t{1} << 36;

// An LZ4 sequence of n bytes expands to at most about 255 n (match lengths continue in bytes of
// 255), so no frame holds more than this many times its size.
constexpr size_t kLz4MaxRatio = 256;
// The first output size of a zstd buffer while its claimed length is unproven.
constexpr size_t kZstdFirstOutput = size_t{1} << 20;

absl::Status Malformed(std::string_view why) {
  return core::Error(core::ErrorCode::kCannotDecompress,
                     absl::StrCat("Cannot decompress an Arrow buffer: ", std::string(why)));
}

// Decompresses zstd frames that must produce exactly `length` bytes. The output grows as the
// decoder produces bytes (doubling, from kZstdFirstOutput) instead of being sized by the claim:
// an RLE block expands 32768-fold, so no ratio bound refuses a false claim up front.
absl::StatusOr<std::string> DecompressZstd(std::string_view buffer, size_t length) {
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> context(ZSTD_createDCtx(), &ZSTD_freeDCtx);
  if (context == nullptr) return Malformed("no zstd context");
  std::string out(std::min(length, kZstdFirstOutput), '\0');
  ZSTD_inBuffer in{buffer.data(), buffer.size(), 0};
  size_t produced = 0;
  for (;;) {
    if (produced == out.size() && out.size() < length) {
      out.resize(std::min(length, out.size() * 2));
    }
    ZSTD_outBuffer output{out.data(), out.size(), produced};
    const size_t consumed_before = in.pos;
    const size_t left = ZSTD_decompressStream(context.get(), &output, &in);
    if (ZSTD_isError(left)) return Malformed(ZSTD_getErrorName(left));
    const bool progress = output.pos != produced || in.pos != consumed_before;
    produced = output.pos;
    if (left == 0 && in.pos == in.size) break;  // the last frame ended
    if (!progress) {
      return Malformed(produced == length ? "the zstd frames are longer than their length"
                                          : "the zstd frame is truncated");
    }
  }
  if (produced != length) return Malformed("the zstd frames are shorter than their length");
  return out;
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
  const auto size = static_cast<size_t>(length);
  if (codec == ArrowWriteOptions::Codec::kZstd) return DecompressZstd(buffer, size);
  // An LZ4 frame cannot expand past kLz4MaxRatio, so a larger claim is refused before sizing
  // anything by it (a few bytes claiming gigabytes would otherwise allocate them).
  if (size / kLz4MaxRatio > buffer.size()) {
    return Malformed(absl::StrCat("uncompressed length ", length, " is past what ",
                                  buffer.size(), " bytes of LZ4 frame can hold"));
  }
  std::string out(size, '\0');
  LZ4F_dctx* raw = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION))) {
    return Malformed("no LZ4 context");
  }
  std::unique_ptr<LZ4F_dctx, decltype(&LZ4F_freeDecompressionContext)> context(
      raw, &LZ4F_freeDecompressionContext);
  // Until the frame ends: input consumed while the output is full (the decoder keeps a block)
  // must not pass for a frame that fits.
  size_t written = 0, read = 0, hint = 1;
  while (hint != 0) {
    size_t dst = out.size() - written, src = buffer.size() - read;
    hint = LZ4F_decompress(context.get(), out.data() + written, &dst, buffer.data() + read, &src,
                           nullptr);
    if (LZ4F_isError(hint)) return Malformed(LZ4F_getErrorName(hint));
    written += dst;
    read += src;
    if (hint != 0 && dst == 0 && src == 0) {
      return Malformed(written == out.size() ? "the LZ4 frame is longer than its length"
                                             : "the LZ4 frame is truncated");
    }
  }
  if (written != out.size()) return Malformed("the LZ4 frame is shorter than its length");
  return out;
}

}  // namespace granite::coordinator
