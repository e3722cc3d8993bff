// ValueRange: the values of one column that a WHERE condition can accept — an interval with open,
// closed or missing ends, optionally narrowed to a finite set of points (IN, =). Pruning
// (storage/part_pruner.h) compares ranges with the min/max of parts and granules and with
// partition values; values are in GranuleBounds form (int64 / uint64 / double / string) and
// compare across the numeric forms exactly. Every question a range cannot answer (a string
// against a number, NaN) is answered "may match", so pruning never drops a matching row.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/value.h"

namespace granite::storage {

// Returns <0, 0 or >0 as a is less than, equal to or greater than b, or nullopt when they do not
// compare (a string and a number, a NaN).
std::optional<int> CompareValues(const core::Value& a, const core::Value& b);

// A set of values of one column.
// Thread-safety: a value type; const methods may be called concurrently.
class ValueRange {
 public:
  // Every value.
  ValueRange() = default;
  static ValueRange Point(core::Value value);
  static ValueRange Points(std::vector<core::Value> values);
  // `value` and above (inclusive) or strictly above.
  static ValueRange AtLeast(core::Value value, bool inclusive);
  static ValueRange AtMost(core::Value value, bool inclusive);

  // Narrows this range to the values also in `other`.
  void IntersectWith(const ValueRange& other);
  // Widens this range to cover `other` too (the smallest interval or point set covering both).
  void UniteWith(const ValueRange& other);

  // True when no value can match.
  bool empty() const { return empty_; }
  // True when every value matches.
  bool unbounded() const { return !empty_ && !low_ && !high_ && !points_; }
  // True when some value v with min <= v <= max may be in the range.
  bool MayOverlap(const core::Value& min, const core::Value& max) const;

  const std::optional<core::Value>& low() const { return low_; }
  const std::optional<core::Value>& high() const { return high_; }
  bool low_inclusive() const { return low_inclusive_; }
  bool high_inclusive() const { return high_inclusive_; }
  // The finite set of values, sorted and unique, when the range is one.
  const std::optional<std::vector<core::Value>>& points() const { return points_; }

  std::string DebugString() const;

 private:
  // Drops points outside [low, high] and marks the range empty when nothing is left.
  void Normalize();

  bool empty_ = false;
  std::optional<core::Value> low_;
  bool low_inclusive_ = true;
  std::optional<core::Value> high_;
  bool high_inclusive_ = true;
  std::optional<std::vector<core::Value>> points_;
};

// Ranges of several columns that all must hold, by schema column index.
using ColumnRanges = std::map<int, ValueRange>;

}  // namespace granite::storage
