// The "skip unused shards" planner rule (ClickHouse's optimize_skip_unused_shards). INSERT routes
// each row of a table with a sharding key to shard hash(key values) % shard_count
// (coordinator/cluster/sharding_key.h). When the fragment's filter fixes every sharding-key
// column to a few constants (`k = 5`, `k IN (1, 2, 3)`, `(a, b) = (1, 'x')` as conjuncts of the
// WHERE), only the shards those values hash to can hold matching rows: the fragment goes to them
// alone (Fragment::shards), so a point query costs one worker round trip whatever the cluster's
// size.
//
// The rule fires only when all of these hold:
//   - the fragment reads one table whose shard_count equals the current shard count;
//   - every sharding-key column is non-Nullable and an AND-ed conjunct of the filter compares the
//     plain column with constants of its own kind (integers with an integer column, strings with
//     a String column, otherwise a constant of the column's exact type) that it can hold;
//   - the constants' combinations number at most kMaxShardKeyCombinations;
//   - they leave out at least one shard, and the query does not say SETTINGS
//     optimize_skip_unused_shards = 0.
// Unlike ClickHouse's default (0), granite turns it on: its INSERT always routes by the key, so
// no row can live on a shard its key does not hash to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "coordinator/planner/rules/rule.h"
#include "core/plan/fragment.h"
#include "core/table_schema.h"

namespace granite::coordinator {

inline constexpr size_t kMaxShardKeyCombinations = 4096;

// Returns the shards (increasing) that can hold rows of `schema` passing `fragment`'s filter when
// the table was sharded for `shard_count` shards; empty when every shard can (or the filter does
// not fix the key).
std::vector<uint32_t> ShardsForFilter(const core::plan::Fragment& fragment,
                                      const core::TableSchema& schema, size_t shard_count);

// Sets plan->fragment.shards from ShardsForFilter; returns whether it did.
bool ApplySkipUnusedShards(QueryPlan* plan, const RuleContext& context);

}  // namespace granite::coordinator
