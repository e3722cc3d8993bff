#include "coordinator/formats/parquet_metadata.h"

#include "absl/strings/str_cat.h"
#include "coordinator/formats/thrift_compact_reader.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

using Reader = ThriftCompactReader;

// Bounds the schema and row-group lists, so a corrupt count cannot allocate without limit.
constexpr size_t kMaxListSize = size_t{1} << 24;

absl::Status Corrupt(std::string_view why) {
  return core::Error(core::ErrorCode::kIncorrectData,
                     absl::StrCat("Cannot read Parquet metadata: ", std::string(why)));
}

// Walks the fields of the current struct: `field(id, type)` reads or skips each value; returns
// when the stop byte is read.
template <typename Field>
absl::Status ForEachFieldHere(Reader* reader, Field field) {
  int16_t id;
  uint8_t type;
  while (true) {
    ASSIGN_OR_RETURN(bool more, reader->NextField(&id, &type));
    if (!more) return absl::OkStatus();
    RETURN_IF_ERROR(field(id, type));
  }
}

// The same for a struct-valued field or list element the reader is at.
template <typename Field>
absl::Status ForEachField(Reader* reader, Field field) {
  RETURN_IF_ERROR(reader->BeginStruct());
  RETURN_IF_ERROR(ForEachFieldHere(reader, field));
  reader->EndStruct();
  return absl::OkStatus();
}

// Reads an i32 field (ids are small enums and sizes; a value past int32 is corrupt).
absl::StatusOr<int32_t> ReadI32(Reader* reader, uint8_t type) {
  ASSIGN_OR_RETURN(int64_t value, reader->ReadInt(type));
  if (value < INT32_MIN || value > INT32_MAX) return Corrupt("an i32 field is out of range");
  return static_cast<int32_t>(value);
}

// Reads a list of structs, calling `element()` at each element's start.
template <typename Element>
absl::Status ForEachStruct(Reader* reader, Element element) {
  uint8_t element_type;
  ASSIGN_OR_RETURN(size_t size, reader->ReadListHeader(&element_type));
  if (size > kMaxListSize) return Corrupt("a list is too long");
  if (element_type != Reader::kStruct) return Corrupt("a list of structs holds other values");
  for (size_t i = 0; i < size; ++i) RETURN_IF_ERROR(element());
  return absl::OkStatus();
}

// LogicalType (a union: one field set) into the element's logical fields.
absl::Status ReadLogicalType(Reader* reader, ParquetSchemaElement* element) {
  return ForEachField(reader, [&](int16_t id, uint8_t type) -> absl::Status {
    element->logical = id;
    if (type != Reader::kStruct) return reader->Skip(type);
    switch (id) {
      case parquet::kLogicalDecimal:
        return ForEachField(reader, [&](int16_t field, uint8_t t) -> absl::Status {
          if (field == 1) { ASSIGN_OR_RETURN(element->scale, ReadI32(reader, t)); }
          else if (field == 2) { ASSIGN_OR_RETURN(element->precision, ReadI32(reader, t)); }
          else return reader->Skip(t);
          return absl::OkStatus();
        });
      case parquet::kLogicalTime:
      case parquet::kLogicalTimestamp:
        return ForEachField(reader, [&](int16_t field, uint8_t t) -> absl::Status {
          if (field != 2 || t != Reader::kStruct) return reader->Skip(t);
          // TimeUnit: a union whose field id is the unit.
          return ForEachField(reader, [&](int16_t unit, uint8_t u) -> absl::Status {
            element->timestamp_unit = unit;
            return reader->Skip(u);
          });
        });
      case parquet::kLogicalInteger:
        return ForEachField(reader, [&](int16_t field, uint8_t t) -> absl::Status {
          if (field == 1) {
            ASSIGN_OR_RETURN(int64_t bits, reader->ReadInt(t));
            element->integer_bits = static_cast<int32_t>(bits);
          } else if (field == 2) {
            element->integer_signed = t == Reader::kTrue;
          } else {
            return reader->Skip(t);
          }
          return absl::OkStatus();
        });
      default:
        return reader->Skip(type);
    }
  });
}

absl::Status ReadSchemaElement(Reader* reader, ParquetSchemaElement* element) {
  return ForEachField(reader, [&](int16_t id, uint8_t type) -> absl::Status {
    switch (id) {
      case 1: { ASSIGN_OR_RETURN(element->physical, ReadI32(reader, type)); break; }
      case 2: { ASSIGN_OR_RETURN(element->type_length, ReadI32(reader, type)); break; }
      case 3: { ASSIGN_OR_RETURN(element->repetition, ReadI32(reader, type)); break; }
      case 4: {
        ASSIGN_OR_RETURN(std::string_view name, reader->ReadBinary());
        element->name = std::string(name);
        break;
      }
      case 5: { ASSIGN_OR_RETURN(element->num_children, ReadI32(reader, type)); break; }
      case 6: { ASSIGN_OR_RETURN(element->converted, ReadI32(reader, type)); break; }
      case 7: { ASSIGN_OR_RETURN(element->scale, ReadI32(reader, type)); break; }
      case 8: { ASSIGN_OR_RETURN(element->precision, ReadI32(reader, type)); break; }
      case 10:
        if (type != Reader::kStruct) return reader->Skip(type);
        return ReadLogicalType(reader, element);
      default: return reader->Skip(type);
    }
    return absl::OkStatus();
  });
}

absl::Status ReadColumnMetaData(Reader* reader, ParquetColumnChunk* chunk) {
  return ForEachField(reader, [&](int16_t id, uint8_t type) -> absl::Status {
    switch (id) {
      case 1: { ASSIGN_OR_RETURN(chunk->physical, ReadI32(reader, type)); break; }
      case 3: {
        uint8_t element_type;
        ASSIGN_OR_RETURN(size_t size, reader->ReadListHeader(&element_type));
        if (element_type != Reader::kBinary) return Corrupt("path_in_schema holds non-strings");
        for (size_t i = 0; i < size; ++i) {
          ASSIGN_OR_RETURN(std::string_view part, reader->ReadBinary());
          chunk->path.emplace_back(part);
        }
        break;
      }
      case 4: { ASSIGN_OR_RETURN(chunk->codec, ReadI32(reader, type)); break; }
      case 5: { ASSIGN_OR_RETURN(chunk->num_values, reader->ReadInt(type)); break; }
      case 7: { ASSIGN_OR_RETURN(chunk->total_compressed_size, reader->ReadInt(type)); break; }
      case 9: { ASSIGN_OR_RETURN(chunk->data_page_offset, reader->ReadInt(type)); break; }
      case 11: { ASSIGN_OR_RETURN(chunk->dictionary_page_offset, reader->ReadInt(type)); break; }
      default: return reader->Skip(type);
    }
    return absl::OkStatus();
  });
}

absl::Status ReadRowGroup(Reader* reader, ParquetRowGroup* group) {
  return ForEachField(reader, [&](int16_t id, uint8_t type) -> absl::Status {
    if (id == 3) {
      ASSIGN_OR_RETURN(group->num_rows, reader->ReadInt(type));
      return absl::OkStatus();
    }
    if (id != 1) return reader->Skip(type);
    return ForEachStruct(reader, [&]() -> absl::Status {
      ParquetColumnChunk& chunk = group->columns.emplace_back();
      bool has_metadata = false;
      RETURN_IF_ERROR(ForEachField(reader, [&](int16_t field, uint8_t t) -> absl::Status {
        if (field == 1) return Corrupt("column chunks in other files are not supported");
        if (field != 3 || t != Reader::kStruct) return reader->Skip(t);
        has_metadata = true;
        return ReadColumnMetaData(reader, &chunk);
      }));
      if (!has_metadata) return Corrupt("a column chunk has no metadata");
      return absl::OkStatus();
    });
  });
}

}  // namespace

absl::StatusOr<ParquetFileMetaData> ParseParquetFileMetaData(std::string_view bytes) {
  ParquetFileMetaData meta;
  Reader reader(bytes);
  RETURN_IF_ERROR(ForEachFieldHere(&reader, [&](int16_t id, uint8_t type) -> absl::Status {
    if (id == 2 && type == Reader::kList) {
      return ForEachStruct(&reader, [&]() {
        return ReadSchemaElement(&reader, &meta.schema.emplace_back());
      });
    }
    if (id == 3) {
      ASSIGN_OR_RETURN(meta.num_rows, reader.ReadInt(type));
      return absl::OkStatus();
    }
    if (id == 4 && type == Reader::kList) {
      return ForEachStruct(&reader, [&]() {
        return ReadRowGroup(&reader, &meta.row_groups.emplace_back());
      });
    }
    return reader.Skip(type);
  }));
  if (meta.schema.empty()) return Corrupt("the schema is empty");
  return meta;
}

absl::StatusOr<ParquetPageHeader> ParseParquetPageHeader(std::string_view bytes, size_t* size) {
  ParquetPageHeader header;
  Reader reader(bytes);
  RETURN_IF_ERROR(ForEachFieldHere(&reader, [&](int16_t id, uint8_t type) -> absl::Status {
    switch (id) {
      case 1: { ASSIGN_OR_RETURN(header.type, ReadI32(&reader, type)); break; }
      case 2: { ASSIGN_OR_RETURN(header.uncompressed_size, ReadI32(&reader, type)); break; }
      case 3: { ASSIGN_OR_RETURN(header.compressed_size, ReadI32(&reader, type)); break; }
      case 5:  // DataPageHeader
      case 7:  // DictionaryPageHeader: num_values and encoding have the same ids
        if (type != Reader::kStruct) return Corrupt("a page header's body is not a struct");
        RETURN_IF_ERROR(ForEachField(&reader, [&](int16_t field, uint8_t t) -> absl::Status {
          if (field == 1) { ASSIGN_OR_RETURN(header.num_values, ReadI32(&reader, t)); }
          else if (field == 2) { ASSIGN_OR_RETURN(header.encoding, ReadI32(&reader, t)); }
          else return reader.Skip(t);
          return absl::OkStatus();
        }));
        break;
      case 8:  // DataPageHeaderV2
        if (type != Reader::kStruct) return Corrupt("a page header's body is not a struct");
        RETURN_IF_ERROR(ForEachField(&reader, [&](int16_t field, uint8_t t) -> absl::Status {
          switch (field) {
            case 1: { ASSIGN_OR_RETURN(header.num_values, ReadI32(&reader, t)); break; }
            case 4: { ASSIGN_OR_RETURN(header.encoding, ReadI32(&reader, t)); break; }
            case 5: { ASSIGN_OR_RETURN(header.definition_bytes, ReadI32(&reader, t)); break; }
            case 6: { ASSIGN_OR_RETURN(header.repetition_bytes, ReadI32(&reader, t)); break; }
            case 7: header.values_compressed = t == Reader::kTrue; break;
            default: return reader.Skip(t);
          }
          return absl::OkStatus();
        }));
        break;
      default: return reader.Skip(type);
    }
    return absl::OkStatus();
  }));
  if (header.compressed_size < 0 || header.uncompressed_size < 0 || header.num_values < 0 ||
      header.definition_bytes < 0 || header.repetition_bytes < 0) {
    return Corrupt("a page header has a negative size");
  }
  *size = reader.position();
  return header;
}

}  // namespace granite::coordinator
