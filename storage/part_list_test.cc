#include "storage/part_list.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace granite::storage {
namespace {

std::shared_ptr<const Part> FakePart(uint32_t partition, uint64_t block) {
  PartContents contents;
  contents.granule_rows = {1};
  contents.partition = {true, core::TypeId::kUInt32, uint64_t{partition}};
  PartName name{block, block, 0, std::to_string(partition)};
  return std::make_shared<const Part>(nullptr, std::make_shared<const TableSchema>(),
                                      "/nonexistent", name, std::move(contents));
}

void ExpectSame(const PartList& list, const std::vector<std::shared_ptr<const Part>>& expected) {
  ASSERT_EQ(list.size(), expected.size());
  size_t i = 0;
  for (const auto& part : list) {
    ASSERT_EQ(part, expected[i]) << "at " << i;
    ASSERT_EQ(list[i], expected[i]);
    ASSERT_EQ(*list.iterator_at(i), expected[i]);
    ++i;
  }
  EXPECT_EQ(i, expected.size());
  EXPECT_TRUE(list.iterator_at(list.size()) == list.end());
}

TEST(PartListTest, RandomChangesKeepKeyOrderAcrossChunks) {
  std::mt19937 random(7);
  std::vector<std::shared_ptr<const Part>> reference;
  PartList list;
  uint64_t block = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<std::shared_ptr<const Part>> added, removed;
    for (int i = random() % 20; i > 0; --i) added.push_back(FakePart(random() % 50, ++block));
    for (int i = random() % 8; i > 0 && !reference.empty(); --i) {
      auto victim = reference[random() % reference.size()];
      if (std::find(removed.begin(), removed.end(), victim) == removed.end()) {
        removed.push_back(victim);
      }
    }
    PartList before = list;
    list = list.With(added, removed);
    for (const auto& part : removed) {
      reference.erase(std::find(reference.begin(), reference.end(), part));
    }
    reference.insert(reference.end(), added.begin(), added.end());
    std::sort(reference.begin(), reference.end(),
              [](const auto& a, const auto& b) { return PartKeyLess(*a, *b); });
    ASSERT_NO_FATAL_FAILURE(ExpectSame(list, reference)) << "round " << round;
    EXPECT_GE(before.size() + added.size(), list.size());  // `before` is untouched
  }
  EXPECT_GT(reference.size(), 2 * PartList::kChunkParts);  // several chunks were exercised

  // Binary search by partition value.
  for (uint32_t p = 0; p <= 50; ++p) {
    size_t at = list.PartitionPoint([&](const Part& part) {
      return std::get<uint64_t>(part.partition().value) < p;
    });
    auto below = [&](const auto& part) {
      return std::get<uint64_t>(part->partition().value) < p;
    };
    size_t expected =
        std::partition_point(reference.begin(), reference.end(), below) - reference.begin();
    EXPECT_EQ(at, expected) << p;
  }
}

TEST(PartListTest, EmptyAndFromSorted) {
  PartList empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_TRUE(empty.begin() == empty.end());
  EXPECT_EQ(empty.PartitionPoint([](const Part&) { return true; }), 0u);
  std::vector<std::shared_ptr<const Part>> parts;
  for (uint64_t b = 1; b <= 1000; ++b) parts.push_back(FakePart(1, b));
  PartList list = PartList::FromSorted(parts);
  ExpectSame(list, parts);
  PartList none = list.With({}, parts);
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace granite::storage
