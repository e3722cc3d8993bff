// MergeSelector: chooses which parts of one partition to merge next (size-tiered).
//
// Candidates are the partition's active parts in block order; a merge takes a contiguous run of
// them (so the result's block range covers exactly its sources) of 2 to max_parts parts, none of
// them already merging, whose total stays under max_bytes. A run qualifies when its largest part
// is at most `max_ratio` times the rest together, so parts of similar size merge and a big part
// is not rewritten to absorb a small one: each row is rewritten O(log(table size / insert size))
// times. Among qualifying runs the one with the least bytes per part removed wins, which prefers
// many small parts over a few large ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace granite::storage {

struct MergeLimits {
  size_t max_parts = 10;                   // parts per merge
  uint64_t max_bytes = uint64_t{1} << 30;  // uncompressed bytes of the result
  double max_ratio = 2.0;                  // largest part vs the others together
};

// One part of a partition, in block order.
struct MergeCandidate {
  uint64_t bytes = 0;      // uncompressed bytes
  bool available = true;   // false: in a running merge, or next to a block still being committed
};

// A run of candidates [begin, end).
struct MergeRun {
  size_t begin = 0;
  size_t end = 0;
};

// Returns the run to merge next, or nullopt when no run qualifies.
std::optional<MergeRun> SelectMerge(const std::vector<MergeCandidate>& candidates,
                                    const MergeLimits& limits);

}  // namespace granite::storage
