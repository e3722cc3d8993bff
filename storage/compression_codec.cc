#include "storage/compression_codec.h"

#include <lz4.h>
#include <lz4hc.h>
#include <zstd.h>

#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "storage/codec_transforms.h"

namespace granite::storage {
namespace {

using core::CodecKind;
using core::CodecStep;
using core::Error;
using core::ErrorCode;

// Bounds a decoded stage's size read from a block, before allocating for it.
constexpr uint64_t kMaxStageBytes = uint64_t{1} << 31;

struct ZstdContexts {
  ZSTD_CCtx* compress = ZSTD_createCCtx();
  ZSTD_DCtx* decompress = ZSTD_createDCtx();
  ~ZstdContexts() {
    ZSTD_freeCCtx(compress);
    ZSTD_freeDCtx(decompress);
  }
};

ZstdContexts& ThreadZstd() {
  thread_local ZstdContexts contexts;
  return contexts;
}

// Appends `size` bytes at `in` compressed by generic codec `step` to *out.
absl::Status EncodeGeneric(const CodecStep& step, const char* in, size_t size, std::string* out) {
  size_t at = out->size();
  switch (step.kind) {
    case CodecKind::kNone:
      out->append(in, size);
      return absl::OkStatus();
    case CodecKind::kLZ4:
    case CodecKind::kLZ4HC: {
      int bound = LZ4_compressBound(static_cast<int>(size));
      out->resize(at + bound);
      int n = step.kind == CodecKind::kLZ4
                  ? LZ4_compress_default(in, out->data() + at, static_cast<int>(size), bound)
                  : LZ4_compress_HC(in, out->data() + at, static_cast<int>(size), bound,
                                    step.param);
      if (n <= 0) return Error(ErrorCode::kLogicalError, "LZ4 compression failed");
      out->resize(at + n);
      return absl::OkStatus();
    }
    case CodecKind::kZSTD: {
      size_t bound = ZSTD_compressBound(size);
      out->resize(at + bound);
      size_t n = ZSTD_compressCCtx(ThreadZstd().compress, out->data() + at, bound, in, size,
                                   step.param);
      if (ZSTD_isError(n)) {
        return Error(ErrorCode::kLogicalError,
                     absl::StrCat("ZSTD compression failed: ", ZSTD_getErrorName(n)));
      }
      out->resize(at + n);
      return absl::OkStatus();
    }
    default:
      return Error(ErrorCode::kLogicalError, "Not a generic codec");
  }
}

bool DecodeGeneric(const CodecStep& step, const char* in, size_t size, char* out,
                   size_t raw_size) {
  switch (step.kind) {
    case CodecKind::kNone:
      if (size != raw_size) return false;
      std::memcpy(out, in, size);
      return true;
    case CodecKind::kLZ4:
    case CodecKind::kLZ4HC:
      return LZ4_decompress_safe(in, out, static_cast<int>(size), static_cast<int>(raw_size)) ==
             static_cast<int>(raw_size);
    case CodecKind::kZSTD: {
      size_t n = ZSTD_decompressDCtx(ThreadZstd().decompress, out, raw_size, in, size);
      return !ZSTD_isError(n) && n == raw_size;
    }
    default:
      return false;
  }
}

// Per-thread buffers holding the intermediate stages of a chain.
std::string& EncodeStage(size_t k) {
  thread_local std::string stages[2];
  return stages[k % 2];
}

char* DecodeStage(size_t k, size_t size) {
  thread_local std::vector<char> stages[2];
  std::vector<char>& stage = stages[k % 2];
  if (stage.size() < size) {
    stage.clear();
    stage.shrink_to_fit();
    stage.resize(size);
  }
  return stage.data();
}

}  // namespace

CompressionCodec CompressionCodec::Lz4() {
  return CompressionCodec(core::CodecSpec{{CodecStep{CodecKind::kLZ4, 0, false}}});
}

core::CodecSpec CompressionCodec::DefaultSpec(core::TypeId type) {
  // Chosen on a wide table of mostly-default integers, URL-like strings and sorted timestamps,
  // with sparse columns (bench/results/sparse-storage-2026-11-29.md): ZSTD(3) is chdb's default;
  // DoubleDelta takes a fifth off timestamps and dates, which rows sorted by a key with a date or
  // time in it keep close, and decodes at GB/s.
  const core::TypeId base = core::BaseOf(core::RemoveNullable(type));
  const bool time = base == core::TypeId::kDate || base == core::TypeId::kDateTime ||
                    base == core::TypeId::kDateTime64;
  const int width = time ? static_cast<int>(core::ValueSize(core::RemoveNullable(type))) : 0;
  core::CodecSpec spec;
  if (time) spec.steps.push_back(CodecStep{CodecKind::kDoubleDelta, width, false});
  spec.steps.push_back(CodecStep{CodecKind::kZSTD, 3, false});
  return spec;
}

absl::StatusOr<CompressionCodec> CompressionCodec::ForColumn(const core::ColumnSchema& column) {
  if (column.codec.empty()) return CompressionCodec(DefaultSpec(column.type));
  absl::StatusOr<core::CodecSpec> spec =
      core::ParseCodecSpec(column.codec, column.type, column.name);
  if (!spec.ok()) return spec.status();
  return CompressionCodec(*std::move(spec));
}

CompressionCodec::CompressionCodec(core::CodecSpec spec) : spec_(std::move(spec)) {
  lz4_block_ = spec_.steps.size() == 1 && (spec_.steps[0].kind == CodecKind::kLZ4 ||
                                           spec_.steps[0].kind == CodecKind::kLZ4HC);
}

absl::Status CompressionCodec::Encode(std::string_view raw, std::string* out) const {
  if (raw.size() > LZ4_MAX_INPUT_SIZE) {
    return Error(ErrorCode::kArgumentOutOfBound,
                 absl::StrCat("Cannot compress a block of ", raw.size(), " bytes; the limit is ",
                              LZ4_MAX_INPUT_SIZE));
  }
  const char* data = raw.data();
  size_t size = raw.size();
  const size_t last = spec_.steps.size() - 1;
  for (size_t k = 0; k <= last; ++k) {
    const CodecStep& step = spec_.steps[k];
    std::string& target = k == last ? *out : EncodeStage(k);
    target.clear();
    if (core::IsGenericCodec(step.kind)) {
      if (k > 0) {
        uint32_t input = static_cast<uint32_t>(size);
        target.append(reinterpret_cast<const char*>(&input), 4);
      }
      if (absl::Status status = EncodeGeneric(step, data, size, &target); !status.ok()) {
        return status;
      }
    } else {
      EncodeTransform(step, data, size, &target);
    }
    data = target.data();
    size = target.size();
  }
  return absl::OkStatus();
}

bool CompressionCodec::Decode(const char* block, size_t block_size, char* out,
                              size_t raw_size) const {
  const size_t last = spec_.steps.size() - 1;
  if (last == 0 && core::IsGenericCodec(spec_.steps[0].kind)) {
    return DecodeGeneric(spec_.steps[0], block, block_size, out, raw_size);
  }
  const char* data = block;
  size_t size = block_size;
  for (size_t k = last + 1; k-- > 0;) {
    const CodecStep& step = spec_.steps[k];
    const bool generic = core::IsGenericCodec(step.kind);
    uint64_t decoded = 0;
    if (generic) {
      uint32_t input = 0;
      if (size < 4) return false;
      std::memcpy(&input, data, 4);
      decoded = input;
      data += 4;
      size -= 4;
    } else {
      int64_t n = DecodedTransformSize(step, data, size);
      if (n < 0) return false;
      decoded = static_cast<uint64_t>(n);
    }
    if (decoded > kMaxStageBytes || (k == 0 && decoded != raw_size)) return false;
    char* target = k == 0 ? out : DecodeStage(k, decoded);
    bool ok = generic ? DecodeGeneric(step, data, size, target, decoded)
                      : DecodeTransform(step, data, size, target);
    if (!ok) return false;
    data = target;
    size = decoded;
  }
  return true;
}

}  // namespace granite::storage
