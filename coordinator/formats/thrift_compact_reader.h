// Reads Apache Thrift's compact protocol (the encoding of Parquet's FileMetaData and PageHeader;
// thrift_compact_writer.h describes it), as a pull parser: the caller walks a struct's fields,
// reads the ones it knows and skips the rest, so unknown or newer fields never break a read.
// Every read is bounded by the input: a truncated or corrupt value is an error, never a read
// past the end, and nesting deeper than kMaxDepth is refused (a crafted input cannot overflow
// the stack through Skip).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace granite::coordinator {

// Thread-safety: none.
// REQUIRES: the bytes outlive the reader and every string_view it returned.
class ThriftCompactReader {
 public:
  explicit ThriftCompactReader(std::string_view data) : data_(data) { last_ids_.push_back(0); }

  // Reads the next field header of the current struct into *id and *type (a compact type:
  // kTrue / kFalse for a bool field, whose value is its type). Returns false at the struct's
  // stop byte.
  absl::StatusOr<bool> NextField(int16_t* id, uint8_t* type);
  // Reads an integer field or list element of compact type kByte, kI16, kI32 or kI64.
  absl::StatusOr<int64_t> ReadInt(uint8_t type);
  absl::StatusOr<std::string_view> ReadBinary();
  // Reads a list header: the element count and *element_type.
  absl::StatusOr<size_t> ReadListHeader(uint8_t* element_type);
  // Enters a struct-valued field or list element; EndStruct after its stop byte was read.
  absl::Status BeginStruct();
  void EndStruct() { last_ids_.pop_back(); }
  // Skips one value of compact type `type` (a whole struct, list, set or map included).
  absl::Status Skip(uint8_t type);

  // Bytes read so far.
  size_t position() const { return pos_; }

  static constexpr uint8_t kTrue = 1, kFalse = 2, kByte = 3, kI16 = 4, kI32 = 5, kI64 = 6,
                           kDouble = 7, kBinary = 8, kList = 9, kSet = 10, kMap = 11,
                           kStruct = 12;
  static constexpr size_t kMaxDepth = 64;

 private:
  absl::StatusOr<uint64_t> VarInt();
  absl::Status Truncated() const;

  std::string_view data_;
  size_t pos_ = 0;
  std::vector<int16_t> last_ids_;  // per open struct, the id of its last field
};

}  // namespace granite::coordinator
