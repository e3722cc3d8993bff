#include "core/join/row_keys.h"

#include <cstring>
#include <string>
#include <type_traits>

#include "core/quoted_text.h"

namespace granite::core {

bool KeysComparable(TypeId a, TypeId b) {
  // A decimal key compares by its scaled value, a DateTime64 by its ticks, a UUID by its 16
  // bytes: each only with a key of the same type.
  if (IsDecimal(a) || IsDecimal(b) || IsDateTime64(a) || IsDateTime64(b) || IsUuid(a) ||
      IsUuid(b) || IsArray(a) || IsArray(b)) {
    return RemoveNullable(a) == RemoveNullable(b);
  }
  return HasStringLayout(a) == HasStringLayout(b);
}

bool IsWordKey(TypeId type) { return !IsDecimal(type) && IsInteger(type); }

bool WordKeysComparable(TypeId a, TypeId b) {
  if (!IsWordKey(a) || !IsWordKey(b)) return false;
  const bool a64 = BaseOf(a) == TypeId::kUInt64;
  const bool b64 = BaseOf(b) == TypeId::kUInt64;
  return a64 == b64 || !(IsSignedInteger(a) || IsSignedInteger(b));
}

bool PairWordKeysComparable(TypeId a0, TypeId a1, TypeId b0, TypeId b1) {
  auto narrow_pair = [](TypeId a, TypeId b) {
    return IsWordKey(a) && IsWordKey(b) && ValueSize(a) <= 4 && ValueSize(b) <= 4 &&
           IsSignedInteger(a) == IsSignedInteger(b);
  };
  return narrow_pair(RemoveNullable(a0), RemoveNullable(b0)) &&
         narrow_pair(RemoveNullable(a1), RemoveNullable(b1));
}

uint64_t KeyWord(const Column& column, size_t row) {
  return DispatchFixed(column.type(), [&](auto tag) -> uint64_t {
    using T = typename decltype(tag)::Type;
    if constexpr (std::is_floating_point_v<T>) {
      return 0;  // not a word key
    } else if constexpr (std::is_signed_v<T>) {
      return static_cast<uint64_t>(static_cast<int64_t>(column.Get<T>(row)));
    } else {
      return static_cast<uint64_t>(column.Get<T>(row));
    }
  });
}

std::vector<uint64_t> KeyWords(const Column& column, size_t begin, size_t end) {
  std::vector<uint64_t> out(end - begin);
  DispatchFixed(column.type(), [&](auto tag) {
    using T = typename decltype(tag)::Type;
    if constexpr (std::is_integral_v<T> && sizeof(T) <= 8) {
      const T* data = column.Data<T>() + begin;
      for (size_t i = 0; i < out.size(); ++i) {
        if constexpr (std::is_signed_v<T>) {
          out[i] = static_cast<uint64_t>(static_cast<int64_t>(data[i]));
        } else {
          out[i] = static_cast<uint64_t>(data[i]);
        }
      }
    } else {
      for (size_t i = 0; i < out.size(); ++i) out[i] = KeyWord(column, begin + i);
    }
  });
  return out;
}

void AppendRowKey(const std::vector<const Column*>& columns, size_t row, std::string* out) {
  for (const Column* column : columns) {
    if (IsArray(column->type())) {
      // Equal types only (KeysComparable): the array's text is exact, so it is the key.
      std::string text;
      AppendQuotedValueText(*column, row, &text);
      uint32_t size = static_cast<uint32_t>(text.size());
      out->push_back('a');
      out->append(reinterpret_cast<const char*>(&size), sizeof(size));
      out->append(text);
      continue;
    }
    if (HasStringLayout(column->type())) {
      std::string_view value = column->StringAt(row);
      uint32_t size = static_cast<uint32_t>(value.size());
      out->append(reinterpret_cast<const char*>(&size), sizeof(size));
      out->append(value);
      continue;
    }
    if (IsDecimal(column->type()) || IsUuid(column->type())) {
      // Equal types only (KeysComparable): the raw scaled value (or UUID) is the key.
      const size_t width = core::ValueSize(column->type());
      out->push_back('d');
      out->append(column->RawData() + row * width, width);
      continue;
    }
    uint64_t word;
    char tag = 'i';
    if (core::IsFloat(column->type())) {
      double value = DispatchFixed(column->type(), [&](auto tag) -> double {
        using T = typename decltype(tag)::Type;
        return static_cast<double>(column->Get<T>(row));
      });
      if (value == 0) value = 0;  // -0.0 and 0.0 are one key
      // An integral float equals the integer of the same value (1.0 = 1).
      if (value >= -9.2e18 && value <= 9.2e18 && value == static_cast<double>(static_cast<int64_t>(value))) {
        word = static_cast<uint64_t>(static_cast<int64_t>(value));
      } else {
        std::memcpy(&word, &value, sizeof(word));
        tag = 'f';
      }
    } else {
      word = KeyWord(*column, row);
      // A UInt64 past 2^63 - 1 equals no signed value of the same bit pattern.
      if (word >> 63 && BaseOf(column->type()) == TypeId::kUInt64) tag = 'u';
    }
    out->push_back(tag);
    out->append(reinterpret_cast<const char*>(&word), sizeof(word));
  }
}

}  // namespace granite::core
