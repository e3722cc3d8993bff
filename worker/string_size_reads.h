// StringSizeReads: lets a scan read a String column's sizes instead of its characters when the
// fragment only ever asks how long its values are. FragmentExecutor applies it to a copy of the
// fragment before compiling it; MorselSource then reads those columns with
// Part::ReadStringSizes (the length prefix of each granule, decompressed alone) as UInt64.
//
// Size-only uses of a String source column c (the only ones that qualify it):
//   length(c)                      -> c as UInt64
//   empty(c), c = '', '' = c       -> equals(c, 0)
//   notEmpty(c), c != '', '' != c  -> notEquals(c, 0)
// One other use of c (a projection, LIKE, a group key, ...) keeps it a String everywhere.
// WHERE URL <> '' ... AVG(length(URL)) then never decompresses a URL byte.
#pragma once

#include <vector>

#include "granite/worker/v1/plan.pb.h"

namespace granite::worker {

// Rewrites the filter, projections, group keys and aggregate arguments of `fragment` so that every
// String source column used only through its size reads as its sizes, and returns, per source
// column position, whether it now does. Leaves `fragment` unchanged when no column qualifies.
// The caller must still prune parts with the original filter: the rewritten one compares sizes.
std::vector<bool> ReadStringsAsSizes(granite::worker::v1::Fragment* fragment);

}  // namespace granite::worker
