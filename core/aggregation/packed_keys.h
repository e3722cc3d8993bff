// Packed keys: several fixed-width GROUP BY keys stored side by side in one 64- or 128-bit integer
// (key k's value bytes at the byte offset equal to the widths of keys 0..k-1, little-endian;
// floats with -0.0 folded into 0.0 like WidenKey), so `GROUP BY a, b` over a UInt32 and a UInt16
// uses the integer table instead of serializing bytes. The key hash of a packed layout is the hash
// of the packed integer (HashIntKey / HashUInt128), the same in every process.
#pragma once

#include <cstdint>
#include <vector>

#include "core/aggregation/int_hash_map.h"
#include "core/column.h"
#include "core/types.h"

namespace granite::core {

// Returns the total width in bytes of `types`, or 0 if one of them is a String.
size_t PackedWidth(const std::vector<TypeId>& types);

// Writes the packed keys of rows [0, rows) of `keys` to out[0 .. rows).
// REQUIRES: PackedWidth of the key types is in (0, 8] (PackKeys64) or (0, 16] (PackKeys128).
void PackKeys64(const std::vector<ColumnPtr>& keys, size_t rows, uint64_t* out);
void PackKeys128(const std::vector<ColumnPtr>& keys, size_t rows, UInt128* out);

}  // namespace granite::core
