// KeyRefGrouper: exact GROUP BY of the key columns of partial blocks without copying a key.
// The coordinator's late finalization (late_finalizer.h) needs, per bucket, only each input row's
// group id to merge the ORDER BY aggregates; an Aggregator would serialize multi-column keys
// (e.g. five keys, two of them long strings) and copy every new key into
// its arena. This grouper hashes each row's keys in place, keeps the first row of each group as
// its representative and compares key values only on a hash match: group ids are dense and in
// order of first appearance (inputs in order, rows in order), as Aggregator::merged_groups.
#pragma once

#include <cstdint>
#include <vector>

#include "core/block.h"
#include "core/types.h"

namespace granite::coordinator {

// Fixed-width keys compare by their bytes: not for Float keys (-0.0 and 0.0 are one group).
// Thread-safety: none (one bucket on one thread).
class KeyRefGrouper {
 public:
  // `key_count`: the leading columns of every input that are the keys.
  explicit KeyRefGrouper(size_t key_count) : key_count_(key_count) {}

  // Assigns the rows of `inputs` (blocks with the same key column types; empty blocks allowed)
  // to groups: returns per input, per row, its group id. The blocks must outlive the call only.
  // REQUIRES: called once; every non-empty input has at least key_count columns.
  std::vector<std::vector<uint32_t>> Assign(const std::vector<core::Block>& inputs);

  // The number of groups after Assign.
  size_t groups() const { return firsts_.size(); }

 private:
  struct Ref {
    uint32_t input;
    uint32_t row;
  };
  // Sets (*hashes)[row] to the hash of each row's keys, column by column.
  void HashRows(const core::Block& block, std::vector<uint64_t>* hashes) const;
  bool SameKeys(const core::Block& a, size_t row_a, const core::Block& b, size_t row_b) const;

  const size_t key_count_;
  std::vector<Ref> firsts_;     // per group: its first row
  std::vector<size_t> widths_;  // per key column: bytes per value, 0 for String
};

}  // namespace granite::coordinator
