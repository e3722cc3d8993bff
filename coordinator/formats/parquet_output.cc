#include "coordinator/formats/parquet_output.h"

#include <zstd.h>

#include "absl/strings/str_cat.h"
#include "coordinator/formats/arrow_types.h"
#include "core/error.h"
#include "core/tuple_type.h"

namespace granite::coordinator {
namespace {

constexpr std::string_view kMagic = "PAR1";
// parquet.thrift's enums.
constexpr int32_t kRequired = 0, kOptional = 1, kRepeated = 2;
constexpr int32_t kPlain = 0, kRle = 3;
constexpr int32_t kUncompressed = 0, kZstd = 6;
constexpr int32_t kDataPage = 0;
// ConvertedType, the annotation older readers know.
constexpr int32_t kUtf8 = 0, kMap = 1, kList = 3, kDecimal = 5, kDate = 6, kTimestampMillis = 9,
                  kTimestampMicros = 10, kUInt8 = 11, kInt8 = 15;
constexpr int kZstdLevel = 3;

// Returns whether `type` holds Nothing anywhere (Nullable(Nothing), Array(Nothing), in a tuple
// or a map).
bool HasNothing(core::TypeId type) {
  if (core::IsTuple(type)) {
    for (core::TypeId element : core::TupleTypeOf(type).elements) {
      if (HasNothing(element)) return true;
    }
    return false;
  }
  return core::RemoveNullable(core::ArrayInnermostOf(type)) == core::TypeId::kNothing;
}

// Appends the LogicalType union and the ConvertedType of a leaf of `type` as fields 6..10 of a
// SchemaElement (ids in order: converted_type 6, scale 7, precision 8, logicalType 10).
void AppendAnnotations(core::TypeId type, const ParquetWriteOptions& options,
                       ThriftCompactWriter* thrift) {
  auto integer = [&](int bits, bool is_signed) {
    thrift->FieldI32(6, (is_signed ? kInt8 : kUInt8) + (bits == 8    ? 0
                                                        : bits == 16 ? 1
                                                        : bits == 32 ? 2
                                                                     : 3));
    thrift->BeginStruct(10);
    thrift->BeginStruct(10);  // INTEGER
    thrift->FieldI8(1, static_cast<int8_t>(bits));
    thrift->FieldBool(2, is_signed);
    thrift->EndStruct();
    thrift->EndStruct();
  };
  auto empty_logical = [&](int16_t id) {
    thrift->BeginStruct(10);
    thrift->BeginStruct(id);
    thrift->EndStruct();
    thrift->EndStruct();
  };
  auto timestamp = [&](int precision) {
    // ms for p <= 3 (seconds too, as ClickHouse), us up to 6, ns up to 9.
    const int16_t unit = precision <= 3 ? 1 : precision <= 6 ? 2 : 3;
    if (unit < 3) thrift->FieldI32(6, unit == 1 ? kTimestampMillis : kTimestampMicros);
    thrift->BeginStruct(10);
    thrift->BeginStruct(8);  // TIMESTAMP
    thrift->FieldBool(1, true);  // isAdjustedToUTC
    thrift->BeginStruct(2);      // unit: MILLIS, MICROS or NANOS
    thrift->BeginStruct(unit);
    thrift->EndStruct();
    thrift->EndStruct();
    thrift->EndStruct();
    thrift->EndStruct();
  };
  int bits;
  bool is_signed;
  if (IntegerLayout(type, &bits, &is_signed)) {
    // Int32 and Int64 are the physical types themselves: no annotation, as ClickHouse.
    if (!is_signed || bits < 32) integer(bits, is_signed);
    return;
  }
  switch (core::BaseOf(type)) {
    case core::TypeId::kString:
      if (!options.string_as_string) return;
      thrift->FieldI32(6, kUtf8);
      return empty_logical(1);  // STRING
    case core::TypeId::kDate:
      thrift->FieldI32(6, kDate);
      return empty_logical(6);  // DATE
    case core::TypeId::kDateTime: return timestamp(0);
    case core::TypeId::kDateTime64: return timestamp(core::PrecisionOf(type));
    case core::TypeId::kDecimal32:
    case core::TypeId::kDecimal64:
    case core::TypeId::kDecimal128:
      thrift->FieldI32(6, kDecimal);
      thrift->FieldI32(7, core::ScaleOf(type));
      thrift->FieldI32(8, core::PrecisionOf(type));
      thrift->BeginStruct(10);
      thrift->BeginStruct(5);  // DECIMAL
      thrift->FieldI32(1, core::ScaleOf(type));
      thrift->FieldI32(2, core::PrecisionOf(type));
      thrift->EndStruct();
      thrift->EndStruct();
      return;
    case core::TypeId::kUUID: return empty_logical(14);  // UUID
    default: return;  // floats, Bool, FixedString: the physical type says it all
  }
}

// Returns how many schema elements a column of `type` takes: 2 per array level, 1 leaf; a
// tuple's group and its elements'; a map's group, its key_value group, its key and value; an
// array of tuples' list group, its repeated group, its element group and the elements.
size_t SchemaElementCount(core::TypeId type) {
  if (!core::IsTuple(type)) return 2 * core::ArrayDepthOf(type) + 1;
  const core::TupleType& tuple = core::TupleTypeOf(type);
  size_t count = tuple.map ? 2 : tuple.array ? 3 : 1;
  for (core::TypeId element : tuple.elements) {
    count += SchemaElementCount(tuple.map || tuple.array ? core::ArrayElementOf(element) : element);
  }
  return count;
}

// The column of `block` a leaf reads: column `column`, then the tuple or map elements.
const core::Column& LeafColumn(const core::Block& block, size_t column,
                               const std::vector<size_t>& elements) {
  const core::Column* current = block.columns[column].get();
  for (size_t element : elements) current = &current->Element(element);
  return *current;
}

}  // namespace

absl::Status ParquetOutput::Accepts(const std::vector<std::string>& names,
                                    const std::vector<core::TypeId>& types) const {
  for (size_t c = 0; c < types.size(); ++c) {
    if (HasNothing(types[c])) {
      return core::Error(core::ErrorCode::kUnknownType,
                         absl::StrCat("Internal type 'Nothing' of column '", names[c],
                                      "' is not supported for conversion into Parquet data "
                                      "format"));
    }
  }
  return absl::OkStatus();
}

void ParquetOutput::AddLeaves(size_t column, core::TypeId type, std::vector<std::string> path,
                              std::vector<size_t> elements) {
  if (core::IsTuple(type)) {
    const core::TupleType& tuple = core::TupleTypeOf(type);
    if (tuple.map) path.push_back("key_value");
    if (tuple.array) {
      path.push_back("list");
      path.push_back("element");
    }
    for (size_t i = 0; i < tuple.elements.size(); ++i) {
      std::vector<std::string> element_path = path;
      element_path.push_back(tuple.map             ? (i == 0 ? "key" : "value")
                             : tuple.names.empty() ? std::to_string(i + 1)
                                                   : tuple.names[i]);
      std::vector<size_t> reached = elements;
      reached.push_back(i);
      if (tuple.map || tuple.array) {
        // A map's keys and values (an array of tuples' elements) are arrays of the pairs
        // (tuples): their levels are an array's; only the names in the path differ.
        Leaf leaf{column, std::move(reached), std::move(element_path),
                  ParquetLeafOf(tuple.elements[i], options_.fixed_string_as_fixed_binary)};
        for (int d = 1; d < core::ArrayDepthOf(tuple.elements[i]); ++d) {
          leaf.path.push_back("list");
          leaf.path.push_back("element");
        }
        leaves_.push_back(std::move(leaf));
      } else {
        AddLeaves(column, tuple.elements[i], std::move(element_path), std::move(reached));
      }
    }
    return;
  }
  for (int d = 0; d < core::ArrayDepthOf(type); ++d) {
    path.push_back("list");
    path.push_back("element");
  }
  leaves_.push_back(Leaf{column, std::move(elements), std::move(path),
                         ParquetLeafOf(type, options_.fixed_string_as_fixed_binary)});
}

void ParquetOutput::Append(std::string_view bytes, std::string* out) {
  out->append(bytes);
  written_ += bytes.size();
}

void ParquetOutput::Begin(const std::vector<std::string>& names,
                          const std::vector<core::TypeId>& types, std::string* out) {
  names_ = names;
  types_ = types;
  for (size_t c = 0; c < types.size(); ++c) AddLeaves(c, types[c], {names[c]}, {});
  Append(kMagic, out);
}

void ParquetOutput::Write(const core::Block& block, std::string* out) {
  batcher_.Add(block, [&](const core::Block& group) { WriteRowGroup(group, out); });
}

void ParquetOutput::End(std::string* out) {
  batcher_.Flush([&](const core::Block& group) { WriteRowGroup(group, out); });
  AppendFooter(out);
}

void ParquetOutput::WriteRowGroup(const core::Block& block, std::string* out) {
  RowGroup group;
  group.rows = static_cast<int64_t>(block.rows());
  for (const Leaf& leaf : leaves_) {
    ParquetColumnData data =
        EncodeParquetColumn(LeafColumn(block, leaf.column, leaf.elements), leaf.type);
    std::string page = std::move(data.levels);
    page.append(data.values);
    std::string packed;
    if (options_.zstd) {
      packed.resize(ZSTD_compressBound(page.size()));
      packed.resize(ZSTD_compress(packed.data(), packed.size(), page.data(), page.size(),
                                  kZstdLevel));
    }
    const std::string& stored = options_.zstd ? packed : page;
    std::string header;
    ThriftCompactWriter thrift(&header);
    thrift.FieldI32(1, kDataPage);
    thrift.FieldI32(2, static_cast<int32_t>(page.size()));
    thrift.FieldI32(3, static_cast<int32_t>(stored.size()));
    thrift.BeginStruct(5);  // data_page_header
    thrift.FieldI32(1, static_cast<int32_t>(data.num_values));
    thrift.FieldI32(2, kPlain);
    thrift.FieldI32(3, kRle);
    thrift.FieldI32(4, kRle);
    thrift.EndStruct();
    thrift.Finish();
    Chunk chunk;
    chunk.offset = static_cast<int64_t>(written_);
    chunk.num_values = data.num_values;
    chunk.uncompressed = static_cast<int64_t>(header.size() + page.size());
    chunk.compressed = static_cast<int64_t>(header.size() + stored.size());
    Append(header, out);
    Append(stored, out);
    group.chunks.push_back(chunk);
  }
  row_groups_.push_back(std::move(group));
}

namespace {

// Writes the rest of the open schema element `name` as a required group annotated `converted`
// (LIST or MAP, logical type field `logical`) of one repeated group `repeated` of `children`
// children, and that repeated group's element.
void AppendRepeatedGroup(std::string_view name, int32_t converted, int16_t logical,
                         std::string_view repeated, int32_t children,
                         ThriftCompactWriter* thrift) {
  thrift->FieldI32(3, kRequired);
  thrift->FieldBinary(4, name);
  thrift->FieldI32(5, 1);
  thrift->FieldI32(6, converted);
  thrift->BeginStruct(10);
  thrift->BeginStruct(logical);
  thrift->EndStruct();
  thrift->EndStruct();
  thrift->EndStruct();
  thrift->BeginListStruct();
  thrift->FieldI32(3, kRepeated);
  thrift->FieldBinary(4, repeated);
  thrift->FieldI32(5, children);
  thrift->EndStruct();
}

}  // namespace

void ParquetOutput::AppendSchema(std::string_view name, core::TypeId type,
                                 ThriftCompactWriter* thrift) const {
  thrift->BeginListStruct();
  if (core::IsTuple(type)) {
    const core::TupleType& tuple = core::TupleTypeOf(type);
    auto element_name = [&](size_t i) {
      return tuple.names.empty() ? std::to_string(i + 1) : tuple.names[i];
    };
    if (tuple.array) {
      // <name> (LIST) { repeated group list { required group element { <elements> } } }
      AppendRepeatedGroup(name, kList, 3, "list", 1, thrift);
      thrift->BeginListStruct();
      thrift->FieldI32(3, kRequired);
      thrift->FieldBinary(4, "element");
      thrift->FieldI32(5, static_cast<int32_t>(tuple.elements.size()));
      thrift->EndStruct();
      for (size_t i = 0; i < tuple.elements.size(); ++i) {
        AppendSchema(element_name(i), core::ArrayElementOf(tuple.elements[i]), thrift);
      }
      return;
    }
    if (tuple.map) {
      // <name> (MAP) { repeated group key_value { required <key>; <value> } }
      AppendRepeatedGroup(name, kMap, 2, "key_value", 2, thrift);
      AppendSchema("key", core::ArrayElementOf(tuple.elements[0]), thrift);
      AppendSchema("value", core::ArrayElementOf(tuple.elements[1]), thrift);
      return;
    }
    thrift->FieldI32(3, kRequired);
    thrift->FieldBinary(4, name);
    thrift->FieldI32(5, static_cast<int32_t>(tuple.elements.size()));
    thrift->EndStruct();
    for (size_t i = 0; i < tuple.elements.size(); ++i) {
      AppendSchema(element_name(i), tuple.elements[i], thrift);
    }
    return;
  }
  if (core::IsArray(type)) {
    // <name> (LIST) { repeated group list { <element> } }
    AppendRepeatedGroup(name, kList, 3, "list", 1, thrift);
    AppendSchema("element", core::ArrayElementOf(type), thrift);
    return;
  }
  const ParquetLeafType leaf = ParquetLeafOf(type, options_.fixed_string_as_fixed_binary);
  thrift->FieldI32(1, static_cast<int32_t>(leaf.physical));
  if (leaf.physical == ParquetPhysical::kFixedLenByteArray) thrift->FieldI32(2, leaf.type_length);
  thrift->FieldI32(3, core::IsNullable(type) ? kOptional : kRequired);
  thrift->FieldBinary(4, name);
  AppendAnnotations(leaf.value_type, options_, thrift);
  thrift->EndStruct();
}

void ParquetOutput::AppendFooter(std::string* out) {
  std::string footer;
  ThriftCompactWriter thrift(&footer);
  thrift.FieldI32(1, 2);  // version
  size_t elements = 1;
  for (core::TypeId type : types_) elements += SchemaElementCount(type);
  thrift.BeginList(2, ThriftCompactWriter::kStruct, elements);
  thrift.BeginListStruct();  // the root
  thrift.FieldBinary(4, "schema");
  thrift.FieldI32(5, static_cast<int32_t>(types_.size()));
  thrift.EndStruct();
  for (size_t c = 0; c < types_.size(); ++c) AppendSchema(names_[c], types_[c], &thrift);
  int64_t rows = 0;
  for (const RowGroup& group : row_groups_) rows += group.rows;
  thrift.FieldI64(3, rows);
  thrift.BeginList(4, ThriftCompactWriter::kStruct, row_groups_.size());
  for (const RowGroup& group : row_groups_) {
    thrift.BeginListStruct();
    thrift.BeginList(1, ThriftCompactWriter::kStruct, group.chunks.size());
    int64_t uncompressed = 0, compressed = 0;
    for (size_t c = 0; c < group.chunks.size(); ++c) {
      const Chunk& chunk = group.chunks[c];
      uncompressed += chunk.uncompressed;
      compressed += chunk.compressed;
      thrift.BeginListStruct();  // ColumnChunk
      thrift.FieldI64(2, chunk.offset);
      thrift.BeginStruct(3);  // ColumnMetaData
      thrift.FieldI32(1, static_cast<int32_t>(leaves_[c].type.physical));
      thrift.BeginList(2, ThriftCompactWriter::kI32, 2);
      thrift.ListI32(kPlain);
      thrift.ListI32(kRle);
      thrift.BeginList(3, ThriftCompactWriter::kBinary, leaves_[c].path.size());
      for (const std::string& part : leaves_[c].path) thrift.ListBinary(part);
      thrift.FieldI32(4, options_.zstd ? kZstd : kUncompressed);
      thrift.FieldI64(5, chunk.num_values);
      thrift.FieldI64(6, chunk.uncompressed);
      thrift.FieldI64(7, chunk.compressed);
      thrift.FieldI64(9, chunk.offset);  // data_page_offset
      thrift.EndStruct();
      thrift.EndStruct();
    }
    thrift.FieldI64(2, uncompressed);  // total_byte_size
    thrift.FieldI64(3, group.rows);
    thrift.FieldI64(5, group.chunks.empty() ? 0 : group.chunks[0].offset);  // file_offset
    thrift.FieldI64(6, compressed);
    thrift.EndStruct();
  }
  thrift.FieldBinary(6, "granite");  // created_by
  thrift.Finish();
  Append(footer, out);
  std::string tail;
  const uint32_t length = static_cast<uint32_t>(footer.size());
  tail.append(reinterpret_cast<const char*>(&length), 4);
  tail.append(kMagic);
  Append(tail, out);
}

}  // namespace granite::coordinator
