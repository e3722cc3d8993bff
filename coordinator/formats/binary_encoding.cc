#include "coordinator/formats/binary_encoding.h"

#include "core/tuple_type.h"

#include "core/extended_value_text.h"
#include "core/types.h"

namespace granite::coordinator {

void AppendVarUInt(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>(0x80 | (value & 0x7F)));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

void AppendBinaryString(std::string_view text, std::string* out) {
  AppendVarUInt(text.size(), out);
  out->append(text);
}

void AppendBinaryValue(const core::Column& column, size_t row, std::string* out) {
  if (column.nullable()) {
    // RowBinary's Nullable: a byte (1 = NULL), then the value only when it is not NULL.
    const bool null = column.IsNullAt(row);
    out->push_back(null ? 1 : 0);
    if (null) return;
  }
  if (core::IsMap(column.type())) {
    // RowBinary's Map: the entry count as a varint, then each key and its value.
    const core::Column& keys = column.Element(0);
    AppendVarUInt(keys.ArraySizeAt(row), out);
    for (uint64_t e = keys.ArrayBegin(row); e < keys.Offsets()[row]; ++e) {
      AppendBinaryValue(keys.Nested(), e, out);
      AppendBinaryValue(column.Element(1).Nested(), e, out);
    }
    return;
  }
  if (core::IsArrayOfTuples(column.type())) {
    // RowBinary's Array(Tuple): the element count as a varint, then each tuple's elements.
    const core::Column& first = column.Element(0);
    AppendVarUInt(first.ArraySizeAt(row), out);
    for (uint64_t e = first.ArrayBegin(row); e < first.Offsets()[row]; ++e) {
      for (size_t i = 0; i < column.TupleSize(); ++i) {
        AppendBinaryValue(column.Element(i).Nested(), e, out);
      }
    }
    return;
  }
  if (core::IsTuple(column.type())) {
    // RowBinary's Tuple: each element in turn.
    for (size_t i = 0; i < column.TupleSize(); ++i) AppendBinaryValue(column.Element(i), row, out);
    return;
  }
  if (core::IsArray(column.type())) {
    // RowBinary's Array: the element count as a varint, then each element.
    AppendVarUInt(column.ArraySizeAt(row), out);
    for (uint64_t e = column.ArrayBegin(row); e < column.Offsets()[row]; ++e) {
      AppendBinaryValue(column.Nested(), e, out);
    }
    return;
  }
  if (column.type() == core::TypeId::kString) {
    AppendBinaryString(column.StringAt(row), out);
    return;
  }
  if (core::IsFixedString(column.type())) {
    out->append(column.StringAt(row));  // exactly N bytes, no length
    return;
  }
  if (column.type() == core::TypeId::kUUID) {
    char bytes[16];
    core::UuidToClickHouseBytes(column.Get<core::UnsignedInt128>(row), bytes);
    out->append(bytes, sizeof(bytes));
    return;
  }
  const size_t width = core::ValueSize(column.type());
  out->append(column.RawData() + row * width, width);
}

void AppendNativeColumn(const core::Column& column, std::string* out, bool nullable) {
  if (nullable) {
    // Native's Nullable: the null map (a byte per row), then every row's value.
    if (column.nullable()) {
      out->append(reinterpret_cast<const char*>(column.NullMap()), column.size());
    } else {
      out->append(column.size(), '\0');
    }
  }
  if (core::IsMap(column.type())) {
    // Native's Map is its Array(Tuple(K, V)): the end offsets, then the keys' column and the
    // values' column.
    const core::Column& keys = column.Element(0);
    const core::Column& values = column.Element(1);
    out->append(reinterpret_cast<const char*>(keys.Offsets().data()), column.size() * 8);
    AppendNativeColumn(keys.Nested(), out, core::IsNullable(core::ArrayElementOf(keys.type())));
    AppendNativeColumn(values.Nested(), out,
                       core::IsNullable(core::ArrayElementOf(values.type())));
    return;
  }
  if (core::IsArrayOfTuples(column.type())) {
    // Native's Array(Tuple): the end offsets, then each element's nested column in turn.
    out->append(reinterpret_cast<const char*>(column.Element(0).Offsets().data()),
                column.size() * 8);
    for (size_t i = 0; i < column.TupleSize(); ++i) {
      const core::Column& element = column.Element(i);
      AppendNativeColumn(element.Nested(), out,
                         core::IsNullable(core::ArrayElementOf(element.type())));
    }
    return;
  }
  if (core::IsTuple(column.type())) {
    // Native's Tuple: each element's column in turn; ClickHouse writes the byte '0' per row of
    // an empty tuple.
    if (column.TupleSize() == 0) out->append(column.size(), '0');
    for (size_t i = 0; i < column.TupleSize(); ++i) {
      AppendNativeColumn(column.Element(i), out, column.Element(i).nullable());
    }
    return;
  }
  if (core::IsArray(column.type())) {
    // Native's Array: the rows' end offsets (UInt64), then the nested column the same way.
    out->append(reinterpret_cast<const char*>(column.Offsets().data()), column.size() * 8);
    const core::TypeId element = core::ArrayElementOf(column.type());
    AppendNativeColumn(column.Nested(), out, core::IsNullable(element));
    return;
  }
  if (column.type() == core::TypeId::kString) {
    for (size_t row = 0; row < column.size(); ++row) AppendBinaryString(column.StringAt(row), out);
    return;
  }
  if (core::IsFixedString(column.type())) {
    out->append(column.Chars());  // N bytes per row, back to back
    return;
  }
  if (column.type() == core::TypeId::kUUID) {
    char bytes[16];
    for (size_t row = 0; row < column.size(); ++row) {
      core::UuidToClickHouseBytes(column.Get<core::UnsignedInt128>(row), bytes);
      out->append(bytes, sizeof(bytes));
    }
    return;
  }
  out->append(column.RawData(), column.RawSize());
}

}  // namespace granite::coordinator
