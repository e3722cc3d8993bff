// CodecSpec: a column's compression codec chain as CREATE TABLE declares it in ClickHouse syntax,
// `CODEC(Delta, ZSTD(1))`. The coordinator parses and validates it once at CREATE and keeps the
// normalized text in ColumnSchema::codec ("Delta(8), ZSTD(1)", as ClickHouse prints it); storage
// (storage/compression_codec.h) rebuilds the chain from that text and the column's type to encode
// and decode granules, and each part records the text its columns were written with.
//
// Codecs apply in order on write and in reverse on read. Preprocessing codecs (Delta, DoubleDelta,
// Gorilla, T64) transform fixed-width values; a generic codec (NONE, LZ4, LZ4HC, ZSTD) ends the
// chain. Validation follows ClickHouse: unknown names are UNKNOWN_CODEC, bad levels and widths
// ILLEGAL_CODEC_PARAMETER, a preprocessing codec on a type it cannot read BAD_ARGUMENTS (T64:
// ILLEGAL_SYNTAX_FOR_CODEC_TYPE), and meaningless chains (anything after a generic codec, NONE with
// others, nothing that compresses, Gorilla on integers) BAD_ARGUMENTS.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/types.h"

namespace granite::core {

enum class CodecKind : uint8_t {
  kNone,
  kLZ4,
  kLZ4HC,
  kZSTD,
  kDelta,        // param: value width in bytes (1, 2, 4, 8)
  kDoubleDelta,  // param: value width
  kGorilla,      // param: value width (4, 8)
  kT64,          // param: value width; is_signed: the type's integers are signed
};

// One codec of a chain.
struct CodecStep {
  CodecKind kind = CodecKind::kLZ4;
  int param = 0;  // level for ZSTD / LZ4HC, value width for preprocessing codecs
  bool is_signed = false;

  bool operator==(const CodecStep&) const = default;
};

// Returns true for NONE, LZ4, LZ4HC and ZSTD, which end a chain.
bool IsGenericCodec(CodecKind kind);

// A validated codec chain. Invariants: steps is non-empty; no step follows a generic codec; some
// step compresses (any but Delta); NONE stands alone.
struct CodecSpec {
  std::vector<CodecStep> steps;

  // Returns the text ClickHouse's SHOW CREATE prints inside CODEC(...): "Delta(8), ZSTD(1)".
  std::string ToString() const;

  bool operator==(const CodecSpec&) const = default;
};

// Parses and validates the codec list `text` (what is inside CODEC(...), or ToString()'s output)
// for a column of `type` named `column` (named in errors). Nullable(T) uses T's width.
absl::StatusOr<CodecSpec> ParseCodecSpec(std::string_view text, TypeId type,
                                         std::string_view column);

}  // namespace granite::core
