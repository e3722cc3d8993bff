// Gather: the loop behind Column::AppendTaken and every aggregate's WriteStates, which read
// values at random indexes (the keys and states of GROUP BY groups, emitted in hash-bucket order).
// Past the caches each read is a miss; prefetching kAhead reads ahead overlaps them. A source of
// kFarBytes or more (millions of groups) takes the prefetching loop; a small one the plain loop.
#pragma once

#include <cstddef>
#include <cstdint>

namespace granite::core {

// Calls take(values[indexes[i]], i) for i in [0, count).
// REQUIRES: every index < value_count.
template <typename Value, typename Take>
inline void Gather(const Value* values, size_t value_count, const uint32_t* indexes, size_t count,
                   Take&& take) {
  constexpr size_t kFarBytes = size_t{8} << 20;
  constexpr size_t kAhead = 16;
  size_t i = 0;
  if (value_count * sizeof(Value) >= kFarBytes && count > kAhead) {
    for (; i + kAhead < count; ++i) {
      __builtin_prefetch(&values[indexes[i + kAhead]]);
      take(values[indexes[i]], i);
    }
  }
  for (; i < count; ++i) take(values[indexes[i]], i);
}

}  // namespace granite::core
