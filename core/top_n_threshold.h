// TopNThreshold: the running bound of a partial top-N (ORDER BY k [, ...] LIMIT n) that lets a
// thread drop rows before its fragment's filter runs. Used by FragmentPipeline (row prefilter) and
// by the worker's morsel loop (worker/top_n_morsel_filter.h: skip a morsel after reading only k).
//
// Once a thread holds n rows, the worst first key among them is a bound: a row whose first key
// orders strictly after it cannot enter that thread's top-N, whatever its other keys (n rows
// already precede it). Rows with a key equal to the bound still pass, so ties are decided by the
// full sort exactly as without the bound. Applies when the first ORDER BY key is a plain column
// reference of an integer, Date or DateTime type (floats are left out for NaN ordering) and
// 0 < LIMIT.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/block.h"
#include "core/types.h"
#include "core/value.h"
#include "core/plan/fragment.h"

namespace granite::core {

// Selects the rows that may still enter a thread's top-N.
// Thread-safety: immutable; each thread keeps its own Bound.
class TopNThreshold {
 public:
  // One thread's bound: the worst first key of its current top-N, once it holds `limit` rows.
  struct Bound {
    bool set = false;
    uint64_t bits = 0;  // the key's value, stored in its C++ type's bytes
  };

  // Returns the threshold of a projecting fragment with ORDER BY and LIMIT, or nullopt when it
  // does not apply (see the file comment).
  static std::optional<TopNThreshold> For(const plan::Fragment& fragment);

  // The input (source) column the first key reads, and the projected column that holds it.
  size_t input_column() const { return input_column_; }
  size_t projected_column() const { return projected_column_; }
  TypeId type() const { return type_; }

  // Returns the number of rows of `key` that may enter under `bound`; when `mask` is not null it
  // is resized to key.size() and set to 1 for those rows, 0 for the others. An unset bound passes
  // every row. REQUIRES: key.type() == type().
  size_t Select(const Column& key, const Bound& bound, std::vector<uint8_t>* mask) const;

  // Returns false when no value in [min, max] — a granule's bounds in storage's form (int64_t for
  // signed keys, uint64_t for unsigned ones, Date and DateTime) — can enter under `bound`; true
  // otherwise, also for an unset bound or bounds of another form.
  bool RangeMayEnter(const Value& min, const Value& max, const Bound& bound) const;

  // Sets `bound` to the worst key of `top_keys`, the first-key column of a thread's current top-N.
  // REQUIRES: top_keys holds exactly `limit` rows and top_keys.type() == type().
  void Tighten(const Column& top_keys, Bound* bound) const;

 private:
  TopNThreshold() = default;

  // Constant after construction.
  size_t input_column_ = 0;
  size_t projected_column_ = 0;
  TypeId type_ = TypeId::kUInt64;
  bool descending_ = false;
};

}  // namespace granite::core
