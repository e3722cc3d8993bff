#include "storage/merge_selector.h"

#include <algorithm>

namespace granite::storage {

std::optional<MergeRun> SelectMerge(const std::vector<MergeCandidate>& candidates,
                                    const MergeLimits& limits) {
  std::optional<MergeRun> best;
  double best_cost = 0;
  for (size_t begin = 0; begin < candidates.size(); ++begin) {
    uint64_t sum = 0, largest = 0;
    for (size_t end = begin; end < candidates.size() && end - begin < limits.max_parts; ++end) {
      const MergeCandidate& part = candidates[end];
      if (!part.available) break;
      sum += part.bytes;
      largest = std::max(largest, part.bytes);
      if (sum > limits.max_bytes) break;
      size_t count = end - begin + 1;
      if (count < 2) continue;
      if (static_cast<double>(largest) > limits.max_ratio * static_cast<double>(sum - largest)) {
        continue;
      }
      // Bytes written per part removed; ties go to the longer run (fewer merges later).
      double cost = static_cast<double>(sum) / static_cast<double>(count - 1);
      if (!best || cost < best_cost ||
          (cost == best_cost && count > best->end - best->begin)) {
        best = MergeRun{begin, end + 1};
        best_cost = cost;
      }
    }
  }
  return best;
}

}  // namespace granite::storage
