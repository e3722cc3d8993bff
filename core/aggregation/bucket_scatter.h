// Bucket scatter: writes every group's key or state to the partial block of its hash bucket by
// reading the groups in order and appending to kBucketCount output streams (a radix partition),
// instead of gathering each bucket's groups from all over the arrays.
//
// Shape served: GROUP BY with millions of groups (two high-cardinality keys, a user id and a
// phrase) whose partial states a worker cuts into kBucketCount blocks (Aggregator::
// PartialByBucket). A gather then reads each state array once per bucket at a stride of ~256
// entries, so every read is a cache miss (perf: ~30% of a worker's CPU at 5M groups); the scatter
// reads each array once, sequentially, and keeps kBucketCount write cursors, which stay cached.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/column.h"
#include "core/hash.h"

namespace granite::core {

// Calls write(values[i], dst[bucket_of[i]], cursor) for i in [0, count), where cursor counts
// the earlier i of the same bucket. `Dst` is whatever locates a bucket's output.
template <typename Value, typename Dst, typename Write>
inline void ScatterByBucket(const Value* values, size_t count, const uint8_t* bucket_of,
                            const Dst* dst, Write&& write) {
  uint32_t cursor[kBucketCount] = {};
  for (size_t i = 0; i < count; ++i) {
    const uint8_t b = bucket_of[i];
    write(values[i], dst[b], cursor[b]++);
  }
}

// Appends row i of `src` to outs[bucket_of[i]] for every row, when src is a fixed-width, String
// or FixedString column without a null map (not an Array or Tuple); returns false, having
// written nothing, otherwise.
// REQUIRES: bucket_rows[b] counts the rows with bucket_of[i] == b; every outs[b] has src's type.
bool ScatterColumnByBucket(const Column& src, const uint8_t* bucket_of,
                           const uint32_t* bucket_rows, Column* const* outs);

}  // namespace granite::core
