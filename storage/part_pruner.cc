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

// Orders a partition by its value against a bound: <0 when the partition is below.
int ComparePartition(const PartsSnapshot::Partition& partition, const core::Value& bound) {
  std::optional<int> c = CompareValues(partition.value.value, bound);
  return c ? *c : 0;  // incomparable: treat as inside, never skip
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

std::vector<size_t> PartPruner::CandidatePartitions(const PartsSnapshot& snapshot) const {
  const auto& partitions = snapshot.partitions;
  std::vector<size_t> out;
  if (!partition_range_ || partition_range_->unbounded()) {
    out.resize(partitions.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = i;
    return out;
  }
  const ValueRange& range = *partition_range_;
  if (range.empty()) return out;
  auto first_not_below = [&](const core::Value& bound) {
    return std::lower_bound(partitions.begin(), partitions.end(), bound,
                            [](const auto& p, const auto& v) { return ComparePartition(p, v) < 0; }) -
           partitions.begin();
  };
  if (range.points()) {
    for (const core::Value& point : *range.points()) {
      size_t i = first_not_below(point);
      for (; i < partitions.size() && ComparePartition(partitions[i], point) == 0; ++i) {
        out.push_back(i);
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  size_t i = range.low() ? first_not_below(*range.low()) : 0;
  for (; i < partitions.size(); ++i) {
    const core::Value& value = partitions[i].value.value;
    if (!range.MayOverlap(value, value)) {
      std::optional<int> c = range.high() ? CompareValues(value, *range.high()) : std::nullopt;
      if (c && *c > 0) break;  // past the upper end
      continue;                // an excluded low end
    }
    out.push_back(i);
  }
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
  for (size_t p : CandidatePartitions(snapshot)) {
    const PartsSnapshot::Partition& partition = snapshot.partitions[p];
    for (size_t i = partition.begin; i < partition.end; ++i) {
      const Part& part = *snapshot.parts[i];
      SelectedPart candidate;
      candidate.part = i;
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
