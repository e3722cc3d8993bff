// Binary encoding shared by the RowBinary and Native output formats (coordinator/formats): the
// little-endian values and LEB128 lengths ClickHouse's binary formats use.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/column.h"

namespace granite::coordinator {

// Appends `value` as an unsigned LEB128 varint (ClickHouse writeVarUInt).
void AppendVarUInt(uint64_t value, std::string* out);

// Appends `text` as a varint length followed by its bytes (ClickHouse writeStringBinary).
void AppendBinaryString(std::string_view text, std::string* out);

// Appends row `row` of `column` in ClickHouse's binary form: fixed-width types as their
// little-endian bytes (Date as UInt16 days, DateTime as UInt32 seconds, Bool a byte, DateTime64
// Int64 ticks, UUID its high half then its low half), String as AppendBinaryString, FixedString
// as its N bytes; a Nullable column's row is preceded by a byte, 1 for NULL (then no value); an
// array is its element count as a varint, then its elements.
void AppendBinaryValue(const core::Column& column, size_t row, std::string* out);

// Appends all rows of `column` in Native's column layout: fixed-width data as one array, String
// as one AppendBinaryString per row; with `nullable` (a Nullable type), the null map first; an
// array as its rows' end offsets (UInt64), then its nested column in this layout.
void AppendNativeColumn(const core::Column& column, std::string* out, bool nullable = false);

}  // namespace granite::coordinator
