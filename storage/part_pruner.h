// PartPruner: chooses the parts and granules of a snapshot that may hold rows matching a query's
// per-column ranges (derived from its WHERE clause by the worker), in three steps:
//   1. partitions: the range of the PARTITION BY expression's column is mapped through the
//      expression (point by point for IN / =, or end by end when the expression is monotonic,
//      like toYYYYMM(EventDate)) and the snapshot's parts, sorted by partition value, are binary
//      searched: O(log parts), so choosing 1 part of 100,000 costs microseconds;
//   2. parts: every constrained column's min/max over the part;
//   3. granules: every constrained column's min/max per granule (from the marks), and the
//      sparse primary index (a key column is bounded within a granule by the index entries around
//      it when the key columns before it are constant there).
// Rows of the chosen granules still go through the filter; pruning only skips what cannot match.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "storage/part_splitter.h"
#include "storage/parts_registry.h"
#include "storage/value_range.h"

namespace granite::storage {

// Granules [begin, end) of one part.
struct GranuleRange {
  size_t begin = 0;
  size_t end = 0;
};

// The granules to read of snapshot part `part` (its index), in ascending order.
struct SelectedPart {
  size_t part = 0;
  const Part* data = nullptr;  // the part; the snapshot keeps it alive
  std::vector<GranuleRange> granules;
};

struct PruneStats {
  uint64_t parts_total = 0;
  uint64_t parts_selected = 0;
  uint64_t granules_total = 0;
  uint64_t granules_selected = 0;
};

// Selects parts and granules for one query.
// Thread-safety: immutable after construction; Select may be called concurrently.
class PartPruner {
 public:
  // `ranges` are by schema column index; `keys` gives the table's partition and sort keys.
  PartPruner(const PartSplitter& keys, ColumnRanges ranges);

  // Returns the parts of `snapshot` to read (ascending part index) and fills `stats`.
  std::vector<SelectedPart> Select(const PartsSnapshot& snapshot, PruneStats* stats) const;

  // The range of partition values the query can touch, if the partition key narrows it.
  const std::optional<ValueRange>& partition_range() const { return partition_range_; }

 private:
  // Returns the ranges of snapshot part indexes whose partitions may match, ascending.
  std::vector<GranuleRange> CandidateParts(const PartsSnapshot& snapshot) const;
  // Appends the granules of `part` that may match to `out`; false if none.
  bool SelectGranules(const Part& part, SelectedPart* out) const;

  // Constant after construction.
  ColumnRanges ranges_;
  bool impossible_ = false;  // some range is empty: nothing matches
  std::optional<ValueRange> partition_range_;
  // Schema column of every leading plain-column key expression (the sparse index's columns).
  std::vector<int> index_columns_;
};

}  // namespace granite::storage
