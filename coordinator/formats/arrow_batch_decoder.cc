#include "coordinator/formats/arrow_batch_decoder.h"

#include "core/tuple_type.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "coordinator/formats/arrow_compression.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

namespace fb = arrow_fb;

absl::Status Bad(std::string_view why) {
  return core::Error(core::ErrorCode::kIncorrectData,
                     absl::StrCat("Cannot read Arrow input: ", std::string(why)));
}

bool Bit(std::string_view bits, size_t i) {
  return (static_cast<uint8_t>(bits[i / 8]) >> (i % 8)) & 1;
}

// Copies `rows` fixed-width Arrow values of type From into `column` (physical type To),
// converted by `convert`.
template <typename From, typename To, typename Convert>
absl::Status CopyValues(std::string_view values, size_t rows, core::Column* column,
                        Convert convert) {
  if (values.size() / sizeof(From) < rows) return Bad("a value buffer is too short");
  column->Resize(rows);
  To* out = column->Data<To>();
  for (size_t i = 0; i < rows; ++i) {
    From value;
    std::memcpy(&value, values.data() + i * sizeof(From), sizeof(From));
    out[i] = convert(value);
  }
  return absl::OkStatus();
}

// Returns a copy of a struct of a flatbuffers vector. The verifier checks a vector's 4-byte
// alignment only, and FieldNode and Buffer need 8: a crafted message may misalign them.
template <typename T>
T CopyOf(const T* stored) {
  T value;
  std::memcpy(&value, stored, sizeof(T));
  return value;
}

template <typename T>
absl::Status CopySame(std::string_view values, size_t rows, core::Column* column) {
  return CopyValues<T, T>(values, rows, column, [](T v) { return v; });
}

}  // namespace

ArrowBatchDecoder::ArrowBatchDecoder(const fb::RecordBatch& batch, std::string_view body)
    : batch_(batch), body_(body) {
  if (batch.compression() != nullptr) compression_ = batch.compression()->codec();
  // The bytes the buffers hold (a compressed buffer: the length it claims, which decompressing
  // later checks exactly). Every value of a non-null node takes at least one bit of them.
  uint64_t bytes = 0;
  if (batch.buffers() != nullptr) {
    for (const fb::Buffer* stored : *batch.buffers()) {
      const fb::Buffer buffer = CopyOf(stored);
      const int64_t offset = buffer.offset(), length = buffer.length();
      if (offset < 0 || length < 0 || static_cast<uint64_t>(offset) > body.size() ||
          static_cast<uint64_t>(length) > body.size() - offset) {
        continue;  // NextBuffer refuses it when it is reached
      }
      int64_t claimed = length;
      if (compression_ >= 0 && length >= 8) {
        std::memcpy(&claimed, body.data() + offset, 8);
        if (claimed == -1) claimed = length - 8;
      }
      bytes += static_cast<uint64_t>(std::clamp<int64_t>(claimed, 0, int64_t{1} << 40));
    }
  }
  max_rows_ = std::max<uint64_t>(kRowsWithoutBytes, bytes * 8);
}

absl::Status ArrowBatchDecoder::CheckRows(int64_t rows) const {
  if (rows < 0 || static_cast<uint64_t>(rows) > max_rows_) {
    return Bad(absl::StrCat("a record batch claims ", rows, " rows, more than its ", max_rows_ / 8,
                            " bytes of buffers hold"));
  }
  return absl::OkStatus();
}

absl::Status ArrowBatchDecoder::CheckDecodedRows(int64_t rows) const {
  uint64_t bytes = decoded_bytes_;
  for (size_t i = next_buffer_; batch_.buffers() != nullptr && i < batch_.buffers()->size(); ++i) {
    const fb::Buffer buffer = CopyOf(batch_.buffers()->Get(i));
    const int64_t offset = buffer.offset(), length = buffer.length();
    if (offset >= 0 && length >= 0 && static_cast<uint64_t>(offset) <= body_.size() &&
        static_cast<uint64_t>(length) <= body_.size() - offset) {
      bytes += static_cast<uint64_t>(length);
    }
  }
  const uint64_t max_rows = std::max<uint64_t>(kRowsWithoutBytes, bytes * 8);
  if (rows < 0 || static_cast<uint64_t>(rows) > max_rows) {
    return Bad(absl::StrCat("a record batch claims ", rows, " rows, more than its ", max_rows / 8,
                            " bytes of buffers hold"));
  }
  return absl::OkStatus();
}

absl::StatusOr<fb::FieldNode> ArrowBatchDecoder::NextNode() {
  if (batch_.nodes() == nullptr || next_node_ >= batch_.nodes()->size()) {
    return Bad("the record batch has fewer field nodes than the schema needs");
  }
  const fb::FieldNode node = CopyOf(batch_.nodes()->Get(next_node_++));
  if (node.length() < 0 || node.null_count() < 0 || node.null_count() > node.length() ||
      node.length() > (int64_t{1} << 40)) {
    return Bad("a field node has a bad length or null count");
  }
  RETURN_IF_ERROR(CheckRows(node.length()));
  return node;
}

absl::StatusOr<std::string_view> ArrowBatchDecoder::NextBuffer() {
  if (batch_.buffers() == nullptr || next_buffer_ >= batch_.buffers()->size()) {
    return Bad("the record batch has fewer buffers than the schema needs");
  }
  const fb::Buffer buffer = CopyOf(batch_.buffers()->Get(next_buffer_++));
  const int64_t offset = buffer.offset(), length = buffer.length();
  if (offset < 0 || length < 0 || static_cast<uint64_t>(offset) > body_.size() ||
      static_cast<uint64_t>(length) > body_.size() - offset) {
    return Bad("a buffer lies outside the message body");
  }
  std::string_view bytes = body_.substr(offset, length);
  if (compression_ < 0) {
    decoded_bytes_ += bytes.size();
    return bytes;
  }
  ASSIGN_OR_RETURN(std::string plain,
                   DecompressArrowBuffer(compression_ == fb::CompressionType_ZSTD
                                             ? ArrowWriteOptions::Codec::kZstd
                                             : ArrowWriteOptions::Codec::kLz4Frame,
                                         bytes));
  decoded_bytes_ += plain.size();
  decompressed_.push_back(std::move(plain));
  return std::string_view(decompressed_.back());
}

absl::Status ArrowBatchDecoder::ReadOffsets(std::string_view buffer, bool large, size_t rows,
                                            std::vector<uint64_t>* offsets) const {
  const size_t width = large ? 8 : 4;
  if (rows == 0 && buffer.size() < width) {  // writers may leave an empty array's offsets out
    offsets->assign(1, 0);
    return absl::OkStatus();
  }
  // Before sizing anything by `rows`: a batch's claimed length is the sender's word.
  if (rows >= buffer.size() / width) return Bad("an offsets buffer is too short");
  offsets->resize(rows + 1);
  for (size_t i = 0; i <= rows; ++i) {
    int64_t value;
    if (large) {
      std::memcpy(&value, buffer.data() + i * 8, 8);
    } else {
      int32_t narrow;
      std::memcpy(&narrow, buffer.data() + i * 4, 4);
      value = narrow;
    }
    if (value < 0 || (i > 0 && static_cast<uint64_t>(value) < (*offsets)[i - 1])) {
      return Bad("offsets decrease");
    }
    (*offsets)[i] = static_cast<uint64_t>(value);
  }
  return absl::OkStatus();
}

absl::StatusOr<core::Column> ArrowBatchDecoder::Next(const ArrowColumnLayout& layout) {
  ASSIGN_OR_RETURN(const fb::FieldNode node, NextNode());
  const size_t rows = static_cast<size_t>(node.length());
  const core::TypeId type = layout.type;
  core::Column column(type);
  if (core::RemoveNullable(type) == core::TypeId::kNothing) {  // Arrow's null: no buffers
    // Its rows are made of nothing: backed by the bytes decoded so far and stored after, not by
    // what compressed buffers claim (NextNode's CheckRows), or a few bytes of a compressed batch
    // claiming 2^40 rows made as many NULLs (a hang found by fuzz/input_arrow).
    RETURN_IF_ERROR(CheckDecodedRows(node.length()));
    for (size_t i = 0; i < rows; ++i) column.AppendNull();
    return column;
  }
  ASSIGN_OR_RETURN(std::string_view validity, NextBuffer());
  const bool has_nulls = node.null_count() > 0 && !validity.empty();
  if (has_nulls && validity.size() < (rows + 7) / 8) return Bad("a validity bitmap is too short");
  auto valid = [&](size_t i) { return !has_nulls || Bit(validity, i); };

  if (core::IsMap(type)) {
    // The list's offsets, the entries struct's node and validity, then keys and values.
    ASSIGN_OR_RETURN(std::string_view offset_bytes, NextBuffer());
    std::vector<uint64_t> offsets;
    RETURN_IF_ERROR(ReadOffsets(offset_bytes, layout.large_offsets, rows, &offsets));
    RETURN_IF_ERROR(NextNode().status());
    RETURN_IF_ERROR(NextBuffer().status());
    ASSIGN_OR_RETURN(core::Column keys, Next(layout.element[0]));
    ASSIGN_OR_RETURN(core::Column values, Next(layout.element[1]));
    if (offsets[rows] > keys.size() || offsets[rows] > values.size()) {
      return Bad("map offsets pass the end of the entries");
    }
    // A NULL map reads as {}.
    for (size_t e = 0; e < 2; ++e) {
      const core::Column& from = e == 0 ? keys : values;
      core::Column& array = column.MutableElement(e);
      for (size_t i = 0; i < rows; ++i) {
        if (valid(i)) {
          array.MutableNested().AppendRange(from, offsets[i], offsets[i + 1] - offsets[i]);
        }
        array.MutableOffsets().push_back(array.MutableNested().size());
      }
      array.SetSize(rows);
    }
    column.SetSize(rows);
    return column;
  }
  if (core::IsArrayOfTuples(type)) {
    // The list's offsets, then the struct's column: each element's rows become its array.
    ASSIGN_OR_RETURN(std::string_view offset_bytes, NextBuffer());
    std::vector<uint64_t> offsets;
    RETURN_IF_ERROR(ReadOffsets(offset_bytes, layout.large_offsets, rows, &offsets));
    ASSIGN_OR_RETURN(core::Column items, Next(layout.element[0]));
    if (offsets[rows] > items.size()) return Bad("list offsets pass the end of the structs");
    for (size_t e = 0; e < column.TupleSize(); ++e) {  // a NULL list reads as []
      core::Column& array = column.MutableElement(e);
      for (size_t i = 0; i < rows; ++i) {
        if (valid(i)) {
          array.MutableNested().AppendRange(items.Element(e), offsets[i],
                                            offsets[i + 1] - offsets[i]);
        }
        array.MutableOffsets().push_back(array.MutableNested().size());
      }
      array.SetSize(rows);
    }
    column.SetSize(rows);
    return column;
  }
  if (core::IsTuple(type)) {  // each child's column in turn (a NULL struct reads as its values)
    for (size_t i = 0; i < layout.element.size(); ++i) {
      ASSIGN_OR_RETURN(core::Column element, Next(layout.element[i]));
      if (element.size() < rows) return Bad("a struct's child is shorter than the struct");
      column.MutableElement(i) = element.size() == rows ? std::move(element)
                                                        : element.Slice(0, rows);
    }
    column.SetSize(rows);
    return column;
  }
  if (core::IsArray(type)) {
    ASSIGN_OR_RETURN(std::string_view offset_bytes, NextBuffer());
    std::vector<uint64_t> offsets;
    RETURN_IF_ERROR(ReadOffsets(offset_bytes, layout.large_offsets, rows, &offsets));
    ASSIGN_OR_RETURN(core::Column elements, Next(layout.element[0]));
    if (offsets[rows] > elements.size()) return Bad("list offsets pass the end of the elements");
    // A NULL list reads as [], its elements (if any) dropped.
    core::Column& nested = column.MutableNested();
    for (size_t i = 0; i < rows; ++i) {
      if (valid(i)) nested.AppendRange(elements, offsets[i], offsets[i + 1] - offsets[i]);
      column.MutableOffsets().push_back(nested.size());
    }
    column.SetSize(rows);
    return column;
  }

  const core::TypeId value_type = core::RemoveNullable(type);
  if (value_type == core::TypeId::kString) {
    ASSIGN_OR_RETURN(std::string_view offset_bytes, NextBuffer());
    ASSIGN_OR_RETURN(std::string_view data, NextBuffer());
    std::vector<uint64_t> offsets;
    RETURN_IF_ERROR(ReadOffsets(offset_bytes, layout.large_offsets, rows, &offsets));
    if (offsets[rows] > data.size()) return Bad("string offsets pass the end of the data");
    for (size_t i = 0; i < rows; ++i) {
      column.AppendString(valid(i) ? data.substr(offsets[i], offsets[i + 1] - offsets[i])
                                   : std::string_view());
    }
  } else {
    ASSIGN_OR_RETURN(std::string_view values, NextBuffer());
    absl::Status status;
    switch (core::BaseOf(value_type)) {
      case core::TypeId::kFixedString: {
        const size_t n = core::FixedStringSizeOf(value_type);
        if (values.size() / n < rows) return Bad("a fixed_size_binary buffer is too short");
        for (size_t i = 0; i < rows; ++i) {
          column.AppendString(valid(i) ? values.substr(i * n, n) : std::string(n, '\0'));
        }
        break;
      }
      case core::TypeId::kUUID:  // 16 bytes in text order: each half big-endian
        status = CopyValues<core::UnsignedInt128, core::UnsignedInt128>(
            values, rows, &column, [](core::UnsignedInt128 v) {
              const uint64_t low = __builtin_bswap64(static_cast<uint64_t>(v));
              const uint64_t high = __builtin_bswap64(static_cast<uint64_t>(v >> 64));
              return (static_cast<core::UnsignedInt128>(high) << 64) | low;
            });
        break;
      case core::TypeId::kBool:
        if (values.size() < (rows + 7) / 8) return Bad("a bool buffer is too short");
        column.Resize(rows);
        for (size_t i = 0; i < rows; ++i) column.Data<uint8_t>()[i] = Bit(values, i);
        break;
      case core::TypeId::kDate:  // date32: days, clamped to Date's range
        status = CopyValues<int32_t, uint16_t>(values, rows, &column, [](int32_t d) {
          return static_cast<uint16_t>(std::clamp<int32_t>(d, 0, 65535));
        });
        break;
      case core::TypeId::kDecimal32:
        status = CopyValues<core::Int128, int32_t>(values, rows, &column,
                                                   [](core::Int128 v) { return int32_t(v); });
        break;
      case core::TypeId::kDecimal64:
        status = CopyValues<core::Int128, int64_t>(values, rows, &column,
                                                   [](core::Int128 v) { return int64_t(v); });
        break;
      default:  // integers, floats, Decimal128, timestamps: the values as they are
        status = core::DispatchFixed(value_type, [&](auto tag) {
          return CopySame<typename decltype(tag)::Type>(values, rows, &column);
        });
        break;
    }
    RETURN_IF_ERROR(status);
    if (has_nulls) {  // the value under a NULL is the type's default
      const size_t width = core::ValueSize(value_type);
      for (size_t i = 0; i < rows; ++i) {
        if (!valid(i) && width > 0 && !core::IsFixedString(value_type)) {
          std::memset(column.RawData() + i * width, 0, width);
        }
      }
    }
  }
  if (has_nulls && column.nullable()) {
    for (size_t i = 0; i < rows; ++i) column.MutableNullMap()[i] = valid(i) ? 0 : 1;
  }
  return column;
}

}  // namespace granite::coordinator
