// Writes Apache Thrift's compact protocol, the encoding of Parquet's metadata (FileMetaData,
// PageHeader; coordinator/formats/parquet_output.h). A struct is a sequence of fields, each a
// header byte (the field id's delta from the previous field in the high nibble, the type in the
// low one; a zigzag varint id after the byte when the delta does not fit) and its value, ended
// by a zero byte. Integers are zigzag varints, strings a varint length and the bytes, lists a
// header byte (size and element type) and the elements, a bool field's value its type nibble.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace granite::coordinator {

// Appends one Thrift compact-protocol value to a string.
// Thread-safety: none.
// REQUIRES: fields of a struct in increasing id order; every BeginStruct / BeginListStruct
// matched by EndStruct.
class ThriftCompactWriter {
 public:
  explicit ThriftCompactWriter(std::string* out) : out_(out) { last_ids_.push_back(0); }

  void FieldBool(int16_t id, bool value) { FieldHeader(id, value ? kTrue : kFalse); }
  void FieldI8(int16_t id, int8_t value);
  void FieldI32(int16_t id, int32_t value);
  void FieldI64(int16_t id, int64_t value);
  void FieldBinary(int16_t id, std::string_view value);
  // Starts a struct-valued field; its fields follow, then EndStruct.
  void BeginStruct(int16_t id);
  // Starts a list field of `size` elements of the compact type `element_type` (kI32, kBinary,
  // kStruct); the elements follow: ListI32 / ListBinary, or BeginListStruct ... EndStruct.
  void BeginList(int16_t id, uint8_t element_type, size_t size);
  void ListI32(int32_t value) { VarInt(ZigZag(value)); }
  void ListBinary(std::string_view value);
  void BeginListStruct() { last_ids_.push_back(0); }
  // Ends the innermost struct (writes its stop byte).
  void EndStruct();
  // Writes the stop byte of the top-level struct. REQUIRES: every nested struct ended.
  void Finish() { out_->push_back(0); }

  static constexpr uint8_t kTrue = 1, kFalse = 2, kByte = 3, kI16 = 4, kI32 = 5, kI64 = 6,
                           kBinary = 8, kList = 9, kStruct = 12;

 private:
  void FieldHeader(int16_t id, uint8_t type);
  void VarInt(uint64_t value);
  static uint64_t ZigZag(int64_t value) {
    return (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  }

  std::string* out_;
  std::vector<int16_t> last_ids_;  // per open struct, the id of its last field
};

}  // namespace granite::coordinator
