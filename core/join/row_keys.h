// Row keys for hash joins (the coordinator's and the workers') and set operators: the values of some columns of
// one row encoded so that equal values give equal bytes across the columns' types (every integer
// and Date / DateTime as its 64-bit value, floats as a double with -0 folded into 0, strings
// length-prefixed, decimals as their raw scaled value). Columns compared by one key must be all
// strings, all numbers, or decimals of one type: the callers
// check it (NO_COMMON_TYPE) with KeysComparable.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/column.h"

namespace granite::core {

// True when values of `a` and `b` may be compared as one join or set key.
bool KeysComparable(TypeId a, TypeId b);

// True when one key column of `type` fits KeyWord (integers, Date, DateTime).
bool IsWordKey(TypeId type);

// True when keys of types `a` and `b` may be compared by their KeyWord alone: both word keys, and
// not UInt64 against a signed type (2^64 - 1 and -1 have one 64-bit pattern; AppendRowKey tells
// them apart).
bool WordKeysComparable(TypeId a, TypeId b);

// True when a pair of key columns of types (a0, a1) on one side and (b0, b1) on the other may be
// compared by one word packing both (PairKeyWord): each a 32-bit-or-narrower word key of the same
// signedness as its partner, so the low 32 bits of its KeyWord tell its values apart.
bool PairWordKeysComparable(TypeId a0, TypeId a1, TypeId b0, TypeId b1);

// Returns the word of a pair of such key columns: the first's low 32 bits over the second's.
inline uint64_t PairKeyWord(uint64_t first, uint64_t second) {
  return (first << 32) | (second & 0xffffffffu);
}

// Returns row `row` of an integer-like column as a 64-bit word (signed values sign-extended).
uint64_t KeyWord(const Column& column, size_t row);

// KeyWord of rows [begin, end) of `column`, its type dispatched once.
std::vector<uint64_t> KeyWords(const Column& column, size_t begin, size_t end);

// Appends the encoded values of `columns` at `row` to `out`.
void AppendRowKey(const std::vector<const Column*>& columns, size_t row, std::string* out);

}  // namespace granite::core
