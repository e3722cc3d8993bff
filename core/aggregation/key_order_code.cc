#include "core/aggregation/key_order_code.h"

#include <cstring>
#include <string_view>

namespace granite::core {

namespace {

template <typename T>
void SignedCodes(const T* values, size_t rows, uint64_t flip, uint64_t* codes) {
  // Sign-extend, then flip the sign bit: INT64_MIN -> 0, -1 -> 2^63 - 1, 0 -> 2^63.
  for (size_t i = 0; i < rows; ++i) {
    codes[i] = (static_cast<uint64_t>(static_cast<int64_t>(values[i])) ^ (uint64_t{1} << 63)) ^ flip;
  }
}

template <typename T>
void UnsignedCodes(const T* values, size_t rows, uint64_t flip, uint64_t* codes) {
  for (size_t i = 0; i < rows; ++i) codes[i] = static_cast<uint64_t>(values[i]) ^ flip;
}

// The first 8 bytes, big-endian, zero padded: bytewise order on that prefix.
void StringCodes(const Column& column, size_t rows, uint64_t flip, uint64_t* codes) {
  for (size_t i = 0; i < rows; ++i) {
    std::string_view value = column.StringAt(i);
    unsigned char prefix[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    if (!value.empty()) std::memcpy(prefix, value.data(), value.size() < 8 ? value.size() : 8);
    uint64_t code = 0;
    for (unsigned char byte : prefix) code = (code << 8) | byte;
    codes[i] = code ^ flip;
  }
}

}  // namespace

bool HasOrderCode(TypeId type) {
  if (IsNullable(type)) return false;
  switch (BaseOf(type)) {
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kBool:
    case TypeId::kDate:
    case TypeId::kDateTime:
    case TypeId::kDateTime64:
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kString:
    case TypeId::kFixedString:
      return true;
    default:
      return false;
  }
}

void OrderCodes(const Column& column, bool descending, size_t rows, uint64_t* codes) {
  // Descending: the complement reverses the order of the codes.
  const uint64_t flip = descending ? ~uint64_t{0} : 0;
  switch (BaseOf(column.type())) {
    case TypeId::kUInt8:
    case TypeId::kBool:
      return UnsignedCodes(column.Data<uint8_t>(), rows, flip, codes);
    case TypeId::kUInt16:
    case TypeId::kDate:
      return UnsignedCodes(column.Data<uint16_t>(), rows, flip, codes);
    case TypeId::kUInt32:
    case TypeId::kDateTime:
      return UnsignedCodes(column.Data<uint32_t>(), rows, flip, codes);
    case TypeId::kUInt64:
      return UnsignedCodes(column.Data<uint64_t>(), rows, flip, codes);
    case TypeId::kInt8:
      return SignedCodes(column.Data<int8_t>(), rows, flip, codes);
    case TypeId::kInt16:
      return SignedCodes(column.Data<int16_t>(), rows, flip, codes);
    case TypeId::kInt32:
    case TypeId::kDecimal32:
      return SignedCodes(column.Data<int32_t>(), rows, flip, codes);
    case TypeId::kInt64:
    case TypeId::kDecimal64:
    case TypeId::kDateTime64:
      return SignedCodes(column.Data<int64_t>(), rows, flip, codes);
    default:  // String, FixedString (HasOrderCode holds)
      return StringCodes(column, rows, flip, codes);
  }
}

}  // namespace granite::core
