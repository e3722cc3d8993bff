#include "coordinator/formats/thrift_compact_writer.h"

namespace granite::coordinator {

void ThriftCompactWriter::VarInt(uint64_t value) {
  while (value >= 0x80) {
    out_->push_back(static_cast<char>(0x80 | (value & 0x7F)));
    value >>= 7;
  }
  out_->push_back(static_cast<char>(value));
}

void ThriftCompactWriter::FieldHeader(int16_t id, uint8_t type) {
  const int delta = id - last_ids_.back();
  if (delta > 0 && delta <= 15) {
    out_->push_back(static_cast<char>((delta << 4) | type));
  } else {
    out_->push_back(static_cast<char>(type));
    VarInt(ZigZag(id));
  }
  last_ids_.back() = id;
}

void ThriftCompactWriter::FieldI8(int16_t id, int8_t value) {
  FieldHeader(id, kByte);
  out_->push_back(static_cast<char>(value));
}

void ThriftCompactWriter::FieldI32(int16_t id, int32_t value) {
  FieldHeader(id, kI32);
  VarInt(ZigZag(value));
}

void ThriftCompactWriter::FieldI64(int16_t id, int64_t value) {
  FieldHeader(id, kI64);
  VarInt(ZigZag(value));
}

void ThriftCompactWriter::FieldBinary(int16_t id, std::string_view value) {
  FieldHeader(id, kBinary);
  ListBinary(value);
}

void ThriftCompactWriter::ListBinary(std::string_view value) {
  VarInt(value.size());
  out_->append(value);
}

void ThriftCompactWriter::BeginStruct(int16_t id) {
  FieldHeader(id, kStruct);
  last_ids_.push_back(0);
}

void ThriftCompactWriter::BeginList(int16_t id, uint8_t element_type, size_t size) {
  FieldHeader(id, kList);
  if (size < 15) {
    out_->push_back(static_cast<char>((size << 4) | element_type));
  } else {
    out_->push_back(static_cast<char>(0xF0 | element_type));
    VarInt(size);
  }
}

void ThriftCompactWriter::EndStruct() {
  out_->push_back(0);
  last_ids_.pop_back();
}

}  // namespace granite::coordinator
