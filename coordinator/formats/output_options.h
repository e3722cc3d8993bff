// The settings that shape output formats (OutputOptions), read once per query from its
// core::Settings; the writers of coordinator/formats take the part they need.
#pragma once

#include <cstdint>

namespace granite::core {
class Settings;
}  // namespace granite::core

namespace granite::coordinator {

// How the Arrow formats write (arrow_output.h).
struct ArrowWriteOptions {
  enum class Codec { kNone, kLz4Frame, kZstd };
  bool string_as_string = true;             // output_format_arrow_string_as_string
  bool fixed_string_as_fixed_binary = true; // output_format_arrow_fixed_string_as_fixed_byte_array
  Codec codec = Codec::kNone;               // output_format_arrow_compression_method
};

// How Parquet writes (parquet_output.h).
struct ParquetWriteOptions {
  bool string_as_string = true;              // output_format_parquet_string_as_string
  bool fixed_string_as_fixed_binary = true;  // ..._fixed_string_as_fixed_byte_array
  bool zstd = true;                          // output_format_parquet_compression_method
  uint64_t row_group_rows = 1000000;         // output_format_parquet_row_group_size
};

// The settings that shape an output format.
struct OutputOptions {
  bool json_quote_64bit_integers = false;  // output_format_json_quote_64bit_integers
  bool write_statistics = true;            // output_format_write_statistics
  ArrowWriteOptions arrow;                 // output_format_arrow_*
  ParquetWriteOptions parquet;             // output_format_parquet_*
};

// Returns the output options that the query's settings ask for.
OutputOptions OutputOptionsOf(const core::Settings& settings);

}  // namespace granite::coordinator
