// Decoders for the encodings of Parquet's data pages, for the Parquet input (parquet_input.h):
// the RLE / bit-packed hybrid (levels, dictionary indexes, RLE booleans), DELTA_BINARY_PACKED,
// and the sink that turns a leaf's physical values (PLAIN bytes, or BYTE_ARRAY values) into a
// granite column of the type the leaf reads as. Every decoder checks its input's length: a
// corrupt page is INCORRECT_DATA, never a read past the page.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/column.h"
#include "core/types.h"

namespace granite::coordinator {

// Reads the RLE / bit-packed hybrid of values `bit_width` (0..32) bits wide: runs, each a varint
// header, then either one value repeated (header >> 1 times, in ceil(bit_width / 8) bytes) or
// (header >> 1) groups of 8 values packed LSB first.
// Thread-safety: none. REQUIRES: the bytes outlive the decoder.
class ParquetRleDecoder {
 public:
  ParquetRleDecoder(std::string_view data, int bit_width) : data_(data), bit_width_(bit_width) {}

  // Writes the next `count` values to out[0 .. count).
  absl::Status Decode(size_t count, uint32_t* out);

 private:
  absl::Status NextRun();

  std::string_view data_;
  size_t pos_ = 0;
  int bit_width_;
  uint64_t repeat_left_ = 0;  // values left in the current RLE run
  uint32_t repeat_value_ = 0;
  uint64_t packed_left_ = 0;  // values left in the current bit-packed run
  size_t packed_bit_ = 0;     // bit offset of its next value in data_
  size_t packed_end_bit_ = 0;  // the bits of data_ the run may use
};

// Decodes DELTA_BINARY_PACKED integers from data[*pos ...], appending them to *out; *pos ends
// just after the encoded values (DELTA_LENGTH_BYTE_ARRAY's bytes follow them). More than
// `max_values` values (the page's count) is INCORRECT_DATA: a header cannot make it allocate
// beyond what the page says it holds.
absl::Status DecodeDeltaBinaryPacked(std::string_view data, size_t* pos, size_t max_values,
                                     std::vector<int64_t>* out);

// Returns the bits needed for values up to `max_value` (0 for 0).
int BitWidthOf(uint32_t max_value);

// How a leaf's physical values become the values of the type it reads as.
enum class ParquetConversion {
  kCopy,          // same bytes: INT32 -> Int32, INT64 -> Int64 / UInt64 / DateTime64, FLOAT, DOUBLE
  kInt32To,       // INT32 -> a narrower or unsigned integer, or Decimal32..128 (unscaled)
  kInt64To,       // INT64 -> UInt32 or Decimal32..128 (unscaled)
  kDate,          // INT32 days -> Date, saturated to Date's range
  kInt96,         // INT96 (nanoseconds of the day, Julian day) -> DateTime64(9)
  kBool,          // BOOLEAN (PLAIN: bit-packed) -> Bool
  kString,        // BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY -> String or FixedString(N)
  kBigEndianDecimal,  // BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY two's complement -> Decimal
  kUuid,          // FIXED_LEN_BYTE_ARRAY(16) -> UUID
  kFloat16,       // FIXED_LEN_BYTE_ARRAY(2) -> Float32
};

// Appends physical values to a column of the leaf's read type.
// Thread-safety: none.
class ParquetValueSink {
 public:
  // REQUIRES: `column` has the read type the conversion produces.
  ParquetValueSink(ParquetConversion conversion, int physical_width, core::Column* column)
      : conversion_(conversion), width_(physical_width), column_(column) {}

  // Appends `count` PLAIN values of the leaf's fixed physical width (4, 8, 12 or N bytes; not
  // BOOLEAN or BYTE_ARRAY) from `bytes`. REQUIRES: bytes.size() >= count * width.
  absl::Status AppendFixed(std::string_view bytes, size_t count);
  // Appends one BYTE_ARRAY (or FIXED_LEN_BYTE_ARRAY) value.
  absl::Status AppendBinary(std::string_view value);
  // Appends one BOOLEAN value.
  void AppendBool(bool value) { column_->Append<uint8_t>(value ? 1 : 0); }
  // Appends `count` PLAIN values of BYTE_ARRAY from data[*pos ...] (a 4-byte length each).
  absl::Status AppendPlainBinary(std::string_view data, size_t* pos, size_t count);

  ParquetConversion conversion() const { return conversion_; }
  int width() const { return width_; }

 private:
  absl::Status AppendOne(const char* bytes);

  ParquetConversion conversion_;
  int width_;
  core::Column* column_;
};

}  // namespace granite::coordinator
