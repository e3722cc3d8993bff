// KeyRefGrouper must number groups exactly as an Aggregator merging the same blocks does
// (first appearance), for string and mixed keys, across inputs.
#include "coordinator/exec/key_ref_grouper.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/aggregation/aggregator.h"

namespace granite::coordinator {
namespace {

using core::TypeId;

// A partial block of (String, UInt16, String) keys and count(): `rows` rows, values repeating.
core::Block Partial(uint64_t seed, size_t rows) {
  auto a = std::make_shared<core::Column>(TypeId::kString);
  auto b = std::make_shared<core::Column>(TypeId::kUInt16);
  auto c = std::make_shared<core::Column>(TypeId::kString);
  for (size_t i = 0; i < rows; ++i) {
    uint64_t v = (i * 7919 + seed * 31) % 997;
    a->AppendString(v % 5 == 0 ? std::string() : "http://example.com/" + std::to_string(v % 311));
    b->Append<uint16_t>(static_cast<uint16_t>(v % 3));
    // "ab" + "c" and "a" + "bc": the same bytes split differently must be different groups.
    c->AppendString(v % 2 ? "bc" : "c");
  }
  auto aggregator = std::move(*core::Aggregator::Create(
      {TypeId::kString, TypeId::kUInt16, TypeId::kString}, {{"count", {}}}));
  EXPECT_TRUE(aggregator->Add({a, b, c}, {{}}, rows).ok());
  return aggregator->Partial();
}

TEST(KeyRefGrouperTest, SameGroupsAsAggregatorMerge) {
  std::vector<core::Block> inputs = {Partial(1, 3000), core::Block(), Partial(2, 2000),
                                     Partial(3, 10)};
  core::AggregatorOptions options;
  options.sparse = true;
  auto aggregator = std::move(*core::Aggregator::Create(
      {TypeId::kString, TypeId::kUInt16, TypeId::kString}, {{"count", {}}}, options));
  std::vector<std::vector<uint32_t>> want(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].rows() == 0) continue;
    ASSERT_TRUE(aggregator->Merge(inputs[i]).ok());
    want[i].assign(aggregator->merged_groups().begin(),
                   aggregator->merged_groups().begin() + inputs[i].rows());
  }
  KeyRefGrouper grouper(3);
  std::vector<std::vector<uint32_t>> got = grouper.Assign(inputs);
  EXPECT_EQ(grouper.groups(), aggregator->size());
  EXPECT_GT(grouper.groups(), 100u);
  EXPECT_EQ(got, want);
}

TEST(KeyRefGrouperTest, SplitStringsAreDistinctGroups) {
  auto a = std::make_shared<core::Column>(TypeId::kString);
  auto b = std::make_shared<core::Column>(TypeId::kString);
  for (auto [x, y] : {std::pair{"ab", "c"}, {"a", "bc"}, {"ab", "c"}, {"", "abc"}, {"abc", ""}}) {
    a->AppendString(x);
    b->AppendString(y);
  }
  core::Block block;
  block.columns = {a, b};
  KeyRefGrouper grouper(2);
  std::vector<std::vector<uint32_t>> got = grouper.Assign({block});
  EXPECT_EQ(got, (std::vector<std::vector<uint32_t>>{{0, 1, 0, 2, 3}}));
  EXPECT_EQ(grouper.groups(), 4u);
}

}  // namespace
}  // namespace granite::coordinator
