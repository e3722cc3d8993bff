// Shared by the FragmentPipeline tests: a one-key count() fragment and blocks of distinct keys.
// Test-only.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "absl/status/statusor.h"
#include "core/block.h"
#include "core/column.h"
#include "core/plan/fragment.h"
#include "core/wire/plan_codec.h"
#include "granite/worker/v1/plan.pb.h"

namespace granite::core::test {

// SELECT c0, count() FROM input GROUP BY c0 with the given settings, on `workers` workers.
inline plan::Fragment GroupByFragment(const std::map<std::string, std::string>& settings,
                                      uint32_t workers = 2) {
  plan::Fragment fragment;
  fragment.worker_count = workers;
  plan::Aggregate& aggregate = fragment.aggregate.emplace();
  plan::Expr key;
  key.kind = plan::Expr::Kind::kColumn;
  key.type = TypeId::kUInt64;
  key.column = 0;
  aggregate.keys.push_back(key);
  plan::AggregateCall count;
  count.name = "count";
  aggregate.calls.push_back(count);
  EXPECT_TRUE(fragment.settings.Apply(settings).ok());
  return fragment;
}

// The same fragment as it reaches a worker over the wire with `settings` as text: the decode is
// where a value of the wrong form is refused.
inline absl::StatusOr<plan::Fragment> GroupByFragmentFromWire(
    const std::map<std::string, std::string>& settings, uint32_t workers = 2) {
  granite::worker::v1::Fragment proto;
  wire::ToProto(GroupByFragment({}, workers), &proto);
  for (const auto& [name, value] : settings) (*proto.mutable_settings())[name] = value;
  return wire::FromProto(proto);
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
