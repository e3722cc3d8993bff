#include "coordinator/formats/native_input.h"

#include <cstring>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/extended_value_text.h"

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
};

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
      if (*type != core::TypeName(want)) {
        return core::Error(core::ErrorCode::kTypeMismatch,
                           absl::StrCat("Native input column '", std::string(*name), "' has type ",
                                        std::string(*type), ", the table's column is ",
                                        std::string(core::TypeName(want))));
      }
      const size_t start = reader.pos();
      // Nullable(T): the null map (a byte per row), then T's column.
      if (core::IsNullable(want)) complete = reader.Bytes(*rows).has_value();
      if (!complete) break;
      if (core::IsString(want)) {
        for (uint64_t r = 0; complete && r < *rows; ++r) complete = reader.String().has_value();
      } else if (core::IsFixedString(want)) {
        complete = reader.Bytes(*rows * core::FixedStringSizeOf(want)).has_value();
      } else {
        complete = reader.Bytes(*rows * core::ValueSize(want)).has_value();
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
      core::Column& target = *builder->column(column.target);
      filled[column.target] = true;
      std::string_view values = column.data;
      std::string_view nulls;
      if (target.nullable()) {
        nulls = values.substr(0, *rows);
        values.remove_prefix(*rows);
      }
      const size_t first = target.size();
      if (target.type() == core::TypeId::kString) {
        Reader strings(values);
        for (uint64_t r = 0; r < *rows; ++r) target.AppendString(*strings.String());
      } else if (core::IsFixedString(target.type())) {
        const size_t n = core::FixedStringSizeOf(target.type());
        for (uint64_t r = 0; r < *rows; ++r) target.AppendString(values.substr(r * n, n));
      } else if (target.type() == core::TypeId::kUUID) {
        for (uint64_t r = 0; r < *rows; ++r) {
          target.Append(core::UuidFromClickHouseBytes(values.data() + r * 16));
        }
      } else {
        size_t old = target.size();
        target.Resize(old + *rows);
        std::memcpy(target.RawData() + old * core::ValueSize(target.type()), values.data(),
                    values.size());
      }
      if (!nulls.empty()) std::memcpy(target.MutableNullMap() + first, nulls.data(), nulls.size());
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
