#include "coordinator/formats/native_input.h"

#include <cstring>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/compound_column.h"
#include "core/enum_type.h"
#include "core/tuple_type.h"
#include "core/value_text.h"
#include "core/error.h"
#include "core/extended_value_text.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

// Reads binary values from the front of a buffer; every read fails once the buffer ends.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  size_t pos() const { return pos_; }

  std::optional<uint64_t> VarUInt() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return std::nullopt;
      uint8_t byte = static_cast<uint8_t>(data_[pos_++]);
      value |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    return std::nullopt;
  }
  std::optional<std::string_view> Bytes(uint64_t n) {
    if (n > data_.size() - pos_) return std::nullopt;
    std::string_view out = data_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  std::optional<std::string_view> String() {
    std::optional<uint64_t> n = VarUInt();
    if (!n) return std::nullopt;
    return Bytes(*n);
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

// One column of a block, located in the buffer.
struct BlockColumn {
  int target = -1;
  std::string_view data;  // fixed-width: rows * width bytes; String: the encoded strings
  bool low_cardinality = false;  // sent as LowCardinality(T) of the table column's type T
  // Sent as an enum (Enum8(...) values) into a column the insert reads as text (an enum column:
  // exec/insert_executor.cc): the values become the names the stream's definition gives.
  std::optional<core::EnumColumnType> enum_column;
  // Sent as a Tuple or Map into a column the insert reads as text (a compound column:
  // core/compound_column.h): the values become their text.
  std::optional<core::CompoundLayout> compound;
};

// Reads the last of `rows` UInt64 end offsets of a Native Array column: its element count.
std::optional<uint64_t> ArrayElementCount(Reader& reader, uint64_t rows) {
  if (rows > (uint64_t{1} << 40)) return std::nullopt;
  std::optional<std::string_view> offsets = reader.Bytes(rows * 8);
  if (!offsets) return std::nullopt;
  uint64_t last = 0;
  if (rows > 0) std::memcpy(&last, offsets->data() + (rows - 1) * 8, 8);
  return last;
}

// Moves `reader` past `rows` rows of a Native column of `type`; false when the data ends first.
bool SkipColumn(Reader& reader, core::TypeId type, uint64_t rows) {
  // Nullable(T): the null map (a byte per row), then T's column.
  if (core::IsNullable(type) && !reader.Bytes(rows).has_value()) return false;
  if (core::IsArray(type)) {
    std::optional<uint64_t> elements = ArrayElementCount(reader, rows);
    return elements && SkipColumn(reader, core::ArrayElementOf(type), *elements);
  }
  if (core::IsString(type)) {
    for (uint64_t r = 0; r < rows; ++r) {
      if (!reader.String().has_value()) return false;
    }
    return true;
  }
  if (core::IsFixedString(type)) return reader.Bytes(rows * core::FixedStringSizeOf(type)).has_value();
  return reader.Bytes(rows * core::ValueSize(type)).has_value();
}

// Appends `rows` rows of a Native column that SkipColumn accepted to `target`.
absl::Status AppendColumn(Reader& reader, uint64_t rows, core::Column* target) {
  std::string_view nulls;
  if (target->nullable()) nulls = *reader.Bytes(rows);
  const size_t first = target->size();
  if (core::IsArray(target->type())) {
    std::string_view offsets = *reader.Bytes(rows * 8);
    core::Column& nested = target->MutableNested();
    const uint64_t base = nested.size();
    uint64_t previous = 0;
    for (uint64_t r = 0; r < rows; ++r) {
      uint64_t end;
      std::memcpy(&end, offsets.data() + r * 8, 8);
      if (end < previous) {
        return core::Error(core::ErrorCode::kIncorrectData,
                           "Cannot parse Native input: array offsets decrease");
      }
      previous = end;
      target->MutableOffsets().push_back(base + end);
    }
    RETURN_IF_ERROR(AppendColumn(reader, previous, &nested));
    target->SetSize(first + rows);
    return absl::OkStatus();
  }
  if (target->type() == core::TypeId::kString) {
    for (uint64_t r = 0; r < rows; ++r) target->AppendString(*reader.String());
  } else if (core::IsFixedString(target->type())) {
    const size_t n = core::FixedStringSizeOf(target->type());
    std::string_view values = *reader.Bytes(rows * n);
    for (uint64_t r = 0; r < rows; ++r) target->AppendString(values.substr(r * n, n));
  } else if (target->type() == core::TypeId::kUUID) {
    std::string_view values = *reader.Bytes(rows * 16);
    for (uint64_t r = 0; r < rows; ++r) {
      target->Append(core::UuidFromClickHouseBytes(values.data() + r * 16));
    }
  } else {
    const size_t width = core::ValueSize(target->type());
    std::string_view values = *reader.Bytes(rows * width);
    target->Resize(first + rows);
    if (!values.empty()) std::memcpy(target->RawData() + first * width, values.data(), values.size());
  }
  if (!nulls.empty()) std::memcpy(target->MutableNullMap() + first, nulls.data(), nulls.size());
  return absl::OkStatus();
}

// Moves `reader` past `rows` rows of a Native Tuple (its elements' columns in turn), Map (the
// UInt64 end offsets, then the keys' and the values' columns) or Array(Tuple) (the end offsets,
// then each element's column).
bool SkipCompound(Reader& reader, const core::CompoundLayout& layout, uint64_t rows) {
  if (!layout.map && !layout.array) {
    for (core::TypeId type : layout.types) {
      if (!SkipColumn(reader, type, rows)) return false;
    }
    return true;
  }
  std::optional<uint64_t> entries = ArrayElementCount(reader, rows);
  if (!entries) return false;
  for (core::TypeId type : layout.types) {
    if (!SkipColumn(reader, core::ArrayElementOf(type), *entries)) return false;
  }
  return true;
}

// Appends the text of `rows` rows of a Native Tuple or Map that SkipCompound accepted to
// `target` (String), as the insert then parses it.
absl::Status AppendCompoundText(Reader& reader, const core::CompoundLayout& layout, uint64_t rows,
                                core::Column* target) {
  absl::StatusOr<core::TypeId> type =
      layout.map     ? core::MakeMapType(core::ArrayElementOf(layout.types[0]),
                                         core::ArrayElementOf(layout.types[1]))
      : layout.array ? core::MakeArrayOfTuplesType(layout.types, layout.element_names)
                     : core::MakeTupleType(layout.types);
  RETURN_IF_ERROR(type.status());
  core::Column value(*type);
  if (layout.map || layout.array) {
    core::Column& first = value.MutableElement(0);
    RETURN_IF_ERROR(AppendColumn(reader, rows, &first));  // the offsets and the first element
    for (size_t i = 1; i < layout.types.size(); ++i) {
      core::Column& element = value.MutableElement(i);
      RETURN_IF_ERROR(AppendColumn(reader, first.Nested().size(), &element.MutableNested()));
      element.MutableOffsets() = first.Offsets();
      element.SetSize(rows);
    }
  } else {
    for (size_t i = 0; i < layout.types.size(); ++i) {
      RETURN_IF_ERROR(AppendColumn(reader, rows, &value.MutableElement(i)));
    }
  }
  value.SetSize(rows);
  core::AppendRowTexts(value, target);
  return absl::OkStatus();
}

// LowCardinality(T) columns (ClickHouse's SerializationLowCardinality, as clients send it): a
// UInt64 key version (1), then for the block UInt64 flags (bits 0-7 the index width: 0 UInt8,
// 1 UInt16, 2 UInt32, 3 UInt64; 0x200 additional keys follow), UInt64 key count, the keys as a
// column of T without Nullable (for Nullable(T), key 0 stands for NULL), UInt64 row count and
// one index per row. A block of no rows has nothing after the version.
constexpr uint64_t kLowCardinalityKeyVersion = 1;
constexpr uint64_t kHasAdditionalKeys = uint64_t{1} << 9;
constexpr uint64_t kNeedGlobalDictionary = uint64_t{1} << 8;

std::optional<uint64_t> U64(Reader& reader) {
  std::optional<std::string_view> bytes = reader.Bytes(8);
  if (!bytes) return std::nullopt;
  uint64_t value;
  std::memcpy(&value, bytes->data(), 8);
  return value;
}

enum class LowCardinalityRead { kDone, kShort, kMalformed };

// Reads a LowCardinality column of `rows` rows whose values are of type `type`; with `target`
// (a column of `type`) appends them. kShort: the data ends first; kMalformed: an unknown version
// or flag, an index past the keys, a row count that differs.
LowCardinalityRead ReadLowCardinality(Reader& reader, core::TypeId type, uint64_t rows,
                                      core::Column* target) {
  using Read = LowCardinalityRead;
  std::optional<uint64_t> version = U64(reader);
  if (!version) return Read::kShort;
  if (*version != kLowCardinalityKeyVersion) return Read::kMalformed;
  if (rows == 0) return Read::kDone;
  std::optional<uint64_t> flags = U64(reader);
  if (!flags) return Read::kShort;
  if ((*flags & kNeedGlobalDictionary) != 0 || (*flags & kHasAdditionalKeys) == 0 ||
      (*flags & 0xFF) > 3) {
    return Read::kMalformed;
  }
  const size_t width = size_t{1} << (*flags & 0xFF);
  std::optional<uint64_t> key_count = U64(reader);
  if (!key_count) return Read::kShort;
  if (*key_count > (uint64_t{1} << 40)) return Read::kMalformed;
  core::Column keys(core::RemoveNullable(type));
  if (target == nullptr) {
    if (!SkipColumn(reader, keys.type(), *key_count)) return Read::kShort;
  } else if (!AppendColumn(reader, *key_count, &keys).ok()) {
    return Read::kMalformed;
  }
  std::optional<uint64_t> index_rows = U64(reader);
  if (!index_rows) return Read::kShort;
  if (*index_rows != rows || rows > (uint64_t{1} << 40)) return Read::kMalformed;
  std::optional<std::string_view> indexes = reader.Bytes(rows * width);
  if (!indexes) return Read::kShort;
  const bool nullable = core::IsNullable(type);
  for (uint64_t r = 0; r < rows; ++r) {
    uint64_t index = 0;
    std::memcpy(&index, indexes->data() + r * width, width);  // little-endian: the low bytes
    if (index >= *key_count) return Read::kMalformed;
    if (target == nullptr) continue;
    if (nullable && index == 0) {
      target->AppendNull();
    } else {
      target->AppendFrom(keys, index);
    }
  }
  return Read::kDone;
}

// Returns T of a Native type name "LowCardinality(T)", or nullopt.
std::optional<std::string_view> LowCardinalityInner(std::string_view type) {
  constexpr std::string_view kPrefix = "LowCardinality(";
  if (type.size() <= kPrefix.size() || type.substr(0, kPrefix.size()) != kPrefix ||
      type.back() != ')') {
    return std::nullopt;
  }
  return type.substr(kPrefix.size(), type.size() - kPrefix.size() - 1);
}

absl::Status Truncated(size_t rows) {
  return core::Error(core::ErrorCode::kCannotParseInputAssertionFailed,
                     absl::StrCat("Cannot parse Native input: the block after row ", rows,
                                  " is truncated"));
}

}  // namespace

absl::StatusOr<size_t> ParseNative(std::string_view data, bool last, InputProgress* progress,
                                   InputBlockBuilder* builder) {
  size_t consumed = 0;
  while (consumed < data.size()) {
    Reader reader(data.substr(consumed));
    std::optional<uint64_t> columns = reader.VarUInt();
    std::optional<uint64_t> rows = reader.VarUInt();
    std::vector<BlockColumn> located;
    bool complete = columns.has_value() && rows.has_value();
    for (uint64_t c = 0; complete && c < *columns; ++c) {
      std::optional<std::string_view> name = reader.String();
      std::optional<std::string_view> type = name ? reader.String() : std::nullopt;
      if (!type) {
        complete = false;
        break;
      }
      BlockColumn column;
      column.target = builder->FindColumn(*name);
      if (column.target < 0) {
        return core::Error(core::ErrorCode::kIncorrectData,
                           absl::StrCat("Native input names column '", std::string(*name),
                                        "', which the table does not have"));
      }
      core::TypeId want = builder->type(column.target);
      std::optional<std::string_view> inner = LowCardinalityInner(*type);
      column.low_cardinality = inner.has_value() && *inner == core::TypeName(want);
      if (core::MentionsEnum(*type)) {
        absl::StatusOr<std::optional<core::EnumColumnType>> sent =
            core::ParseEnumColumnType(*type);
        if (sent.ok() && *sent && core::EnumTextType((*sent)->type) == want) {
          column.enum_column = **std::move(sent);
          want = column.enum_column->type;
        }
      }
      if (want == core::TypeId::kString && *type != "String") {
        absl::StatusOr<std::optional<core::CompoundLayout>> sent = core::ParseCompoundType(*type);
        if (sent.ok() && *sent) column.compound = **std::move(sent);
      }
      if (*type != core::TypeName(want) && !column.low_cardinality && !column.enum_column &&
          !column.compound) {
        return core::Error(core::ErrorCode::kTypeMismatch,
                           absl::StrCat("Native input column '", std::string(*name), "' has type ",
                                        std::string(*type), ", the table's column is ",
                                        std::string(core::TypeName(want))));
      }
      const size_t start = reader.pos();
      if (column.low_cardinality) {
        const LowCardinalityRead read = ReadLowCardinality(reader, want, *rows, nullptr);
        if (read == LowCardinalityRead::kMalformed) {
          return core::Error(core::ErrorCode::kIncorrectData,
                             absl::StrCat("Cannot parse Native input: LowCardinality column '",
                                          std::string(*name), "' is malformed"));
        }
        complete = read == LowCardinalityRead::kDone;
      } else if (column.compound) {
        complete = SkipCompound(reader, *column.compound, *rows);
      } else {
        complete = SkipColumn(reader, want, *rows);
      }
      if (!complete) break;
      column.data = data.substr(consumed + start, reader.pos() - start);
      located.push_back(column);
    }
    if (!complete) {
      if (last) return Truncated(progress->rows);
      break;
    }
    std::vector<bool> filled(builder->column_count(), false);
    for (const BlockColumn& column : located) {
      filled[column.target] = true;
      Reader values(column.data);
      if (column.low_cardinality) {
        // Located whole and checked above: this read cannot fail.
        (void)ReadLowCardinality(values, builder->type(column.target), *rows,
                                 builder->column(column.target));
        continue;
      }
      if (column.compound) {
        RETURN_IF_ERROR(AppendCompoundText(values, *column.compound, *rows,
                                           builder->column(column.target)));
        continue;
      }
      if (column.enum_column) {
        core::Column sent(column.enum_column->type);
        RETURN_IF_ERROR(AppendColumn(values, *rows, &sent));
        ASSIGN_OR_RETURN(core::ColumnPtr names,
                         core::EnumNamesOf(sent, column.enum_column->enum_type));
        builder->column(column.target)->AppendRange(*names, 0, names->size());
        continue;
      }
      RETURN_IF_ERROR(AppendColumn(values, *rows, builder->column(column.target)));
    }
    for (size_t c = 0; c < filled.size(); ++c) {
      if (filled[c]) continue;
      for (uint64_t r = 0; r < *rows; ++r) builder->AppendDefault(c);
    }
    progress->rows += *rows;
    consumed += reader.pos();
  }
  return consumed;
}

}  // namespace granite::coordinator
