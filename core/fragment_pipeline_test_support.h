// Shared by the FragmentPipeline tests: a one-key count() fragment and blocks of distinct keys.
// Test-only.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "core/block.h"
#include "core/column.h"
#include "granite/worker/v1/plan.pb.h"

namespace granite::core::test {

// SELECT c0, count() FROM input GROUP BY c0 with the given settings, on `workers` workers.
inline worker::v1::Fragment GroupByFragment(const std::map<std::string, std::string>& settings,
                                            uint32_t workers = 2) {
  worker::v1::Fragment fragment;
  fragment.set_aggregate(true);
  fragment.set_worker_count(workers);
  worker::v1::Expr* key = fragment.add_group_keys();
  key->set_type(static_cast<uint32_t>(TypeId::kUInt64));
  key->set_column(0);
  fragment.add_aggregates()->set_name("count");
  for (const auto& [name, value] : settings) (*fragment.mutable_settings())[name] = value;
  return fragment;
}

// Returns a one-column block of keys from .. from + count - 1 (large values: the hash table).
inline Block Keys(uint64_t from, uint64_t count) {
  auto column = std::make_shared<Column>(TypeId::kUInt64);
  for (uint64_t k = from; k < from + count; ++k) column->Append<uint64_t>(k + (uint64_t{1} << 40));
  Block block;
  block.columns.push_back(column);
  block.rows_without_columns = count;
  return block;
}

}  // namespace granite::core::test
