// Planner rules that use value ranges (value_range.h) and data placement to choose cheaper
// aggregation states. Applied by the binder to a bound aggregating fragment, after its source
// columns are known. Each rule only sets plan fields; the worker and the coordinator act on them.
//
//   Bitmap distinct state (AggregateCall.bitmap_base / bitmap_bits): uniqExact (count(DISTINCT))
//   of one integer argument whose range holds at most kBitmapMaxBits values without GROUP BY keys,
//   or at most kBitmapMaxBitsPerGroup with keys (a bitmap per group). One bit per value; the merge
//   is an OR and the result a popcount.
//
//   Bounded GROUP BY key (Fragment.direct_key / direct_key_base): one integer key whose range holds
//   at most 65536 values groups through a direct-indexed array at (value - min), whatever its
//   width (Aggregator kDirect16).
//
//   Distinct counts finished on the workers (AggregateCall.disjoint_across_workers): uniq or
//   uniqExact whose argument is a plain column whose values on different workers are disjoint:
//     (a) a table-function column declared distinct (`number` of numbers / numbers_mt,
//         `generate_series`; core/table_functions/table_function.h): worker i generates only rows
//         [R*i/n, R*(i+1)/n) of its R rows (SliceOf), so no value is on two workers;
//     (b) the table's whole single-column sharding key, the table sharded for the current worker
//         count (IsWholeShardingKey): INSERT routed every row with a given value to one worker.
//   Then every group's distinct count is the sum of the workers' counts: each worker finalizes its
//   states to counts and the coordinator adds them. uniqExact stays exact. uniq becomes a sum of
//   per-worker estimates, each with uniques_hash_set.h's error bound (relative standard error at
//   most 0.56%, no sampling below 2^16 values) on its own count; the errors are independent, so the
//   sum's relative error stays within that bound (for w similar counts its standard error is about
//   1/sqrt(w) of it).
//   An expression of such a column (number % 7) is NOT disjoint, nor is a sharding key when the
//   worker count changed since CREATE; those states merge normally.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/settings/settings.h"
#include "granite/worker/v1/plan.pb.h"
#include "granite/worker/v1/worker.pb.h"

namespace granite::coordinator {

// SETTINGS use_value_ranges = 0 turns these rules (and the worker's `0 + e` key folding) off.

inline constexpr uint64_t kBitmapMaxBits = uint64_t{1} << 26;
inline constexpr uint64_t kBitmapMaxBitsPerGroup = uint64_t{1} << 12;
inline constexpr uint64_t kDirectKeyMaxValues = uint64_t{1} << 16;

// Applies the rules above to an aggregating `fragment` (its source columns set). `schema` is the
// table read (null for numbers(N)); `worker_count` the current worker count.
void PlanBoundedAggregation(granite::worker::v1::Fragment* fragment,
                            const granite::worker::v1::TableSchema* schema, size_t worker_count,
                            const core::Settings& settings);

}  // namespace granite::coordinator
