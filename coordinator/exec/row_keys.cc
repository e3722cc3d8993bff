#include "coordinator/exec/row_keys.h"

#include <cstring>
#include <type_traits>

namespace granite::coordinator {

bool KeysComparable(core::TypeId a, core::TypeId b) {
  return core::IsString(a) == core::IsString(b);
}

bool IsWordKey(core::TypeId type) { return core::IsInteger(type); }

uint64_t KeyWord(const core::Column& column, size_t row) {
  return core::DispatchFixed(column.type(), [&](auto tag) -> uint64_t {
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

void AppendRowKey(const std::vector<const core::Column*>& columns, size_t row, std::string* out) {
  for (const core::Column* column : columns) {
    if (core::IsString(column->type())) {
      std::string_view value = column->StringAt(row);
      uint32_t size = static_cast<uint32_t>(value.size());
      out->append(reinterpret_cast<const char*>(&size), sizeof(size));
      out->append(value);
      continue;
    }
    uint64_t word;
    char tag = 'i';
    if (core::IsFloat(column->type())) {
      double value = core::DispatchFixed(column->type(), [&](auto tag) -> double {
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
    }
    out->push_back(tag);
    out->append(reinterpret_cast<const char*>(&word), sizeof(word));
  }
}

}  // namespace granite::coordinator
