// The loops every kernel shares. A kernel picks physical types once per batch (DispatchFixed) and
// calls one of these templates; the constness of each operand is decided once per call, so the
// inner loops have no branches on type or shape and the compiler can vectorize them.
#pragma once

#include <cstddef>
#include <memory>

#include "core/column.h"
#include "core/functions/scalar_kernel.h"

namespace granite::core {

// Returns a zero-filled fixed-width column of `rows` rows.
inline std::shared_ptr<Column> NewColumn(TypeId type, size_t rows) {
  auto column = std::make_shared<Column>(type);
  column->Resize(rows);
  return column;
}

// Writes out[i] = op(a[i], b[i]) for i < rows, reading a constant operand's single value once.
template <typename A, typename B, typename R, typename Op>
inline void BinaryLoop(const A* a, bool a_const, const B* b, bool b_const, R* out, size_t rows,
                       Op op) {
  if (!a_const && !b_const) {
    for (size_t i = 0; i < rows; ++i) out[i] = op(a[i], b[i]);
  } else if (!a_const) {
    const B c = b[0];
    for (size_t i = 0; i < rows; ++i) out[i] = op(a[i], c);
  } else if (!b_const) {
    const A c = a[0];
    for (size_t i = 0; i < rows; ++i) out[i] = op(c, b[i]);
  } else {
    const R r = op(a[0], b[0]);
    for (size_t i = 0; i < rows; ++i) out[i] = r;
  }
}

// BinaryLoop over two operands of physical types A and B.
template <typename A, typename B, typename R, typename Op>
inline void BinaryLoop(const Operand& a, const Operand& b, R* out, size_t rows, Op op) {
  BinaryLoop(a.column->Data<A>(), a.is_constant, b.column->Data<B>(), b.is_constant, out, rows,
             op);
}

// Writes out[i] = op(a[i]) for i < rows.
template <typename A, typename R, typename Op>
inline void UnaryLoop(const A* a, R* out, size_t rows, Op op) {
  for (size_t i = 0; i < rows; ++i) out[i] = op(a[i]);
}

// Returns the bytes of row `i` of a String operand (row 0 for a constant).
inline std::string_view StringOf(const Operand& operand, size_t i) {
  return operand.column->StringAt(operand.is_constant ? 0 : i);
}

}  // namespace granite::core
