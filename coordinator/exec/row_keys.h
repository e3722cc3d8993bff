// Row keys for the coordinator's hash joins and set operators: the values of some columns of
// one row encoded so that equal values give equal bytes across the columns' types (every integer
// and Date / DateTime as its 64-bit value, floats as a double with -0 folded into 0, strings
// length-prefixed). Columns compared by one key must be all strings or all numbers: the callers
// check it (NO_COMMON_TYPE) with KeysComparable.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/column.h"

namespace granite::coordinator {

// True when values of `a` and `b` may be compared as one join or set key.
bool KeysComparable(core::TypeId a, core::TypeId b);

// True when one key column of `type` fits KeyWord (integers, Date, DateTime).
bool IsWordKey(core::TypeId type);

// Returns row `row` of an integer-like column as a 64-bit word (signed values sign-extended).
uint64_t KeyWord(const core::Column& column, size_t row);

// Appends the encoded values of `columns` at `row` to `out`.
void AppendRowKey(const std::vector<const core::Column*>& columns, size_t row, std::string* out);

}  // namespace granite::coordinator
