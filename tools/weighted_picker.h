// Draws an index from a fixed table of weights (a discrete distribution), deterministically from
// one uniform draw. Used by the hits generator for every categorical column.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tools/split_mix_rng.h"

namespace granite::tools {

// Picks index i with probability weights[i] / sum(weights) by binary search over the cumulative
// sums. Thread-safety: immutable after construction; Pick() is const and may run concurrently.
// REQUIRES: at least one weight is positive; no weight is negative.
class WeightedPicker {
 public:
  WeightedPicker() = default;
  explicit WeightedPicker(const std::vector<double>& weights) {
    cumulative_.reserve(weights.size());
    double total = 0;
    for (double w : weights) {
      total += w;
      cumulative_.push_back(total);
    }
    total_ = total;
  }

  // Returns an index in [0, size()) drawn with the configured weights.
  size_t Pick(SplitMixRng& rng) const { return PickAt(rng.Unit()); }

  // Returns the index whose cumulative interval contains u * total. REQUIRES: 0 <= u < 1.
  size_t PickAt(double u) const {
    double x = u * total_;
    size_t i = std::upper_bound(cumulative_.begin(), cumulative_.end(), x) - cumulative_.begin();
    return std::min(i, cumulative_.size() - 1);
  }

  size_t size() const { return cumulative_.size(); }

 private:
  std::vector<double> cumulative_;
  double total_ = 0;
};

}  // namespace granite::tools
