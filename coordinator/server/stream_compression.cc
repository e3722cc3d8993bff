#include "coordinator/server/stream_compression.h"

#include <lz4frame.h>
#include <zlib.h>
#include <zstd.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"

namespace granite::coordinator {
namespace {

constexpr size_t kOutStep = 64 * 1024;

absl::Status CorruptInput(std::string_view method, std::string_view detail) {
  return core::Error(core::ErrorCode::kCannotDecompress,
                     absl::StrCat("Cannot decompress the ", core::ToAbsl(method),
                                  " input: ", core::ToAbsl(detail)));
}

// gzip (windowBits 31) or deflate as HTTP means it (zlib-wrapped, windowBits 15).
class ZlibCompressor : public StreamCompressor {
 public:
  ZlibCompressor(bool gzip, int level) {
    deflateInit2(&stream_, level == 0 ? Z_DEFAULT_COMPRESSION : level, Z_DEFLATED,
                 gzip ? 31 : 15, 8, Z_DEFAULT_STRATEGY);
  }
  ~ZlibCompressor() override { deflateEnd(&stream_); }
  absl::Status Add(std::string_view data, std::string* out) override {
    return Run(data, Z_NO_FLUSH, out);
  }
  absl::Status Finish(std::string* out) override { return Run({}, Z_FINISH, out); }

 private:
  absl::Status Run(std::string_view data, int flush, std::string* out) {
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    stream_.avail_in = static_cast<uInt>(data.size());
    while (true) {
      size_t at = out->size();
      out->resize(at + kOutStep);
      stream_.next_out = reinterpret_cast<Bytef*>(out->data() + at);
      stream_.avail_out = kOutStep;
      int rc = deflate(&stream_, flush);
      out->resize(at + kOutStep - stream_.avail_out);
      if (rc == Z_STREAM_END) return absl::OkStatus();
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        return core::Error(core::ErrorCode::kLogicalError, "deflate failed");
      }
      if (flush != Z_FINISH && stream_.avail_in == 0 && stream_.avail_out != 0) {
        return absl::OkStatus();
      }
    }
  }
  z_stream stream_{};
};

class ZlibDecompressor : public StreamDecompressor {
 public:
  explicit ZlibDecompressor(std::string_view method) : method_(method) {
    inflateInit2(&stream_, 15 + 32);  // gzip or zlib header, detected
  }
  ~ZlibDecompressor() override { inflateEnd(&stream_); }
  absl::Status Add(std::string_view data, std::string* out) override {
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    stream_.avail_in = static_cast<uInt>(data.size());
    while (stream_.avail_in > 0) {
      if (ended_) {  // concatenated gzip members, as gzip itself accepts
        inflateReset(&stream_);
        ended_ = false;
      }
      size_t at = out->size();
      out->resize(at + kOutStep);
      stream_.next_out = reinterpret_cast<Bytef*>(out->data() + at);
      stream_.avail_out = kOutStep;
      int rc = inflate(&stream_, Z_NO_FLUSH);
      out->resize(at + kOutStep - stream_.avail_out);
      if (rc == Z_STREAM_END) {
        ended_ = true;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        return CorruptInput(method_, stream_.msg ? stream_.msg : "inflate failed");
      }
    }
    started_ = started_ || !data.empty();
    return absl::OkStatus();
  }
  absl::Status Finish() override {
    if (started_ && !ended_) return CorruptInput(method_, "the stream is truncated");
    return absl::OkStatus();
  }

 private:
  std::string method_;
  z_stream stream_{};
  bool ended_ = false;
  bool started_ = false;
};

class Lz4Compressor : public StreamCompressor {
 public:
  explicit Lz4Compressor(int level) {
    LZ4F_createCompressionContext(&context_, LZ4F_VERSION);
    preferences_.compressionLevel = level;
  }
  ~Lz4Compressor() override { LZ4F_freeCompressionContext(context_); }
  absl::Status Add(std::string_view data, std::string* out) override {
    if (!begun_) {
      size_t at = out->size();
      out->resize(at + LZ4F_HEADER_SIZE_MAX);
      size_t n = LZ4F_compressBegin(context_, out->data() + at, LZ4F_HEADER_SIZE_MAX, &preferences_);
      if (LZ4F_isError(n)) return core::Error(core::ErrorCode::kLogicalError, "LZ4F begin failed");
      out->resize(at + n);
      begun_ = true;
    }
    if (data.empty()) return absl::OkStatus();
    size_t at = out->size();
    size_t bound = LZ4F_compressBound(data.size(), &preferences_);
    out->resize(at + bound);
    size_t n = LZ4F_compressUpdate(context_, out->data() + at, bound, data.data(), data.size(),
                                   nullptr);
    if (LZ4F_isError(n)) return core::Error(core::ErrorCode::kLogicalError, "LZ4F update failed");
    out->resize(at + n);
    return absl::OkStatus();
  }
  absl::Status Finish(std::string* out) override {
    absl::Status begun = Add({}, out);
    if (!begun.ok()) return begun;
    size_t at = out->size();
    size_t bound = LZ4F_compressBound(0, &preferences_);
    out->resize(at + bound);
    size_t n = LZ4F_compressEnd(context_, out->data() + at, bound, nullptr);
    if (LZ4F_isError(n)) return core::Error(core::ErrorCode::kLogicalError, "LZ4F end failed");
    out->resize(at + n);
    return absl::OkStatus();
  }

 private:
  LZ4F_cctx* context_ = nullptr;
  LZ4F_preferences_t preferences_{};
  bool begun_ = false;
};

class Lz4Decompressor : public StreamDecompressor {
 public:
  Lz4Decompressor() { LZ4F_createDecompressionContext(&context_, LZ4F_VERSION); }
  ~Lz4Decompressor() override { LZ4F_freeDecompressionContext(context_); }
  absl::Status Add(std::string_view data, std::string* out) override {
    while (!data.empty()) {
      size_t at = out->size();
      out->resize(at + kOutStep);
      size_t out_size = kOutStep;
      size_t in_size = data.size();
      size_t hint = LZ4F_decompress(context_, out->data() + at, &out_size, data.data(), &in_size,
                                    nullptr);
      out->resize(at + out_size);
      if (LZ4F_isError(hint)) return CorruptInput("lz4", LZ4F_getErrorName(hint));
      data.remove_prefix(in_size);
      pending_ = hint != 0;
      if (in_size == 0 && out_size == 0) break;
    }
    return absl::OkStatus();
  }
  absl::Status Finish() override {
    if (pending_) return CorruptInput("lz4", "the stream is truncated");
    return absl::OkStatus();
  }

 private:
  LZ4F_dctx* context_ = nullptr;
  bool pending_ = false;
};

// Runs `step` on a zstd output buffer of kOutStep bytes appended to *out, keeps the bytes it
// wrote, and returns its result.
template <typename Step>
size_t WithZstdOutput(std::string* out, Step step) {
  size_t at = out->size();
  out->resize(at + kOutStep);
  ZSTD_outBuffer buffer{out->data() + at, kOutStep, 0};
  size_t rc = step(&buffer);
  out->resize(at + buffer.pos);
  return rc;
}

class ZstdCompressor : public StreamCompressor {
 public:
  explicit ZstdCompressor(int level) : stream_(ZSTD_createCStream()) {
    ZSTD_initCStream(stream_, level == 0 ? 3 : level);
  }
  ~ZstdCompressor() override { ZSTD_freeCStream(stream_); }
  absl::Status Add(std::string_view data, std::string* out) override {
    ZSTD_inBuffer in{data.data(), data.size(), 0};
    while (in.pos < in.size) {
      size_t rc = WithZstdOutput(out, [&](ZSTD_outBuffer* buffer) {
        return ZSTD_compressStream(stream_, buffer, &in);
      });
      if (ZSTD_isError(rc)) return core::Error(core::ErrorCode::kLogicalError, "zstd failed");
    }
    return absl::OkStatus();
  }
  absl::Status Finish(std::string* out) override {
    while (true) {
      size_t left = WithZstdOutput(
          out, [&](ZSTD_outBuffer* buffer) { return ZSTD_endStream(stream_, buffer); });
      if (ZSTD_isError(left)) return core::Error(core::ErrorCode::kLogicalError, "zstd failed");
      if (left == 0) return absl::OkStatus();
    }
  }

 private:
  ZSTD_CStream* stream_;
};

class ZstdDecompressor : public StreamDecompressor {
 public:
  ZstdDecompressor() : stream_(ZSTD_createDStream()) { ZSTD_initDStream(stream_); }
  ~ZstdDecompressor() override { ZSTD_freeDStream(stream_); }
  absl::Status Add(std::string_view data, std::string* out) override {
    ZSTD_inBuffer in{data.data(), data.size(), 0};
    while (in.pos < in.size) {
      size_t rc = WithZstdOutput(out, [&](ZSTD_outBuffer* buffer) {
        return ZSTD_decompressStream(stream_, buffer, &in);
      });
      if (ZSTD_isError(rc)) return CorruptInput("zstd", ZSTD_getErrorName(rc));
      pending_ = rc != 0;
    }
    return absl::OkStatus();
  }
  absl::Status Finish() override {
    if (pending_) return CorruptInput("zstd", "the stream is truncated");
    return absl::OkStatus();
  }

 private:
  ZSTD_DStream* stream_;
  bool pending_ = false;
};

absl::Status UnknownMethod(std::string_view method) {
  return core::Error(core::ErrorCode::kUnknownCompressionMethod,
                     absl::StrCat("Unknown compression method '", core::ToAbsl(method),
                                  "': granite supports gzip, deflate, lz4, zstd and none"));
}

}  // namespace

bool IsNoCompression(std::string_view method) {
  std::string lower = absl::AsciiStrToLower(absl::string_view(method.data(), method.size()));
  return lower.empty() || lower == "none";
}

absl::StatusOr<std::unique_ptr<StreamCompressor>> MakeStreamCompressor(std::string_view method,
                                                                       int level) {
  std::string lower = absl::AsciiStrToLower(absl::string_view(method.data(), method.size()));
  if (lower.empty() || lower == "none") return std::unique_ptr<StreamCompressor>();
  if (lower == "gzip") return std::make_unique<ZlibCompressor>(true, level);
  if (lower == "deflate") return std::make_unique<ZlibCompressor>(false, level);
  if (lower == "lz4") return std::make_unique<Lz4Compressor>(level);
  if (lower == "zstd") return std::make_unique<ZstdCompressor>(level);
  return UnknownMethod(method);
}

absl::StatusOr<std::unique_ptr<StreamDecompressor>> MakeStreamDecompressor(
    std::string_view method) {
  std::string lower = absl::AsciiStrToLower(absl::string_view(method.data(), method.size()));
  if (lower.empty() || lower == "none") return std::unique_ptr<StreamDecompressor>();
  if (lower == "gzip" || lower == "deflate") return std::make_unique<ZlibDecompressor>(lower);
  if (lower == "lz4") return std::make_unique<Lz4Decompressor>();
  if (lower == "zstd") return std::make_unique<ZstdDecompressor>();
  return UnknownMethod(method);
}

}  // namespace granite::coordinator
