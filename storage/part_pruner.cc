#include "storage/part_pruner.h"

#include <algorithm>

namespace granite::storage {
namespace {

// Maps a range of a column through a partition expression of it; nullopt when it cannot.
std::optional<ValueRange> MapThrough(const KeyExpression& key, const ValueRange& range) {
  if (key.plain_column() >= 0) return range;
  if (range.points()) {
    std::vector<core::Value> mapped;
    for (const core::Value& point : *range.points()) {
      absl::StatusOr<core::Value> value = key.EvaluateAt(point);
      if (!value.ok()) return std::nullopt;  // e.g. a value outside the column's type
      mapped.push_back(*std::move(value));
    }
    return ValueRange::Points(std::move(mapped));
  }
  if (!key.monotonic()) return std::nullopt;
  // A monotonic (not strictly) function maps x < b to f(x) <= f(b): the ends become closed.
  ValueRange out;
  if (range.low()) {
    absl::StatusOr<core::Value> low = key.EvaluateAt(*range.low());
    if (low.ok()) out.IntersectWith(ValueRange::AtLeast(*std::move(low), true));
  }
  if (range.high()) {
    absl::StatusOr<core::Value> high = key.EvaluateAt(*range.high());
    if (high.ok()) out.IntersectWith(ValueRange::AtMost(*std::move(high), true));
  }
  return out;
}

// Returns the comparison of a part's partition value with `bound`, or nullopt.
std::optional<int> ComparePartition(const Part& part, const core::Value& bound) {
  return CompareValues(part.partition().value, bound);
}

}  // namespace

PartPruner::PartPruner(const PartSplitter& keys, ColumnRanges ranges) : ranges_(std::move(ranges)) {
  for (auto it = ranges_.begin(); it != ranges_.end();) {
    if (it->second.empty()) impossible_ = true;
    it = it->second.unbounded() ? ranges_.erase(it) : std::next(it);
  }
  const KeyExpression* partition = keys.partition_key();
  if (partition != nullptr && partition->source_column() >= 0) {
    auto it = ranges_.find(partition->source_column());
    if (it != ranges_.end()) partition_range_ = MapThrough(*partition, it->second);
  }
  for (const auto& key : keys.sort_key()) {
    if (key->plain_column() < 0) break;
    index_columns_.push_back(key->plain_column());
  }
}

std::vector<GranuleRange> PartPruner::CandidateParts(const PartsSnapshot& snapshot) const {
  const PartList& parts = snapshot.parts;
  std::vector<GranuleRange> out;  // here: ranges of part indexes
  if (parts.empty()) return out;
  // Partition values of one table share one type, so if the first one compares with the bounds
  // every one does; otherwise partitions are not pruned.
  auto comparable = [&](const core::Value& bound) {
    return ComparePartition(*parts[0], bound).has_value();
  };
  if (!partition_range_ || partition_range_->unbounded()) {
    out.push_back({0, parts.size()});
    return out;
  }
  const ValueRange& range = *partition_range_;
  if (range.empty()) return out;
  // The first part whose partition is not below `bound` (or, with `inclusive`, not at or below).
  auto first_not_below = [&](const core::Value& bound, bool past_equal) {
    return parts.PartitionPoint([&](const Part& part) {
      int c = *ComparePartition(part, bound);
      return c < 0 || (past_equal && c == 0);
    });
  };
  if (range.points()) {
    for (const core::Value& point : *range.points()) {
      if (!comparable(point)) return {{0, parts.size()}};
      size_t begin = first_not_below(point, false);
      size_t end = first_not_below(point, true);
      if (begin < end) out.push_back({begin, end});
    }
    return out;  // points are sorted and distinct, so the ranges are too
  }
  if ((range.low() && !comparable(*range.low())) || (range.high() && !comparable(*range.high()))) {
    return {{0, parts.size()}};
  }
  size_t begin = range.low() ? first_not_below(*range.low(), !range.low_inclusive()) : 0;
  size_t end = range.high() ? first_not_below(*range.high(), range.high_inclusive()) : parts.size();
  if (begin < end) out.push_back({begin, end});
  return out;
}

bool PartPruner::SelectGranules(const Part& part, SelectedPart* out) const {
  for (const auto& [column, range] : ranges_) {
    const GranuleBounds& bounds = part.column_bounds(column);
    if (bounds.present && !range.MayOverlap(bounds.min, bounds.max)) return false;
  }
  const PrimaryIndex& index = part.primary_index();
  size_t granules = part.granule_count();
  for (size_t g = 0; g < granules; ++g) {
    bool may_match = true;
    for (const auto& [column, range] : ranges_) {
      const GranuleBounds& bounds = part.granule_bounds(column, g);
      if (bounds.present) {
        may_match = range.MayOverlap(bounds.min, bounds.max);
      } else {
        // No min/max (NaN, long strings): the sparse index bounds a key column whose preceding
        // key columns do not change within the granule.
        for (size_t k = 0; k < index_columns_.size() && k < index.values.size(); ++k) {
          if (index_columns_[k] == column) {
            may_match = range.MayOverlap(index.values[k][g], index.values[k][g + 1]);
            break;
          }
          if (!(index.values[k][g] == index.values[k][g + 1])) break;
        }
      }
      if (!may_match) break;
    }
    if (!may_match) continue;
    if (!out->granules.empty() && out->granules.back().end == g) {
      ++out->granules.back().end;
    } else {
      out->granules.push_back({g, g + 1});
    }
  }
  return !out->granules.empty();
}

std::vector<SelectedPart> PartPruner::Select(const PartsSnapshot& snapshot,
                                             PruneStats* stats) const {
  stats->parts_total = snapshot.parts.size();
  stats->granules_total = snapshot.granules;
  stats->parts_selected = 0;
  stats->granules_selected = 0;
  std::vector<SelectedPart> selected;
  if (impossible_) return selected;
  for (const GranuleRange& candidates : CandidateParts(snapshot)) {
    auto it = snapshot.parts.iterator_at(candidates.begin);
    for (size_t i = candidates.begin; i < candidates.end; ++i, ++it) {
      const Part& part = **it;
      SelectedPart candidate;
      candidate.part = i;
      candidate.data = it->get();
      if (ranges_.empty()) {
        if (part.granule_count() > 0) candidate.granules.push_back({0, part.granule_count()});
      } else if (!SelectGranules(part, &candidate)) {
        continue;
      }
      if (candidate.granules.empty()) continue;
      for (const GranuleRange& range : candidate.granules) {
        stats->granules_selected += range.end - range.begin;
      }
      ++stats->parts_selected;
      selected.push_back(std::move(candidate));
    }
  }
  return selected;
}

}  // namespace granite::storage
