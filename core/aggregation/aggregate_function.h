// AggregateFunction: the interface every aggregate (count, sum, avg, min, max, any, uniqExact,
// uniq) implements for hash aggregation. One object holds the states of ONE aggregate for ALL
// groups of one Aggregator, stored column-wise (a state vector indexed by dense group id), so the
// Aggregator makes one virtual call per batch per aggregate and the loop over rows inside is a
// template with no virtual call.
//
// Partial states leave the process as ordinary columns (StateTypes()) inside a Block, are merged
// by MergeBatch() in another Aggregator (possibly another process), and are turned into results by
// Finalize(). Merging is order-independent up to floating-point rounding (and `any`, which keeps
// whichever value it saw first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/column.h"
#include "core/types.h"

namespace granite::core {

// Names one aggregate call of a query after resolution: the canonical function name (as returned
// by ResolveAggregate, e.g. "uniqExact" for countDistinct) and the types of its arguments.
struct AggregateSpec {
  std::string name;
  std::vector<TypeId> arg_types;
  // uniqExact of an integer: > 0 keeps a bitmap of bitmap_bits bits per group, bit
  // (WidenKey(x) - bitmap_base); the planner proved every value lies in that range.
  uint64_t bitmap_base = 0;
  uint64_t bitmap_bits = 0;
  // uniq / uniqExact in a worker whose argument values are disjoint from every other worker's:
  // partial states are written with WriteDisjointStates (counts the receiver adds up).
  bool disjoint = false;
};

// Holds and updates the states of one aggregate for every group of an Aggregator.
// Thread-safety: none; owned by one Aggregator, used by one thread at a time.
// Invariants: every method taking group ids REQUIRES each id < the last Resize() argument.
class AggregateFunction {
 public:
  virtual ~AggregateFunction() = default;

  // Returns the column types of the partial state (one or more columns).
  virtual std::vector<TypeId> StateTypes() const = 0;
  // Returns the type of the finalized result column.
  virtual TypeId ResultType() const = 0;
  // Returns the number of groups with a state.
  virtual size_t groups() const = 0;

  // Grows the states to `groups` groups; new groups start with the empty state.
  // REQUIRES: groups >= groups().
  virtual void Resize(size_t groups) = 0;
  // Makes room for `groups` groups without adding any (a presized table's states then grow
  // without copies). Default: nothing.
  virtual void Reserve(size_t groups) {}

  // Adds row i of the argument columns to group group_ids[i], for i < rows.
  // REQUIRES: args match the spec's argument types and hold at least `rows` rows.
  virtual void AddBatch(const uint32_t* group_ids, const std::vector<ColumnPtr>& args,
                        size_t rows) = 0;
  // Adds rows [0, rows) all to `group` (the no-key case: lets the loop keep the state in registers).
  virtual void AddBatchOneGroup(uint32_t group, const std::vector<ColumnPtr>& args, size_t rows) = 0;
  // Adds row selection[i] of the argument columns to group group_ids[i], for i < count: AddBatch
  // of the rows a WHERE filter kept, read in place (Aggregator::AddSelected). The default gathers
  // the selected rows (Column::Take) and calls AddBatch; functions with a cheap per-row update
  // override it to read through the selection instead.
  // REQUIRES: as AddBatch; every selection[i] lies in every argument column.
  virtual void AddBatchSelected(const uint32_t* group_ids, const std::vector<ColumnPtr>& args,
                                const uint32_t* selection, size_t count) {
    std::vector<ColumnPtr> gathered;
    gathered.reserve(args.size());
    for (const ColumnPtr& arg : args) {
      gathered.push_back(std::make_shared<Column>(arg->Take(selection, count)));
    }
    AddBatch(group_ids, gathered, count);
  }

  // Merges partial state row i (columns states[0 .. StateTypes().size()), types StateTypes())
  // into group group_ids[i]. Fails with CORRUPTED_DATA on malformed serialized states.
  virtual absl::Status MergeBatch(const uint32_t* group_ids, const ColumnPtr* states,
                                  size_t rows) = 0;

  // Appends the states of groups[0 .. count) in that order to out[0 .. StateTypes().size()).
  // REQUIRES: out[j] has type StateTypes()[j].
  virtual void WriteStates(const uint32_t* groups, size_t count, Column* const* out) const = 0;

  // Writes states like WriteStates, in a form that can be finalized but never merged with another
  // non-empty state of the same group (e.g. uniq sends its estimate, not its hashes). Used when
  // this process holds the only state of every group (a single worker). Default: WriteStates.
  virtual void WriteFinalOnlyStates(const uint32_t* groups, size_t count,
                                    Column* const* out) const {
    WriteStates(groups, count, out);
  }

  // Writes states like WriteStates, as counts that the receiver adds to the other states of the
  // group instead of merging values (uniq, uniqExact: version 3). REQUIRES: this process holds
  // the only state of each group in it (threads merged) and its values are disjoint from those of
  // every other state the receiver merges into the group. Default: WriteStates.
  virtual void WriteDisjointStates(const uint32_t* groups, size_t count,
                                   Column* const* out) const {
    WriteStates(groups, count, out);
  }

  // Appends the state of every group g < groups() to the state columns of bucket bucket_of[g]
  // (out[b][0 .. StateTypes().size()), as WriteStates would, in increasing g): the states are
  // read once, in order (bucket_scatter.h). Only for functions whose WriteFinalOnlyStates and
  // WriteDisjointStates are WriteStates. Returns false, having written nothing, when the
  // function has no such path (the caller then uses WriteStates per bucket).
  // REQUIRES: bucket_rows[b] counts the groups with bucket_of[g] == b.
  virtual bool WriteStatesByBucket(const uint8_t* bucket_of, const uint32_t* bucket_rows,
                                   Column* const* const* out) const {
    return false;
  }

  // Merges, in memory, src's state of group src_groups[i] into group dst_groups[i], i < count.
  // REQUIRES: src was created from the same AggregateSpec (another Aggregator's function), and
  // each dst group appears once per call.
  // Touches only the named states of src, so calls naming disjoint src groups may run concurrently
  // on one src; those states are left valid but unspecified (they may be moved from). The merged
  // states may point into memory src owns (arenas): src must outlive them (until they are
  // written out or cleared).
  virtual void MergeFrom(const uint32_t* dst_groups, AggregateFunction& src,
                         const uint32_t* src_groups, size_t count) = 0;

  // Splitting one big state into kBucketCount disjoint parts by value hash lets COUNT(DISTINCT x)
  // without GROUP BY merge in parallel. Returns true if this function's states split so.
  virtual bool SplitsIntoParts() const { return false; }
  // Prepares src-side states for MergePartFrom (e.g. builds the per-part index). Call once per
  // function object before concurrent MergePartFrom calls read it.
  virtual void PrepareParts() {}
  // Merges part `part` (< kBucketCount) of src's state src_group into dst_group. Functions that
  // do not split carry their whole state in part 0 and nothing in the others. Concurrency as
  // MergeFrom, per (group, part).
  virtual void MergePartFrom(uint32_t dst_group, AggregateFunction& src, uint32_t src_group,
                             uint32_t part) {
    if (part == 0) MergeFrom(&dst_group, src, &src_group, 1);
  }
  // Merges states known to share no value with this object's (different parts of one split
  // state): exact distinct counts just add up. Default: MergeFrom.
  virtual void MergeDisjointFrom(const uint32_t* dst_groups, AggregateFunction& src,
                                 const uint32_t* src_groups, size_t count) {
    MergeFrom(dst_groups, src, src_groups, count);
  }

  // Returns the heap bytes held by states beyond the fixed per-group part (distinct-value sets,
  // strings), so a merge of few but heavy states (uniq by 10000 keys) is still parallel.
  // O(groups). Default: 0.
  virtual size_t StateBytes() const { return 0; }

  // Appends the result of every group 0 .. groups() - 1 to `out` (type ResultType()).
  virtual void Finalize(Column* out) const = 0;

  // Drops every state (groups() becomes 0) and frees the memory they held.
  virtual void Clear() = 0;
};

// The common MergeBatch of states serialized one per row of a String column: calls
// merge_one(&states[group_ids[i]], column.StringAt(i)) for each row, stopping at the first error.
template <typename State, typename MergeOne>
absl::Status MergeSerializedRows(const uint32_t* group_ids, const Column& column, size_t rows,
                                 State* states, MergeOne merge_one) {
  for (size_t i = 0; i < rows; ++i) {
    absl::Status status = merge_one(&states[group_ids[i]], column.StringAt(i));
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace granite::core
