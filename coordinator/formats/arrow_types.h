// The mapping between granite types and Arrow fields, both ways, as ClickHouse's Arrow formats
// make it (coordinator/formats/arrow_output.h writes, arrow_input.h reads):
//
//   UInt8..Int64          int(8..64, signed or not)     Float32 / Float64   float / double
//   String                utf8 (binary with output_format_arrow_string_as_string = 0)
//   FixedString(N)        fixed_size_binary(N) (as String with ..._fixed_string_as_fixed_byte_array = 0)
//   Date                  date32 (days)                 DateTime            uint32 (seconds)
//   DateTime64(p, 'tz')   timestamp(unit, tz): unit s for p = 0, ms up to 3, us up to 6, ns up to
//                         9, the ticks scaled up to the unit; tz "UTC" for a DateTime64 without
//                         a zone (granite's server zone)
//   Decimal(P, S)         decimal128(P, S)              Bool                bool (bit-packed)
//   UUID                  extension arrow.uuid over fixed_size_binary(16), the bytes in text order
//   Nullable(T)           T's field, nullable, with a validity bitmap
//   Nullable(Nothing)     null                          Array(T)            list<item: T>
//
// Reading goes the other way and also accepts what other writers (pyarrow, pandas) produce:
// binary / large_binary / large_utf8 as String, large_list as Array, timestamp of any unit as
// DateTime64 of that unit's precision, date64 as DateTime64(3), float16 is refused.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "coordinator/formats/arrow_format_generated.h"
#include "coordinator/formats/output_options.h"
#include "core/types.h"

namespace granite::coordinator {

// Returns whether `type` is one of the eight integer types (not Bool, Date, DateTime) and sets
// its width in bits and its signedness.
bool IntegerLayout(core::TypeId type, int* bits, bool* is_signed);

// Returns the Arrow time unit of DateTime64(precision) and sets *scale_up to the factor that
// turns its ticks into that unit's (1, 10 or 100).
arrow_fb::TimeUnit ArrowTimeUnit(int precision, int64_t* scale_up);

// Builds the Arrow field `name` of granite type `type` (Nullable and arrays included) in `fbb`.
flatbuffers::Offset<arrow_fb::Field> BuildArrowField(flatbuffers::FlatBufferBuilder& fbb,
                                                     std::string_view name, core::TypeId type,
                                                     const ArrowWriteOptions& options);

// Returns the granite type an Arrow field's values read as without conversion (Nullable when the
// field is nullable and not a list), or UNKNOWN_TYPE naming the Arrow type and the column
// ("Unsupported Arrow type 'Struct' of an input column 'c'"), as ClickHouse. A dictionary-encoded
// field reads as its dictionary's values (`type`); its indexes are read by the caller.
absl::StatusOr<core::TypeId> GraniteTypeOfArrowField(const arrow_fb::Field& field,
                                                     std::string_view column);

}  // namespace granite::coordinator
