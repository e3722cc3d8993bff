#include "coordinator/formats/output_options.h"

#include <algorithm>
#include <string>

#include "core/settings/settings.h"

namespace granite::coordinator {

OutputOptions OutputOptionsOf(const core::Settings& settings) {
  OutputOptions options;
  options.json_quote_64bit_integers = settings.output_format_json_quote_64bit_integers;
  options.write_statistics = settings.output_format_write_statistics;
  options.arrow.string_as_string = settings.output_format_arrow_string_as_string;
  options.arrow.fixed_string_as_fixed_binary =
      settings.output_format_arrow_fixed_string_as_fixed_byte_array;
  const std::string& codec = settings.output_format_arrow_compression_method;
  options.arrow.codec = codec == "lz4_frame" ? ArrowWriteOptions::Codec::kLz4Frame
                        : codec == "zstd"    ? ArrowWriteOptions::Codec::kZstd
                                             : ArrowWriteOptions::Codec::kNone;
  options.parquet.string_as_string = settings.output_format_parquet_string_as_string;
  options.parquet.fixed_string_as_fixed_binary =
      settings.output_format_parquet_fixed_string_as_fixed_byte_array;
  options.parquet.zstd = settings.output_format_parquet_compression_method == "zstd";
  options.parquet.row_group_rows =
      std::max<uint64_t>(1, settings.output_format_parquet_row_group_size);
  return options;
}

}  // namespace granite::coordinator
