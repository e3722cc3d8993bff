#include "coordinator/formats/thrift_compact_reader.h"

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::coordinator {
namespace {

int64_t UnZigZag(uint64_t value) {
  return static_cast<int64_t>(value >> 1) ^ -static_cast<int64_t>(value & 1);
}

absl::Status Corrupt(std::string_view why) {
  return core::Error(core::ErrorCode::kIncorrectData,
                     absl::StrCat("Cannot read Parquet metadata: ", std::string(why)));
}

}  // namespace

absl::Status ThriftCompactReader::Truncated() const {
  return Corrupt(absl::StrCat("the Thrift data ends early (", data_.size(), " bytes)"));
}

absl::StatusOr<uint64_t> ThriftCompactReader::VarInt() {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= data_.size()) return Truncated();
    const uint8_t byte = static_cast<uint8_t>(data_[pos_++]);
    value |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  return Corrupt("a varint is longer than 10 bytes");
}

absl::StatusOr<bool> ThriftCompactReader::NextField(int16_t* id, uint8_t* type) {
  if (pos_ >= data_.size()) return Truncated();
  const uint8_t header = static_cast<uint8_t>(data_[pos_++]);
  if (header == 0) return false;
  *type = header & 0x0F;
  const int delta = header >> 4;
  if (delta != 0) {
    *id = static_cast<int16_t>(last_ids_.back() + delta);
  } else {
    ASSIGN_OR_RETURN(uint64_t raw, VarInt());
    *id = static_cast<int16_t>(UnZigZag(raw));
  }
  last_ids_.back() = *id;
  return true;
}

absl::StatusOr<int64_t> ThriftCompactReader::ReadInt(uint8_t type) {
  if (type == kByte) {
    if (pos_ >= data_.size()) return Truncated();
    return static_cast<int8_t>(data_[pos_++]);
  }
  if (type != kI16 && type != kI32 && type != kI64) {
    return Corrupt(absl::StrCat("an integer has compact type ", type));
  }
  ASSIGN_OR_RETURN(uint64_t raw, VarInt());
  return UnZigZag(raw);
}

absl::StatusOr<std::string_view> ThriftCompactReader::ReadBinary() {
  ASSIGN_OR_RETURN(uint64_t size, VarInt());
  if (size > data_.size() - pos_) return Truncated();
  std::string_view value = data_.substr(pos_, size);
  pos_ += size;
  return value;
}

absl::StatusOr<size_t> ThriftCompactReader::ReadListHeader(uint8_t* element_type) {
  if (pos_ >= data_.size()) return Truncated();
  const uint8_t header = static_cast<uint8_t>(data_[pos_++]);
  *element_type = header & 0x0F;
  uint64_t size = header >> 4;
  if (size == 15) {
    ASSIGN_OR_RETURN(size, VarInt());
  }
  // Every element takes at least one byte, but bools in a list; a count past the bytes left
  // (with room for bools) is corrupt, and refusing it here bounds the caller's reserve().
  if (size > data_.size() - pos_ && *element_type != kTrue && *element_type != kFalse) {
    return Truncated();
  }
  return static_cast<size_t>(size);
}

absl::Status ThriftCompactReader::BeginStruct() {
  if (last_ids_.size() >= kMaxDepth) return Corrupt("structs nest too deep");
  last_ids_.push_back(0);
  return absl::OkStatus();
}

absl::Status ThriftCompactReader::Skip(uint8_t type) {
  switch (type) {
    case kTrue:
    case kFalse:
      return absl::OkStatus();  // a bool field's value is its type
    case kByte:
    case kI16:
    case kI32:
    case kI64:
      return ReadInt(type).status();
    case kDouble:
      if (data_.size() - pos_ < 8) return Truncated();
      pos_ += 8;
      return absl::OkStatus();
    case kBinary:
      return ReadBinary().status();
    case kList:
    case kSet: {
      uint8_t element;
      ASSIGN_OR_RETURN(size_t size, ReadListHeader(&element));
      if (last_ids_.size() >= kMaxDepth) return Corrupt("lists nest too deep");
      for (size_t i = 0; i < size; ++i) {
        if (element == kTrue || element == kFalse) {  // one byte per bool in a list
          if (pos_ >= data_.size()) return Truncated();
          ++pos_;
          continue;
        }
        last_ids_.push_back(0);  // depth accounting only
        absl::Status skipped = Skip(element);
        last_ids_.pop_back();
        RETURN_IF_ERROR(skipped);
      }
      return absl::OkStatus();
    }
    case kMap: {
      ASSIGN_OR_RETURN(uint64_t size, VarInt());
      if (size == 0) return absl::OkStatus();
      if (pos_ >= data_.size()) return Truncated();
      const uint8_t kinds = static_cast<uint8_t>(data_[pos_++]);
      if (size > data_.size() - pos_) return Truncated();
      if (last_ids_.size() >= kMaxDepth) return Corrupt("maps nest too deep");
      for (uint64_t i = 0; i < size; ++i) {
        for (uint8_t kind : {static_cast<uint8_t>(kinds >> 4), static_cast<uint8_t>(kinds & 15)}) {
          if (kind == kTrue || kind == kFalse) {
            if (pos_ >= data_.size()) return Truncated();
            ++pos_;
            continue;
          }
          last_ids_.push_back(0);
          absl::Status skipped = Skip(kind);
          last_ids_.pop_back();
          RETURN_IF_ERROR(skipped);
        }
      }
      return absl::OkStatus();
    }
    case kStruct: {
      RETURN_IF_ERROR(BeginStruct());
      int16_t id;
      uint8_t field_type;
      while (true) {
        ASSIGN_OR_RETURN(bool more, NextField(&id, &field_type));
        if (!more) break;
        RETURN_IF_ERROR(Skip(field_type));
      }
      EndStruct();
      return absl::OkStatus();
    }
    default:
      return Corrupt(absl::StrCat("unknown compact type ", type));
  }
}

}  // namespace granite::coordinator
