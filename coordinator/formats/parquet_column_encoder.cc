#include "coordinator/formats/parquet_column_encoder.h"

#include <cstring>

#include "coordinator/formats/arrow_types.h"

namespace granite::coordinator {
namespace {

// Level entries of a column that has levels, and the innermost rows whose values are present.
struct Levels {
  std::vector<uint8_t> repetition;
  std::vector<uint8_t> definition;
  std::vector<uint32_t> value_rows;  // rows of the innermost column
  const core::Column* innermost = nullptr;
};

// Adds the entries of row `row` of `column`, which starts at repetition level `rep` and sits
// under `def` definition levels and `depth` lists.
void Walk(const core::Column& column, size_t row, int rep, int def, int depth, bool nullable_leaf,
          Levels* levels) {
  if (core::IsArray(column.type())) {
    const uint64_t begin = column.ArrayBegin(row), end = column.Offsets()[row];
    if (begin == end) {  // an empty list: defined up to this list, no value
      levels->repetition.push_back(rep);
      levels->definition.push_back(def);
      return;
    }
    for (uint64_t e = begin; e < end; ++e) {
      Walk(column.Nested(), e, e == begin ? rep : depth + 1, def + 1, depth + 1, nullable_leaf,
           levels);
    }
    return;
  }
  levels->innermost = &column;
  levels->repetition.push_back(rep);
  if (nullable_leaf && column.IsNullAt(row)) {
    levels->definition.push_back(def);
    return;
  }
  levels->definition.push_back(def + (nullable_leaf ? 1 : 0));
  levels->value_rows.push_back(static_cast<uint32_t>(row));
}

void AppendUInt32(uint32_t value, std::string* out) {
  out->append(reinterpret_cast<const char*>(&value), 4);
}

// Appends levels as the RLE / bit-packing hybrid with a 4-byte length (RLE runs only; a level
// fits one byte), nothing when the maximum level is 0.
void AppendLevels(const std::vector<uint8_t>& levels, int max_level, std::string* out) {
  if (max_level == 0) return;
  std::string runs;
  for (size_t i = 0; i < levels.size();) {
    size_t j = i;
    while (j < levels.size() && levels[j] == levels[i]) ++j;
    uint64_t header = static_cast<uint64_t>(j - i) << 1;
    while (header >= 0x80) {
      runs.push_back(static_cast<char>(0x80 | (header & 0x7F)));
      header >>= 7;
    }
    runs.push_back(static_cast<char>(header));
    runs.push_back(static_cast<char>(levels[i]));
    i = j;
  }
  AppendUInt32(static_cast<uint32_t>(runs.size()), out);
  out->append(runs);
}

template <typename T>
void AppendRaw(T value, std::string* out) {
  out->append(reinterpret_cast<const char*>(&value), sizeof(T));
}

// Appends the big-endian two's complement of `value` in `width` bytes.
void AppendBigEndian(core::Int128 value, int width, std::string* out) {
  for (int b = width - 1; b >= 0; --b) out->push_back(static_cast<char>(value >> (8 * b)));
}

// Appends the PLAIN values of rows `rows` of `column` (every row when rows is null).
void EncodeValues(const core::Column& column, const std::vector<uint32_t>* rows,
                  const ParquetLeafType& leaf, std::string* out) {
  const size_t count = rows != nullptr ? rows->size() : column.size();
  auto each = [&](auto append) {
    for (size_t i = 0; i < count; ++i) append(rows != nullptr ? (*rows)[i] : i);
  };
  const core::TypeId type = leaf.value_type;
  switch (core::BaseOf(type)) {
    case core::TypeId::kString:
    case core::TypeId::kFixedString:
      each([&](size_t r) {
        const std::string_view value = column.StringAt(r);
        if (leaf.physical == ParquetPhysical::kByteArray) {
          AppendUInt32(static_cast<uint32_t>(value.size()), out);
        }
        out->append(value);
      });
      return;
    case core::TypeId::kDateTime:
      each([&](size_t r) { AppendRaw<int64_t>(int64_t{column.Get<uint32_t>(r)} * 1000, out); });
      return;
    case core::TypeId::kDateTime64: {
      int64_t scale_up;
      const int precision = core::PrecisionOf(type);
      ArrowTimeUnit(precision, &scale_up);
      if (precision == 0) scale_up = 1000;  // seconds are written as milliseconds
      each([&](size_t r) { AppendRaw<int64_t>(column.Get<int64_t>(r) * scale_up, out); });
      return;
    }
    case core::TypeId::kDecimal32:
      each([&](size_t r) { AppendBigEndian(column.Get<int32_t>(r), 4, out); });
      return;
    case core::TypeId::kDecimal64:
      each([&](size_t r) { AppendBigEndian(column.Get<int64_t>(r), 8, out); });
      return;
    case core::TypeId::kDecimal128:
      each([&](size_t r) { AppendBigEndian(column.Get<core::Int128>(r), 16, out); });
      return;
    case core::TypeId::kUUID:
      each([&](size_t r) {
        const core::UnsignedInt128 v = column.Get<core::UnsignedInt128>(r);
        AppendRaw<uint64_t>(__builtin_bswap64(static_cast<uint64_t>(v)), out);
        AppendRaw<uint64_t>(__builtin_bswap64(static_cast<uint64_t>(v >> 64)), out);
      });
      return;
    case core::TypeId::kBool: {
      size_t bit = 0;
      each([&](size_t r) {
        if (bit % 8 == 0) out->push_back(0);
        if (column.Get<uint8_t>(r) != 0) out->back() |= static_cast<char>(1u << (bit % 8));
        ++bit;
      });
      return;
    }
    case core::TypeId::kUInt8:
      each([&](size_t r) { AppendRaw<int32_t>(column.Get<uint8_t>(r), out); });
      return;
    case core::TypeId::kUInt16:
    case core::TypeId::kDate:
      each([&](size_t r) { AppendRaw<int32_t>(column.Get<uint16_t>(r), out); });
      return;
    case core::TypeId::kInt8:
      each([&](size_t r) { AppendRaw<int32_t>(column.Get<int8_t>(r), out); });
      return;
    case core::TypeId::kInt16:
      each([&](size_t r) { AppendRaw<int32_t>(column.Get<int16_t>(r), out); });
      return;
    default: {  // UInt32, Int32, 64-bit integers, floats: the values as they are
      const size_t width = core::ValueSize(type);
      if (rows == nullptr) {
        out->append(column.RawData(), column.RawSize());
        return;
      }
      each([&](size_t r) { out->append(column.RawData() + r * width, width); });
      return;
    }
  }
}

}  // namespace

ParquetLeafType ParquetLeafOf(core::TypeId type, bool fixed_string_as_fixed) {
  ParquetLeafType leaf;
  const core::TypeId inner = core::ArrayInnermostOf(type);
  leaf.max_repetition = core::ArrayDepthOf(type);
  leaf.max_definition = leaf.max_repetition + (core::IsNullable(inner) ? 1 : 0);
  leaf.value_type = core::RemoveNullable(inner);
  leaf.fixed_string_as_fixed = fixed_string_as_fixed;
  switch (core::BaseOf(leaf.value_type)) {
    case core::TypeId::kUInt64:
    case core::TypeId::kInt64:
    case core::TypeId::kDateTime:
    case core::TypeId::kDateTime64:
      leaf.physical = ParquetPhysical::kInt64;
      break;
    case core::TypeId::kBool: leaf.physical = ParquetPhysical::kBoolean; break;
    case core::TypeId::kFloat32: leaf.physical = ParquetPhysical::kFloat; break;
    case core::TypeId::kFloat64: leaf.physical = ParquetPhysical::kDouble; break;
    case core::TypeId::kString: leaf.physical = ParquetPhysical::kByteArray; break;
    case core::TypeId::kFixedString:
      if (fixed_string_as_fixed) {
        leaf.physical = ParquetPhysical::kFixedLenByteArray;
        leaf.type_length = static_cast<int32_t>(core::FixedStringSizeOf(leaf.value_type));
      } else {
        leaf.physical = ParquetPhysical::kByteArray;
      }
      break;
    case core::TypeId::kDecimal32:
    case core::TypeId::kDecimal64:
    case core::TypeId::kDecimal128:
    case core::TypeId::kUUID:
      leaf.physical = ParquetPhysical::kFixedLenByteArray;
      leaf.type_length = static_cast<int32_t>(core::ValueSize(leaf.value_type));
      break;
    default:  // the narrower integers, Date
      leaf.physical = ParquetPhysical::kInt32;
      break;
  }
  return leaf;
}

ParquetColumnData EncodeParquetColumn(const core::Column& column, const ParquetLeafType& leaf) {
  ParquetColumnData data;
  if (leaf.max_definition == 0) {  // a required scalar: no levels, every value
    data.num_values = static_cast<int64_t>(column.size());
    EncodeValues(column, nullptr, leaf, &data.values);
    return data;
  }
  const bool nullable_leaf = leaf.max_definition > leaf.max_repetition;
  Levels levels;
  for (size_t row = 0; row < column.size(); ++row) {
    Walk(column, row, 0, 0, 0, nullable_leaf, &levels);
  }
  AppendLevels(levels.repetition, leaf.max_repetition, &data.levels);
  AppendLevels(levels.definition, leaf.max_definition, &data.levels);
  data.num_values = static_cast<int64_t>(levels.definition.size());
  if (levels.innermost != nullptr) {
    EncodeValues(*levels.innermost, &levels.value_rows, leaf, &data.values);
  }
  return data;
}

}  // namespace granite::coordinator
