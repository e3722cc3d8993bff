// The preprocessing codecs of a column's codec chain (core/codec_spec.h): byte-level transforms of
// one granule's raw bytes that make fixed-width values more compressible, or compress them
// themselves. Each works on the granule as `width`-byte little-endian values; bytes past the last
// whole value (a Nullable column's null map tail, say) are carried unchanged, so any input decodes
// back exactly. The formats are granite's own (parts are not ClickHouse's files):
//   Delta        same size: the first value, then each value minus the previous (wrapping).
//   DoubleDelta  u32 input size, the tail bytes, the first value, the first delta, then each
//                delta-of-delta zigzag-encoded as a LEB128 varint (one byte for a steady step).
//   Gorilla      u32 input size, the tail bytes, the first value, then per value the XOR with the
//                previous one: bit 0 when equal, else bit 1, the leading-zero count, the length of
//                the meaningful bits minus one (log2(width * 8) bits each) and those bits.
//   T64          u32 input size, the tail bytes, then per block of up to 64 values the minimum
//                (signed values with the sign bit flipped, so order holds unsigned), a byte with
//                the bit width of (max - min), and each value minus the minimum in that many bits.
// Decoding runs once per granule, into the uncompressed cache; the loops are templates on the
// value width chosen by one switch per call.
#pragma once

#include <cstddef>
#include <string>

#include "core/codec_spec.h"

namespace granite::storage {

// Appends the encoding of `in` (`size` bytes) by preprocessing step `step` to `*out`.
// REQUIRES: step is not generic (core::IsGenericCodec is false); size < 4 GiB.
void EncodeTransform(const core::CodecStep& step, const char* in, size_t size, std::string* out);

// Returns the byte size `in` decodes to, or -1 when its header is malformed.
int64_t DecodedTransformSize(const core::CodecStep& step, const char* in, size_t size);

// Decodes `in` into `out`, which holds DecodedTransformSize() bytes. Returns false when `in` is
// malformed. REQUIRES: as EncodeTransform; `out` does not overlap `in`.
bool DecodeTransform(const core::CodecStep& step, const char* in, size_t size, char* out);

}  // namespace granite::storage
