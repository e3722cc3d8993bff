#include "coordinator/formats/arrow_types.h"

#include "core/status_macros.h"
#include "core/tuple_type.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/time_zone.h"

namespace granite::coordinator {
namespace {

namespace fb = arrow_fb;

// Builds the type table of a non-array, non-Nullable granite type; sets *kind to its union tag.
flatbuffers::Offset<void> BuildScalarType(flatbuffers::FlatBufferBuilder& fbb, core::TypeId type,
                                          const ArrowWriteOptions& options, fb::Type* kind) {
  auto integer = [&](int bits, bool is_signed) {
    *kind = fb::Type_Int;
    return fb::CreateInt(fbb, bits, is_signed).Union();
  };
  auto string = [&]() {
    if (options.string_as_string) {
      *kind = fb::Type_Utf8;
      return fb::CreateUtf8(fbb).Union();
    }
    *kind = fb::Type_Binary;
    return fb::CreateBinary(fbb).Union();
  };
  int bits;
  bool is_signed;
  if (IntegerLayout(type, &bits, &is_signed)) return integer(bits, is_signed);
  switch (core::BaseOf(type)) {
    case core::TypeId::kDateTime: return integer(32, false);  // ClickHouse writes the seconds
    case core::TypeId::kFloat32:
      *kind = fb::Type_FloatingPoint;
      return fb::CreateFloatingPoint(fbb, fb::Precision_SINGLE).Union();
    case core::TypeId::kFloat64:
      *kind = fb::Type_FloatingPoint;
      return fb::CreateFloatingPoint(fbb, fb::Precision_DOUBLE).Union();
    case core::TypeId::kString: return string();
    case core::TypeId::kFixedString:
      if (!options.fixed_string_as_fixed_binary) return string();
      *kind = fb::Type_FixedSizeBinary;
      return fb::CreateFixedSizeBinary(fbb, core::FixedStringSizeOf(type)).Union();
    case core::TypeId::kUUID:
      *kind = fb::Type_FixedSizeBinary;
      return fb::CreateFixedSizeBinary(fbb, 16).Union();
    case core::TypeId::kDate:
      *kind = fb::Type_Date;
      return fb::CreateDate(fbb, fb::DateUnit_DAY).Union();
    case core::TypeId::kDateTime64: {
      int64_t scale_up;
      const fb::TimeUnit unit = ArrowTimeUnit(core::PrecisionOf(type), &scale_up);
      const uint32_t zone = core::TimeZoneOf(type);
      auto name = fbb.CreateString(zone == 0 ? std::string_view("UTC") : core::TimeZoneName(zone));
      *kind = fb::Type_Timestamp;
      return fb::CreateTimestamp(fbb, unit, name).Union();
    }
    case core::TypeId::kDecimal32:
    case core::TypeId::kDecimal64:
    case core::TypeId::kDecimal128:
      *kind = fb::Type_Decimal;
      return fb::CreateDecimal(fbb, core::PrecisionOf(type), core::ScaleOf(type), 128).Union();
    case core::TypeId::kBool:
      *kind = fb::Type_Bool;
      return fb::CreateBool(fbb).Union();
    default:  // Nothing: the type of NULL
      *kind = fb::Type_Null;
      return fb::CreateNull(fbb).Union();
  }
}

absl::Status Unsupported(std::string_view arrow_type, std::string_view column) {
  return core::Error(core::ErrorCode::kUnknownType,
                     absl::StrCat("Unsupported Arrow type '", std::string(arrow_type),
                                  "' of an input column '", std::string(column), "'"));
}

// Returns whether a field carries the arrow.uuid extension.
bool IsUuidExtension(const fb::Field& field) {
  if (field.custom_metadata() == nullptr) return false;
  for (const fb::KeyValue* pair : *field.custom_metadata()) {
    if (pair->key() != nullptr && pair->value() != nullptr &&
        pair->key()->string_view() == "ARROW:extension:name" &&
        pair->value()->string_view() == "arrow.uuid") {
      return true;
    }
  }
  return false;
}

}  // namespace

bool IntegerLayout(core::TypeId type, int* bits, bool* is_signed) {
  const core::TypeId base = core::BaseOf(type);
  if (base > core::TypeId::kInt64) return false;  // ids 0..7: UInt8..UInt64, Int8..Int64
  const int index = static_cast<int>(base);
  *bits = 8 << (index % 4);
  *is_signed = index >= 4;
  return true;
}

fb::TimeUnit ArrowTimeUnit(int precision, int64_t* scale_up) {
  const int unit_digits = precision == 0 ? 0 : (precision + 2) / 3 * 3;
  *scale_up = 1;
  for (int d = precision; d < unit_digits; ++d) *scale_up *= 10;
  return static_cast<fb::TimeUnit>(unit_digits / 3);
}

flatbuffers::Offset<fb::Field> BuildArrowField(flatbuffers::FlatBufferBuilder& fbb,
                                               std::string_view name, core::TypeId type,
                                               const ArrowWriteOptions& options) {
  // Children and strings first: a flatbuffers table is built after everything it points to.
  auto name_offset = fbb.CreateString(name.data(), name.size());
  if (core::IsMap(type)) {
    // Map: a list of non-null "entries" structs of a non-null "key" and a "value".
    const core::TupleType& map = core::TupleTypeOf(type);
    std::vector<flatbuffers::Offset<fb::Field>> pair = {
        BuildArrowField(fbb, "key", core::ArrayElementOf(map.elements[0]), options),
        BuildArrowField(fbb, "value", core::ArrayElementOf(map.elements[1]), options)};
    auto pair_offset = fbb.CreateVector(pair);
    auto entries_name = fbb.CreateString("entries");
    auto entries = fb::CreateField(fbb, entries_name, /*nullable=*/false, fb::Type_Struct_,
                                   fb::CreateStruct_(fbb).Union(), 0, pair_offset);
    auto children_offset = fbb.CreateVector(std::vector{entries});
    return fb::CreateField(fbb, name_offset, /*nullable=*/false, fb::Type_Map,
                           fb::CreateMap(fbb).Union(), 0, children_offset);
  }
  if (core::IsArrayOfTuples(type)) {
    // Array(Tuple(...)): a list of non-null "item" structs of the tuples' elements.
    const core::TupleType& tuple = core::TupleTypeOf(type);
    std::vector<flatbuffers::Offset<fb::Field>> elements;
    for (size_t i = 0; i < tuple.elements.size(); ++i) {
      const std::string element = tuple.names.empty() ? std::to_string(i + 1) : tuple.names[i];
      elements.push_back(
          BuildArrowField(fbb, element, core::ArrayElementOf(tuple.elements[i]), options));
    }
    auto elements_offset = fbb.CreateVector(elements);
    auto item_name = fbb.CreateString("item");
    auto item = fb::CreateField(fbb, item_name, /*nullable=*/false, fb::Type_Struct_,
                                fb::CreateStruct_(fbb).Union(), 0, elements_offset);
    auto children_offset = fbb.CreateVector(std::vector{item});
    return fb::CreateField(fbb, name_offset, /*nullable=*/false, fb::Type_List,
                           fb::CreateList(fbb).Union(), 0, children_offset);
  }
  if (core::IsTuple(type)) {
    // Tuple: a struct of its elements, named as the tuple names them (else "1", "2", ...).
    const core::TupleType& tuple = core::TupleTypeOf(type);
    std::vector<flatbuffers::Offset<fb::Field>> children;
    for (size_t i = 0; i < tuple.elements.size(); ++i) {
      const std::string element = tuple.names.empty() ? std::to_string(i + 1) : tuple.names[i];
      children.push_back(BuildArrowField(fbb, element, tuple.elements[i], options));
    }
    auto children_offset = fbb.CreateVector(children);
    return fb::CreateField(fbb, name_offset, /*nullable=*/false, fb::Type_Struct_,
                           fb::CreateStruct_(fbb).Union(), 0, children_offset);
  }
  if (core::IsArray(type)) {
    std::vector<flatbuffers::Offset<fb::Field>> children = {
        BuildArrowField(fbb, "item", core::ArrayElementOf(type), options)};
    auto children_offset = fbb.CreateVector(children);
    auto list = fb::CreateList(fbb);
    return fb::CreateField(fbb, name_offset, /*nullable=*/false, fb::Type_List, list.Union(), 0,
                           children_offset);
  }
  const core::TypeId value_type = core::RemoveNullable(type);
  fb::Type kind = fb::Type_NONE;
  auto type_offset = BuildScalarType(fbb, value_type, options, &kind);
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>> metadata = 0;
  if (value_type == core::TypeId::kUUID) {
    // The canonical UUID extension, with the Parquet annotation ClickHouse adds beside it.
    std::vector<flatbuffers::Offset<fb::KeyValue>> pairs = {
        fb::CreateKeyValueDirect(fbb, "PARQUET:logical_type", "UUID"),
        fb::CreateKeyValueDirect(fbb, "ARROW:extension:metadata", ""),
        fb::CreateKeyValueDirect(fbb, "ARROW:extension:name", "arrow.uuid")};
    metadata = fbb.CreateVector(pairs);
  }
  auto no_children = fbb.CreateVector(std::vector<flatbuffers::Offset<fb::Field>>{});
  const bool nullable = core::IsNullable(type) || value_type == core::TypeId::kNothing;
  return fb::CreateField(fbb, name_offset, nullable, kind, type_offset, 0, no_children, metadata);
}

absl::StatusOr<core::TypeId> GraniteTypeOfArrowField(const fb::Field& field,
                                                     std::string_view column) {
  const bool nullable = field.nullable();
  const fb::Type kind = field.type_type();
  auto scalar = [&](core::TypeId type) -> absl::StatusOr<core::TypeId> {
    return core::WithNullable(type, nullable);
  };
  switch (kind) {
    case fb::Type_Null:
      return core::MakeNullable(core::TypeId::kNothing);
    case fb::Type_Int: {
      const fb::Int* t = field.type_as_Int();
      if (t == nullptr) break;
      const bool s = t->is_signed();
      switch (t->bit_width()) {
        case 8: return scalar(s ? core::TypeId::kInt8 : core::TypeId::kUInt8);
        case 16: return scalar(s ? core::TypeId::kInt16 : core::TypeId::kUInt16);
        case 32: return scalar(s ? core::TypeId::kInt32 : core::TypeId::kUInt32);
        case 64: return scalar(s ? core::TypeId::kInt64 : core::TypeId::kUInt64);
        default: break;
      }
      break;
    }
    case fb::Type_FloatingPoint: {
      const fb::FloatingPoint* t = field.type_as_FloatingPoint();
      if (t == nullptr) break;
      if (t->precision() == fb::Precision_SINGLE) return scalar(core::TypeId::kFloat32);
      if (t->precision() == fb::Precision_DOUBLE) return scalar(core::TypeId::kFloat64);
      return Unsupported("HalfFloat", column);
    }
    case fb::Type_Binary:
    case fb::Type_Utf8:
    case fb::Type_LargeBinary:
    case fb::Type_LargeUtf8:
      return scalar(core::TypeId::kString);
    case fb::Type_FixedSizeBinary: {
      const fb::FixedSizeBinary* t = field.type_as_FixedSizeBinary();
      if (t == nullptr) break;
      if (t->byte_width() == 16 && IsUuidExtension(field)) return scalar(core::TypeId::kUUID);
      if (t->byte_width() < 1 || t->byte_width() > static_cast<int>(core::kMaxFixedStringSize)) {
        break;
      }
      return scalar(core::MakeFixedString(t->byte_width()));
    }
    case fb::Type_Bool:
      return scalar(core::TypeId::kBool);
    case fb::Type_Decimal: {
      const fb::Decimal* t = field.type_as_Decimal();
      if (t == nullptr || t->bit_width() != 128) break;
      if (t->precision() < 1 || t->precision() > core::kMaxDecimalPrecision || t->scale() < 0 ||
          t->scale() > t->precision()) {
        break;
      }
      return scalar(core::MakeDecimal(t->precision(), t->scale()));
    }
    case fb::Type_Date: {
      const fb::Date* t = field.type_as_Date();
      if (t == nullptr) break;
      return scalar(t->unit() == fb::DateUnit_DAY ? core::TypeId::kDate
                                                  : core::MakeDateTime64(3));
    }
    case fb::Type_Timestamp: {
      const fb::Timestamp* t = field.type_as_Timestamp();
      if (t == nullptr || t->unit() > fb::TimeUnit_NANOSECOND) break;
      uint32_t zone = 0;
      if (t->timezone() != nullptr && t->timezone()->size() > 0) {
        absl::StatusOr<uint32_t> id = core::TimeZoneId(t->timezone()->string_view());
        if (id.ok()) zone = *id;
      }
      return scalar(core::MakeDateTime64(3 * static_cast<int>(t->unit()), zone));
    }
    case fb::Type_List:
    case fb::Type_LargeList: {
      if (field.children() == nullptr || field.children()->size() != 1) break;
      absl::StatusOr<core::TypeId> element = GraniteTypeOfArrowField(*field.children()->Get(0),
                                                                     column);
      if (!element.ok()) return element.status();
      if (core::IsTuple(*element) && !core::IsMap(*element) &&
          !core::IsArrayOfTuples(*element)) {
        // A list of structs: Array(Tuple(...)), kept as the tuple of its elements' arrays.
        const core::TupleType& tuple = core::TupleTypeOf(*element);
        std::vector<core::TypeId> arrays;
        for (core::TypeId type : tuple.elements) {
          if (core::IsTuple(type) || core::ArrayDepthOf(type) + 1 >= core::kMaxArrayDepth) {
            return Unsupported("List of Struct of Struct or Map", column);
          }
          arrays.push_back(core::MakeArray(type));
        }
        return core::MakeArrayOfTuplesType(std::move(arrays), tuple.names);
      }
      if (core::IsTuple(*element)) return Unsupported("List of Map or List of Struct", column);
      if (core::ArrayDepthOf(*element) >= core::kMaxArrayDepth) break;
      return core::MakeArray(*element);
    }
    case fb::Type_Struct_: {
      // A struct reads as a Tuple of its children (named as they are): an INSERT takes it into
      // a Tuple column.
      if (field.children() == nullptr || field.children()->size() == 0) break;
      std::vector<core::TypeId> elements;
      std::vector<std::string> names;
      for (const fb::Field* child : *field.children()) {
        ASSIGN_OR_RETURN(core::TypeId element, GraniteTypeOfArrowField(*child, column));
        if (core::IsTuple(element)) return Unsupported("Struct in a Struct", column);
        elements.push_back(element);
        names.push_back(child->name() != nullptr ? child->name()->str() : "");
      }
      return core::MakeTupleType(std::move(elements), std::move(names));
    }
    case fb::Type_Map: {
      // A list of "entries" structs of a key and a value: a Map(K, V).
      if (field.children() == nullptr || field.children()->size() != 1) break;
      const fb::Field* entries = field.children()->Get(0);
      if (entries->children() == nullptr || entries->children()->size() != 2) break;
      ASSIGN_OR_RETURN(core::TypeId key,
                       GraniteTypeOfArrowField(*entries->children()->Get(0), column));
      ASSIGN_OR_RETURN(core::TypeId value,
                       GraniteTypeOfArrowField(*entries->children()->Get(1), column));
      if (core::IsTuple(key) || core::IsTuple(value) ||
          core::ArrayDepthOf(value) >= core::kMaxArrayDepth) {
        return Unsupported("Map of Struct or Map", column);
      }
      return core::MakeMapType(key, value);
    }
    default:
      break;
  }
  // The specification's names: Struct_ and UnionType only avoid clashes in generated code.
  std::string_view name = fb::EnumNameType(kind);
  if (kind == fb::Type_Struct_) name = "Struct";
  if (kind == fb::Type_UnionType) name = "Union";
  return Unsupported(name, column);
}

}  // namespace granite::coordinator
