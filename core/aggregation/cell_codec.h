// Cells: one value of any column type held as bytes, for aggregate states that keep values of
// a type known only at run time (argMin, anyLast, -Distinct). A fixed-width value is its raw
// bytes; a String is its bytes; an Array is its element count (varint), then per element a NULL
// flag byte (Nullable elements only) and, unless NULL, the element's cell serialized. Serialized,
// a cell is a varint length and the bytes.
#pragma once

#include <cstring>
#include <string>
#include <string_view>

#include "core/aggregation/varint.h"
#include "core/column.h"

namespace granite::core {

inline void PutCell(std::string* out, std::string_view cell);
inline bool GetCell(std::string_view* in, std::string* cell);

// Returns row `row` of `column` as a cell.
inline std::string CellOf(const Column& column, size_t row) {
  if (IsArray(column.type())) {
    const Column& nested = column.Nested();
    const uint64_t begin = column.ArrayBegin(row);
    const uint64_t size = column.ArraySizeAt(row);
    std::string out;
    PutVarint64(&out, size);
    for (uint64_t i = begin; i < begin + size; ++i) {
      if (nested.nullable()) {
        out.push_back(nested.IsNullAt(i) ? 1 : 0);
        if (nested.IsNullAt(i)) continue;
      }
      PutCell(&out, CellOf(nested, i));
    }
    return out;
  }
  if (HasStringLayout(column.type())) return std::string(column.StringAt(row));
  const size_t width = ValueSize(column.type());
  return std::string(column.RawData() + row * width, width);
}

// Appends a cell to `column` (an empty cell appends the type's default).
inline void AppendCell(Column* column, std::string_view cell) {
  if (IsArray(column->type())) {
    Column& nested = column->MutableNested();
    uint64_t size = 0;
    if (!cell.empty() && GetVarint64(&cell, &size)) {
      std::string element;
      for (uint64_t i = 0; i < size && !cell.empty(); ++i) {
        if (nested.nullable()) {
          const bool null = cell[0] != 0;
          cell.remove_prefix(1);
          if (null) {
            nested.AppendNull();
            continue;
          }
        }
        if (!GetCell(&cell, &element)) break;
        AppendCell(&nested, element);
      }
    }
    column->AppendArrayEnd();
    return;
  }
  if (HasStringLayout(column->type())) {
    column->AppendString(cell);
    return;
  }
  const size_t width = ValueSize(column->type());
  const size_t old = column->size();
  column->Resize(old + 1);
  if (cell.size() == width) std::memcpy(column->RawData() + old * width, cell.data(), width);
}

// Orders two cells of `type` by value (floats: NaN after everything, as in ClickHouse's sort).
// REQUIRES: both are non-empty cells of `type` (or Strings).
inline int CompareCells(TypeId type, std::string_view a, std::string_view b) {
  if (HasStringLayout(type)) return a.compare(b) < 0 ? -1 : (a == b ? 0 : 1);
  return DispatchFixed(type, [&](auto tag) {
    using T = typename decltype(tag)::Type;
    T x, y;
    std::memcpy(&x, a.data(), sizeof(T));
    std::memcpy(&y, b.data(), sizeof(T));
    if (x < y) return -1;
    if (y < x) return 1;
    if constexpr (std::is_floating_point_v<T>) {
      if (x != x && y == y) return 1;
      if (y != y && x == x) return -1;
    }
    return 0;
  });
}

inline void PutCell(std::string* out, std::string_view cell) {
  PutVarint64(out, cell.size());
  out->append(cell);
}

// Reads a cell written by PutCell and advances `in`. Returns false on truncated input.
inline bool GetCell(std::string_view* in, std::string* cell) {
  uint64_t size;
  if (!GetVarint64(in, &size) || size > in->size()) return false;
  cell->assign(in->data(), size);
  in->remove_prefix(size);
  return true;
}

// Returns row `row` of a numeric column as a double.
inline double NumberAt(const Column& column, size_t row) {
  return DispatchFixed(column.type(), [&](auto tag) {
    using T = typename decltype(tag)::Type;
    return static_cast<double>(column.Data<T>()[row]);
  });
}

}  // namespace granite::core
