#include "coordinator/formats/parquet_schema.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

using Element = ParquetSchemaElement;

absl::Status Unsupported(std::string_view field, std::string_view what) {
  return core::Error(core::ErrorCode::kUnknownType,
                     absl::StrCat("Unsupported Parquet type '", std::string(what),
                                  "' of column '", std::string(field), "' in Parquet input"));
}

// The schema as a tree: children of each element, by index.
struct Tree {
  std::vector<std::vector<size_t>> children;
  std::vector<size_t> leaves;  // leaf count under each element
};

absl::StatusOr<size_t> Build(const std::vector<Element>& schema, size_t at, int depth,
                             Tree* tree) {
  if (depth > 64) {
    return core::Error(core::ErrorCode::kIncorrectData, "Parquet schema nests too deep");
  }
  const Element& element = schema[at];
  size_t next = at + 1;
  if (element.num_children <= 0) {
    tree->leaves[at] = element.physical >= 0 ? 1 : 0;  // an empty group has no chunk
    return next;
  }
  for (int32_t c = 0; c < element.num_children; ++c) {
    if (next >= schema.size()) {
      return core::Error(core::ErrorCode::kIncorrectData,
                         "Parquet schema has fewer elements than its child counts say");
    }
    tree->children[at].push_back(next);
    const size_t child = next;
    ASSIGN_OR_RETURN(next, Build(schema, child, depth + 1, tree));
    tree->leaves[at] += tree->leaves[child];
  }
  return next;
}

// What a group granite cannot read is called in errors.
const char* GroupKind(const Element& e) {
  return e.converted == parquet::kMap || e.logical == parquet::kLogicalMap ? "MAP" : "STRUCT";
}

bool IsList(const Element& e) {
  return e.converted == parquet::kList || e.logical == parquet::kLogicalList;
}

bool IsDecimal(const Element& e) {
  return e.logical == parquet::kLogicalDecimal || e.converted == parquet::kDecimal;
}

absl::Status DecimalType(const Element& e, ParquetLeaf* leaf) {
  if (e.precision < 1 || e.precision > core::kMaxDecimalPrecision || e.scale < 0 ||
      e.scale > e.precision) {
    return Unsupported(leaf->name, absl::StrCat("DECIMAL(", e.precision, ", ", e.scale, ")"));
  }
  leaf->read_type = core::MakeDecimal(e.precision, e.scale);
  return absl::OkStatus();
}

// The integer type an INT(bits, signed) annotation or an INT_* / UINT_* converted type names;
// false when there is none.
bool IntegerType(const Element& e, core::TypeId* type) {
  int bits = 0;
  bool is_signed = true;
  if (e.logical == parquet::kLogicalInteger) {
    bits = e.integer_bits;
    is_signed = e.integer_signed;
  } else if (e.converted >= parquet::kUInt8 && e.converted <= parquet::kInt64C) {
    static constexpr int kBits[] = {8, 16, 32, 64, 8, 16, 32, 64};
    bits = kBits[e.converted - parquet::kUInt8];
    is_signed = e.converted >= parquet::kInt8;
  }
  using core::TypeId;
  switch (bits) {
    case 8: *type = is_signed ? TypeId::kInt8 : TypeId::kUInt8; return true;
    case 16: *type = is_signed ? TypeId::kInt16 : TypeId::kUInt16; return true;
    case 32: *type = is_signed ? TypeId::kInt32 : TypeId::kUInt32; return true;
    case 64: *type = is_signed ? TypeId::kInt64 : TypeId::kUInt64; return true;
    default: return false;
  }
}

// Sets the read type and conversion of a primitive leaf.
absl::Status ReadTypeOf(const Element& e, ParquetLeaf* leaf) {
  using core::TypeId;
  leaf->physical = e.physical;
  leaf->type_length = e.type_length;
  switch (e.physical) {
    case parquet::kBoolean:
      leaf->read_type = TypeId::kBool;
      leaf->conversion = ParquetConversion::kBool;
      return absl::OkStatus();
    case parquet::kInt32:
    case parquet::kInt64: {
      const bool wide = e.physical == parquet::kInt64;
      leaf->conversion = wide ? ParquetConversion::kInt64To : ParquetConversion::kInt32To;
      if (IsDecimal(e)) return DecimalType(e, leaf);
      if (!wide && (e.logical == parquet::kLogicalDate || e.converted == parquet::kDate)) {
        leaf->read_type = TypeId::kDate;
        leaf->conversion = ParquetConversion::kDate;
        return absl::OkStatus();
      }
      int unit = 0;
      if (e.logical == parquet::kLogicalTimestamp) unit = e.timestamp_unit;
      if (e.converted == parquet::kTimestampMillis) unit = 1;
      if (e.converted == parquet::kTimestampMicros) unit = 2;
      if (wide && unit >= 1 && unit <= 3) {
        leaf->read_type = core::MakeDateTime64(3 * unit);
        leaf->conversion = ParquetConversion::kCopy;
        return absl::OkStatus();
      }
      if (!IntegerType(e, &leaf->read_type)) {
        leaf->read_type = wide ? TypeId::kInt64 : TypeId::kInt32;
      }
      if (core::ValueSize(leaf->read_type) == (wide ? 8u : 4u)) {
        leaf->conversion = ParquetConversion::kCopy;
      }
      return absl::OkStatus();
    }
    case parquet::kInt96:
      leaf->read_type = core::MakeDateTime64(9);
      leaf->conversion = ParquetConversion::kInt96;
      return absl::OkStatus();
    case parquet::kFloat:
    case parquet::kDouble:
      leaf->read_type = e.physical == parquet::kFloat ? TypeId::kFloat32 : TypeId::kFloat64;
      leaf->conversion = ParquetConversion::kCopy;
      return absl::OkStatus();
    case parquet::kByteArray:
      if (IsDecimal(e)) {
        leaf->conversion = ParquetConversion::kBigEndianDecimal;
        return DecimalType(e, leaf);
      }
      leaf->read_type = TypeId::kString;
      leaf->conversion = ParquetConversion::kString;
      return absl::OkStatus();
    case parquet::kFixedLenByteArray:
      if (e.type_length <= 0 || static_cast<uint32_t>(e.type_length) > core::kMaxFixedStringSize) {
        return Unsupported(leaf->name, absl::StrCat("FIXED_LEN_BYTE_ARRAY(", e.type_length, ")"));
      }
      if (IsDecimal(e)) {
        leaf->conversion = ParquetConversion::kBigEndianDecimal;
        return DecimalType(e, leaf);
      }
      if (e.logical == parquet::kLogicalUuid && e.type_length == 16) {
        leaf->read_type = TypeId::kUUID;
        leaf->conversion = ParquetConversion::kUuid;
        return absl::OkStatus();
      }
      if (e.logical == parquet::kLogicalFloat16 && e.type_length == 2) {
        leaf->read_type = TypeId::kFloat32;
        leaf->conversion = ParquetConversion::kFloat16;
        return absl::OkStatus();
      }
      leaf->read_type = core::MakeFixedString(static_cast<uint32_t>(e.type_length));
      leaf->conversion = ParquetConversion::kString;
      return absl::OkStatus();
    default:
      return Unsupported(leaf->name, absl::StrCat("physical type ", e.physical));
  }
}

// Describes the field at `at` (its own repetition applied to the levels) as the element of the
// arrays recorded in *leaf so far.
absl::Status Describe(const std::vector<Element>& schema, const Tree& tree, size_t at,
                      ParquetLeaf* leaf) {
  const Element& e = schema[at];
  if (e.repetition == parquet::kOptional) ++leaf->max_definition;
  if (e.repetition == parquet::kRepeated) {  // a bare repeated field: an array of it
    ++leaf->max_definition;
    ++leaf->max_repetition;
    leaf->element_definition.push_back(leaf->max_definition);
  }
  if (leaf->max_repetition > core::kMaxArrayDepth) {
    return Unsupported(leaf->name, "arrays nested deeper than 7");
  }
  if (e.num_children <= 0) {
    leaf->element_nullable = e.repetition == parquet::kOptional;
    return ReadTypeOf(e, leaf);
  }
  if (e.repetition == parquet::kRepeated || !IsList(e) || tree.children[at].size() != 1) {
    return Unsupported(leaf->name, GroupKind(e));
  }
  // LIST: one repeated child. Its own child is the element, unless the child is a primitive (the
  // element itself) or a group named "array" / "<list>_tuple" (older writers' element records).
  const size_t repeated = tree.children[at][0];
  const Element& r = schema[repeated];
  if (r.repetition != parquet::kRepeated) return Unsupported(leaf->name, "LIST without repeated");
  if (r.num_children <= 0) return Describe(schema, tree, repeated, leaf);
  if (tree.children[repeated].size() != 1 || r.name == "array" || r.name == e.name + "_tuple") {
    return Unsupported(leaf->name, "LIST of STRUCT");
  }
  ++leaf->max_definition;
  ++leaf->max_repetition;
  leaf->element_definition.push_back(leaf->max_definition);
  return Describe(schema, tree, tree.children[repeated][0], leaf);
}

bool IsMap(const Element& e) {
  return e.converted == parquet::kMap || e.logical == parquet::kLogicalMap;
}

// Adds each of `fields` (one leaf each) to *leaf as a part: `levels` gives the levels the
// enclosing groups contribute, each field's own repetition is added (Describe); chunks follow
// leaf->chunk in order.
absl::Status DescribeParts(const std::vector<Element>& schema, const Tree& tree,
                           const std::vector<size_t>& fields, const ParquetLeaf& levels,
                           ParquetLeaf* leaf) {
  size_t chunk = leaf->chunk;
  for (size_t field : fields) {
    if (tree.leaves[field] != 1) return Unsupported(leaf->name, "STRUCT or MAP nested in one");
    ParquetLeaf part = levels;
    part.name = leaf->name;
    part.chunk = chunk++;
    RETURN_IF_ERROR(Describe(schema, tree, field, &part));
    leaf->part_names.push_back(schema[field].name);
    leaf->parts.push_back(std::move(part));
  }
  return absl::OkStatus();
}

// Describes a STRUCT or MAP group at `at` as the parts of *leaf (chunks from
// leaf->chunk on): a struct's fields, each one leaf; a map's key and value under its repeated
// key_value group, each an array of the entries.
absl::Status DescribeCompound(const std::vector<Element>& schema, const Tree& tree, size_t at,
                              ParquetLeaf* leaf) {
  const Element& e = schema[at];
  if (e.repetition == parquet::kRepeated || IsList(e)) {
    return Unsupported(leaf->name, "LIST of STRUCT");
  }
  leaf->map = IsMap(e);
  std::vector<size_t> fields = tree.children[at];
  // An OPTIONAL group (pyarrow's default) takes a definition level: a NULL map reads as {}, a
  // NULL struct as its fields' defaults.
  const int optional = e.repetition == parquet::kOptional ? 1 : 0;
  int definition = optional, repetition = 0;
  if (leaf->map) {
    if (fields.size() != 1 || schema[fields[0]].repetition != parquet::kRepeated ||
        tree.children[fields[0]].size() != 2) {
      return Unsupported(leaf->name, "MAP without a repeated key_value group");
    }
    definition = optional + 1;
    repetition = 1;
    fields = tree.children[fields[0]];
  }
  ParquetLeaf part;
  part.max_definition = definition;
  part.max_repetition = repetition;
  if (repetition > 0) part.element_definition.push_back(definition);
  part.null_struct_default = optional != 0 && !leaf->map;
  return DescribeParts(schema, tree, fields, part, leaf);
}

// The struct group of a LIST of STRUCT at `at` (`<name> (LIST) { repeated group list { required
// group element { fields } } }`, or an older writer's `repeated group array { fields }`), or
// none for any other field.
std::optional<size_t> ListedStruct(const std::vector<Element>& schema, const Tree& tree,
                                   size_t at) {
  const Element& e = schema[at];
  if (!IsList(e) || tree.children[at].size() != 1) return std::nullopt;
  const size_t repeated = tree.children[at][0];
  if (schema[repeated].repetition != parquet::kRepeated || tree.children[repeated].empty()) {
    return std::nullopt;
  }
  if (tree.children[repeated].size() > 1) return repeated;  // the repeated group is the struct
  const size_t element = tree.children[repeated][0];
  if (schema[element].num_children <= 0 || IsList(schema[element]) || IsMap(schema[element])) {
    return std::nullopt;
  }
  return element;
}

// Describes a LIST of STRUCTs at `at`, whose struct group is `group`: each field one part, read
// as an array of the list's structs (an Array(Tuple(...))).
absl::Status DescribeListedStructs(const std::vector<Element>& schema, const Tree& tree,
                                   size_t at, size_t group, ParquetLeaf* leaf) {
  // An OPTIONAL list (NULL reads as []) and an OPTIONAL struct in it (its fields' defaults)
  // each take a definition level.
  const int list_definition = (schema[at].repetition == parquet::kOptional ? 1 : 0) + 1;
  const bool optional_struct = schema[group].repetition == parquet::kOptional;
  leaf->array = true;
  ParquetLeaf part;
  part.max_definition = list_definition + (optional_struct ? 1 : 0);
  part.max_repetition = 1;
  part.element_definition.push_back(list_definition);
  part.null_struct_default = optional_struct;
  return DescribeParts(schema, tree, tree.children[group], part, leaf);
}

}  // namespace

absl::StatusOr<std::vector<ParquetLeaf>> DescribeParquetColumns(const ParquetFileMetaData& meta) {
  const std::vector<Element>& schema = meta.schema;
  Tree tree;
  tree.children.resize(schema.size());
  tree.leaves.assign(schema.size(), 0);
  ASSIGN_OR_RETURN(size_t end, Build(schema, 0, 0, &tree));
  if (end != schema.size()) {
    return core::Error(core::ErrorCode::kIncorrectData,
                       "Parquet schema has more elements than its child counts say");
  }
  std::vector<ParquetLeaf> leaves;
  size_t chunk = 0;
  for (size_t field : tree.children[0]) {
    ParquetLeaf& leaf = leaves.emplace_back();
    leaf.name = schema[field].name;
    leaf.chunk = chunk;
    const Element& e = schema[field];
    if (e.num_children > 0 && !IsList(e) && e.repetition != parquet::kRepeated) {
      leaf.unsupported = DescribeCompound(schema, tree, field, &leaf);
    } else if (std::optional<size_t> group = ListedStruct(schema, tree, field)) {
      leaf.unsupported = DescribeListedStructs(schema, tree, field, *group, &leaf);
    } else if (tree.leaves[field] != 1) {
      leaf.unsupported = Unsupported(leaf.name, GroupKind(schema[field]));
    } else {
      leaf.unsupported = Describe(schema, tree, field, &leaf);
    }
    chunk += tree.leaves[field];
  }
  return leaves;
}

}  // namespace granite::coordinator
