#include "coordinator/formats/arrow_input.h"

#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "coordinator/formats/arrow_batch_decoder.h"
#include "coordinator/formats/arrow_types.h"
#include "core/error.h"
#include "core/status_macros.h"

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

// Returns the layout of an Arrow field (arrow_input.h).
absl::StatusOr<ArrowColumnLayout> LayoutOf(const fb::Field& field, std::string_view column) {
  ArrowColumnLayout layout;
  ASSIGN_OR_RETURN(layout.type, GraniteTypeOfArrowField(field, column));
  const fb::Type kind = field.type_type();
  layout.large_offsets = kind == fb::Type_LargeList || kind == fb::Type_LargeUtf8 ||
                         kind == fb::Type_LargeBinary;
  if (core::IsArray(layout.type)) {
    ASSIGN_OR_RETURN(ArrowColumnLayout element, LayoutOf(*field.children()->Get(0), column));
    layout.element.push_back(std::move(element));
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

absl::Status ReadBatch(const fb::RecordBatch& batch, std::string_view body,
                       const ArrowInputState& state, InputProgress* progress,
                       InputBlockBuilder* builder) {
  if (batch.length() < 0) return Bad("a record batch has a negative length");
  const size_t rows = static_cast<size_t>(batch.length());
  ArrowBatchDecoder decoder(batch, body);
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
    RETURN_IF_ERROR(builder->AppendConverted(target, std::move(column)));
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
        return core::Error(core::ErrorCode::kUnknownType,
                           "Unsupported Arrow type 'Dictionary' in Arrow input");
      default:
        return Bad(absl::StrCat("unexpected message ",
                                fb::EnumNameMessageHeader(message->header_type())));
    }
    consumed += size;
  }
  return consumed;
}

}  // namespace granite::coordinator
