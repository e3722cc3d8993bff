// Value ranges: the [min, max] an integer expression of a bound plan (pb::Expr) can take, derived
// from the ranges of its inputs. The planner uses them to pick bounded layouts: a direct-indexed
// GROUP BY key (range size <= 65536) and a bitmap distinct state (coordinator/planner/distinct_planner.h).
//
// Rules (a, b ranges of the arguments, c a constant; all arithmetic in 128-bit integers):
//   column            the range the caller gives for that source column (numbers(N): `number` is
//                     [0, N-1]); else the range of the column's type.
//   literal           [c, c].
//   a + b, a - b      [a.min + b.min, a.max + b.max], [a.min - b.max, a.max - b.min].
//   a * b             the min and max of the four corner products (only when every bound has
//                     magnitude < 2^63, so products fit in 128 bits).
//   intDiv(a, c)      c != 0, integer a: a / c truncated toward zero, as the engine computes it;
//                     monotone in a, so the bounds map to the bounds.
//   a % c             c != 0, integer a (the result takes the dividend's sign, like C++ and
//                     ClickHouse): a >= 0 -> [0, |c|-1] (or a itself when a.max < |c|);
//                     a <= 0 -> [-(|c|-1), 0]; otherwise [-(|c|-1), |c|-1].
//   toUIntN / toIntN / CAST(a, 'T')  a's range.
// Overflow: each function's result is computed in its result type (or, for intDiv and %, in a
// 64-bit compute type) and wraps. A derived range is kept only if it lies inside the result type's
// range (and, for a signed compute type, the dividend's range lies inside Int64); otherwise no
// value could be excluded and the result is the whole range of the result type, which is always
// true. Anything else (floats, strings, other functions) has the range of its type if it is an
// integer type, and no range otherwise. Date and DateTime are integers here (their carriers).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/types.h"
#include "granite/worker/v1/plan.pb.h"

namespace granite::coordinator {

// Holds an inclusive integer range. Invariant: min <= max.
struct ValueRange {
  __int128 min = 0;
  __int128 max = 0;

  // Returns the number of values, max - min + 1.
  unsigned __int128 Size() const { return static_cast<unsigned __int128>(max - min) + 1; }
  bool Contains(const ValueRange& other) const { return min <= other.min && other.max <= max; }
  bool operator==(const ValueRange& other) const = default;
};

// Returns the range of every value of `type`, or nullopt for floats and String.
std::optional<ValueRange> TypeRange(core::TypeId type);

// Returns the range of `expr`'s values (rules above). columns[i] is the range of source column i
// when known (missing or nullopt: the column type's range).
std::optional<ValueRange> RangeOf(const granite::worker::v1::Expr& expr,
                                  const std::vector<std::optional<ValueRange>>& columns);

}  // namespace granite::coordinator
