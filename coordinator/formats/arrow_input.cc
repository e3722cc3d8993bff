#include "coordinator/formats/arrow_input.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "coordinator/formats/arrow_batch_decoder.h"
#include "coordinator/formats/arrow_types.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "core/tuple_type.h"

namespace granite::coordinator {
namespace {

namespace fb = arrow_fb;

constexpr std::string_view kFileMagic = "ARROW1";
constexpr uint32_t kContinuation = 0xFFFFFFFFu;
// Bounds one message's metadata and body, so a corrupt length cannot make the insert wait for
// (or allocate) terabytes.
constexpr uint64_t kMaxMetadataBytes = uint64_t{1} << 30;
constexpr uint64_t kMaxBodyBytes = uint64_t{1} << 36;

absl::Status Bad(std::string_view why) {
  return core::Error(core::ErrorCode::kIncorrectData,
                     absl::StrCat("Cannot read Arrow input: ", std::string(why)));
}

absl::Status Truncated(size_t rows) {
  return core::Error(core::ErrorCode::kCannotParseInputAssertionFailed,
                     absl::StrCat("Cannot read Arrow input: the message after row ", rows,
                                  " is truncated"));
}

// Returns the integer type of a dictionary's indexes (Arrow's default: int32).
absl::StatusOr<core::TypeId> IndexTypeOf(const fb::DictionaryEncoding& encoding) {
  const fb::Int* index = encoding.index_type();
  if (index == nullptr) return core::TypeId::kInt32;
  const bool s = index->is_signed();
  switch (index->bit_width()) {
    case 8: return s ? core::TypeId::kInt8 : core::TypeId::kUInt8;
    case 16: return s ? core::TypeId::kInt16 : core::TypeId::kUInt16;
    case 32: return s ? core::TypeId::kInt32 : core::TypeId::kUInt32;
    case 64: return s ? core::TypeId::kInt64 : core::TypeId::kUInt64;
    default: return Bad("a dictionary's index type is not an 8 to 64-bit integer");
  }
}

// Returns the layout of an Arrow field (arrow_input.h).
absl::StatusOr<ArrowColumnLayout> LayoutOf(const fb::Field& field, std::string_view column) {
  ArrowColumnLayout layout;
  ASSIGN_OR_RETURN(layout.type, GraniteTypeOfArrowField(field, column));
  if (const fb::DictionaryEncoding* encoding = field.dictionary(); encoding != nullptr) {
    // The record batches hold indexes; the values come in DictionaryBatch messages.
    if (core::IsArray(layout.type)) {
      return core::Error(core::ErrorCode::kUnknownType,
                         absl::StrCat("Unsupported Arrow type 'Dictionary' of lists in column '",
                                      std::string(column), "'"));
    }
    ArrowColumnLayout values;
    values.type = layout.type;
    const fb::Type kind = field.type_type();
    values.large_offsets = kind == fb::Type_LargeUtf8 || kind == fb::Type_LargeBinary;
    layout.element.push_back(std::move(values));
    layout.dictionary_id = encoding->id();
    ASSIGN_OR_RETURN(layout.index_type, IndexTypeOf(*encoding));
    layout.type = core::WithNullable(layout.index_type, field.nullable());
    return layout;
  }
  const fb::Type kind = field.type_type();
  layout.large_offsets = kind == fb::Type_LargeList || kind == fb::Type_LargeUtf8 ||
                         kind == fb::Type_LargeBinary;
  // The type says which children the field has; a crafted field's kind need not agree with it.
  const bool has_child = field.children() != nullptr && field.children()->size() > 0;
  if ((core::IsArray(layout.type) || core::IsArrayOfTuples(layout.type) ||
       kind == fb::Type_Map) && !has_child) {
    return Bad(absl::StrCat("a field of column '", std::string(column), "' has no child"));
  }
  if (core::IsArray(layout.type)) {
    ASSIGN_OR_RETURN(ArrowColumnLayout element, LayoutOf(*field.children()->Get(0), column));
    layout.element.push_back(std::move(element));
  }
  if (core::IsArrayOfTuples(layout.type)) {  // a list of structs: the struct's layout
    ASSIGN_OR_RETURN(ArrowColumnLayout element, LayoutOf(*field.children()->Get(0), column));
    layout.element.push_back(std::move(element));
    return layout;
  }
  // A struct's children; a map's key and value (the children of its entries struct).
  const fb::Field* parent = kind == fb::Type_Map ? field.children()->Get(0) : &field;
  if (core::IsTuple(layout.type)) {
    if (parent->children() == nullptr) {
      return Bad(absl::StrCat("a struct of column '", std::string(column), "' has no children"));
    }
    for (const fb::Field* child : *parent->children()) {
      ASSIGN_OR_RETURN(ArrowColumnLayout element, LayoutOf(*child, column));
      layout.element.push_back(std::move(element));
    }
  }
  return layout;
}

absl::Status ReadSchema(const fb::Schema& schema, ArrowInputState* state) {
  if (schema.endianness() != fb::Endianness_Little) return Bad("big-endian data");
  state->names.clear();
  state->columns.clear();
  if (schema.fields() != nullptr) {
    for (const fb::Field* field : *schema.fields()) {
      std::string name = field->name() != nullptr ? field->name()->str() : std::string();
      ASSIGN_OR_RETURN(ArrowColumnLayout layout, LayoutOf(*field, name));
      state->names.push_back(std::move(name));
      state->columns.push_back(std::move(layout));
    }
  }
  state->schema_read = true;
  return absl::OkStatus();
}

// Returns the index at `row` of an integer column, or -1 for NULL.
int64_t IndexAt(const core::Column& indexes, size_t row) {
  if (indexes.IsNullAt(row)) return -1;
  switch (core::BaseOf(indexes.type())) {
    case core::TypeId::kInt8: return indexes.Get<int8_t>(row);
    case core::TypeId::kUInt8: return indexes.Get<uint8_t>(row);
    case core::TypeId::kInt16: return indexes.Get<int16_t>(row);
    case core::TypeId::kUInt16: return indexes.Get<uint16_t>(row);
    case core::TypeId::kInt32: return indexes.Get<int32_t>(row);
    case core::TypeId::kUInt32: return indexes.Get<uint32_t>(row);
    default: {
      const uint64_t raw = indexes.Get<uint64_t>(row);
      return raw > INT64_MAX ? INT64_MAX : static_cast<int64_t>(raw);
    }
  }
}

// Replaces dictionary indexes by the dictionary's values (a NULL index is NULL).
absl::StatusOr<core::Column> LookUpDictionary(const core::Column& indexes,
                                              const ArrowColumnLayout& layout,
                                              const ArrowInputState& state,
                                              std::string_view name) {
  auto found = state.dictionaries.find(layout.dictionary_id);
  if (found == state.dictionaries.end()) {
    return Bad(absl::StrCat("column '", std::string(name), "' uses dictionary ",
                            layout.dictionary_id, " before it was sent"));
  }
  const core::Column& dictionary = found->second;
  const size_t rows = indexes.size();
  std::vector<uint32_t> take(rows, 0);
  std::vector<uint8_t> nulls(rows, 0);
  bool any_null = false;
  for (size_t r = 0; r < rows; ++r) {
    const int64_t index = IndexAt(indexes, r);
    if (index < 0 && indexes.IsNullAt(r)) {
      nulls[r] = 1;
      any_null = true;
      continue;
    }
    if (index < 0 || static_cast<uint64_t>(index) >= dictionary.size()) {
      return Bad(absl::StrCat("column '", std::string(name), "' has index ", index,
                              " into a dictionary of ", dictionary.size()));
    }
    take[r] = static_cast<uint32_t>(index);
  }
  if (any_null && dictionary.empty()) {  // every row is NULL: any value of the type will do
    core::Column values(core::MakeNullable(dictionary.type()));
    for (size_t r = 0; r < rows; ++r) values.AppendNull();
    return values;
  }
  core::Column values = dictionary.Take(take.data(), rows);
  if (any_null) {
    if (!values.nullable()) values.MakeNullable();
    uint8_t* map = values.MutableNullMap();
    for (size_t r = 0; r < rows; ++r) map[r] |= nulls[r];
  }
  return values;
}

absl::Status ReadDictionary(const fb::DictionaryBatch& batch, std::string_view body,
                            ArrowInputState* state) {
  const ArrowColumnLayout* layout = nullptr;
  for (const ArrowColumnLayout& column : state->columns) {
    // A column without a dictionary has dictionary_id -1 and no element layout.
    if (column.dictionary_id == batch.id() && !column.element.empty()) layout = &column;
  }
  if (layout == nullptr) {
    return Bad(absl::StrCat("dictionary ", batch.id(), " is not in the schema"));
  }
  if (batch.data() == nullptr) return Bad("a dictionary batch has no data");
  ArrowBatchDecoder decoder(*batch.data(), body);
  ASSIGN_OR_RETURN(core::Column values, decoder.Next(layout->element[0]));
  auto [it, inserted] = state->dictionaries.try_emplace(batch.id(), layout->element[0].type);
  if (!batch.is_delta() || inserted) {
    it->second = std::move(values);
  } else {
    it->second.AppendRange(values, 0, values.size());
  }
  return absl::OkStatus();
}

absl::Status ReadBatch(const fb::RecordBatch& batch, std::string_view body,
                       const ArrowInputState& state, InputProgress* progress,
                       InputBlockBuilder* builder) {
  if (batch.length() < 0) return Bad("a record batch has a negative length");
  const size_t rows = static_cast<size_t>(batch.length());
  ArrowBatchDecoder decoder(batch, body);
  RETURN_IF_ERROR(decoder.CheckRows(batch.length()));  // filled as omitted columns, row by row
  std::vector<bool> filled(builder->column_count(), false);
  for (size_t c = 0; c < state.columns.size(); ++c) {
    ASSIGN_OR_RETURN(core::Column column, decoder.Next(state.columns[c]));
    if (column.size() != rows) {
      return Bad(absl::StrCat("column '", state.names[c], "' has ", column.size(),
                              " rows, its record batch ", rows));
    }
    const int target = builder->FindColumn(state.names[c]);
    if (target < 0 || filled[target]) continue;  // a column the table lacks is skipped
    filled[target] = true;
    if (state.columns[c].dictionary_id >= 0) {
      ASSIGN_OR_RETURN(column, LookUpDictionary(column, state.columns[c], state, state.names[c]));
    }
    RETURN_IF_ERROR(builder->AppendConverted(target, std::move(column)));
  }
  if (std::find(filled.begin(), filled.end(), false) != filled.end()) {
    RETURN_IF_ERROR(decoder.CheckDecodedRows(batch.length()));
  }
  for (size_t c = 0; c < filled.size(); ++c) {
    if (filled[c]) continue;
    for (size_t r = 0; r < rows; ++r) builder->AppendOmitted(c);
  }
  progress->rows += rows;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<size_t> ParseArrow(std::string_view data, bool last, ArrowInputState* state,
                                  InputProgress* progress, InputBlockBuilder* builder) {
  size_t consumed = 0;
  if (!state->started) {
    if (data.size() < 8 && !last) return 0;  // the file magic and its padding, or not
    state->started = true;
    if (data.substr(0, kFileMagic.size()) == kFileMagic) {
      consumed = std::min<size_t>(8, data.size());
    }
  }
  while (consumed < data.size()) {
    if (state->ended) return data.size();  // a file's footer, or bytes after the stream
    std::string_view rest = data.substr(consumed);
    // A message: 0xFFFFFFFF, the metadata length, the metadata, the body. (Before Arrow 0.15 the
    // marker was absent: the length came first.)
    size_t prefix = 4;
    uint32_t word = 0;
    if (rest.size() >= 4) std::memcpy(&word, rest.data(), 4);
    uint32_t metadata_length = word;
    if (word == kContinuation) {
      prefix = 8;
      if (rest.size() >= 8) std::memcpy(&metadata_length, rest.data() + 4, 4);
    }
    if (rest.size() < prefix) {
      if (last) return Truncated(progress->rows);
      break;
    }
    if (metadata_length == 0) {  // end of stream
      state->ended = true;
      consumed += prefix;
      continue;
    }
    if (metadata_length > kMaxMetadataBytes) return Bad("a message's metadata is too long");
    if (rest.size() < prefix + metadata_length) {
      if (last) return Truncated(progress->rows);
      break;
    }
    const auto* metadata = reinterpret_cast<const uint8_t*>(rest.data() + prefix);
    // Flatbuffers reads its tables in place, which needs 8-byte alignment: a stream whose
    // messages are not aligned (the format pads them; a crafted one need not) reads from a copy.
    std::vector<uint64_t> aligned;
    if (reinterpret_cast<uintptr_t>(metadata) % alignof(uint64_t) != 0) {
      aligned.resize((metadata_length + 7) / 8);
      std::memcpy(aligned.data(), metadata, metadata_length);
      metadata = reinterpret_cast<const uint8_t*>(aligned.data());
    }
    flatbuffers::Verifier verifier(metadata, metadata_length);
    if (!verifier.VerifyBuffer<fb::Message>(nullptr)) return Bad("malformed message metadata");
    const fb::Message* message = flatbuffers::GetRoot<fb::Message>(metadata);
    const int64_t body_length = message->body_length();
    if (body_length < 0 || static_cast<uint64_t>(body_length) > kMaxBodyBytes) {
      return Bad("a message's body length is out of range");
    }
    const size_t size = prefix + metadata_length + static_cast<size_t>(body_length);
    if (rest.size() < size) {
      if (last) return Truncated(progress->rows);
      break;
    }
    std::string_view body = rest.substr(prefix + metadata_length, body_length);
    // The union's type may name a header the message does not hold.
    if (message->header() == nullptr) return Bad("a message without its header");
    switch (message->header_type()) {
      case fb::MessageHeader_Schema:
        RETURN_IF_ERROR(ReadSchema(*message->header_as_Schema(), state));
        break;
      case fb::MessageHeader_RecordBatch:
        if (!state->schema_read) return Bad("a record batch before the schema");
        RETURN_IF_ERROR(ReadBatch(*message->header_as_RecordBatch(), body, *state, progress,
                                  builder));
        break;
      case fb::MessageHeader_DictionaryBatch:
        if (!state->schema_read) return Bad("a dictionary batch before the schema");
        RETURN_IF_ERROR(ReadDictionary(*message->header_as_DictionaryBatch(), body, state));
        break;
      default:
        return Bad(absl::StrCat("unexpected message ",
                                fb::EnumNameMessageHeader(message->header_type())));
    }
    consumed += size;
  }
  return consumed;
}

}  // namespace granite::coordinator
