#include "core/aggregation/uniques_hash_set.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/error.h"
#include "core/hash.h"

namespace granite::core {
namespace {

uint32_t HashOf(uint64_t value) { return static_cast<uint32_t>(HashInt(value ^ 12345) >> 32); }

TEST(UniquesHashSetTest, CountsExactlyWhileSmall) {
  UniquesHashSet set;
  std::set<uint32_t> reference = {0};
  set.Insert(0);  // the zero hash is kept aside from the table
  for (int round = 0; round < 3; ++round) {
    for (uint64_t v = 0; v < 50000; ++v) {
      set.Insert(HashOf(v));
      reference.insert(HashOf(v));
    }
  }
  EXPECT_EQ(set.skip_degree(), 0);
  EXPECT_EQ(set.Estimate(), reference.size());
}

TEST(UniquesHashSetTest, StaysWithinOnePercentForLargeCounts) {
  for (uint64_t n : {100000u, 400000u, 1000000u}) {
    UniquesHashSet set;
    for (uint64_t v = 0; v < n; ++v) set.Insert(HashOf(v * 31 + n));
    EXPECT_GT(set.skip_degree(), 0);
    EXPECT_LE(set.size(), UniquesHashSet::kMaxSize);
    double error = std::abs(static_cast<double>(set.Estimate()) - n) / n;
    EXPECT_LT(error, 0.01) << n << " estimated as " << set.Estimate();
  }
}

TEST(UniquesHashSetTest, MergeEqualsSingleSetWhateverTheSplit) {
  UniquesHashSet single;
  UniquesHashSet parts[3];
  for (uint64_t v = 0; v < 300000; ++v) {
    single.Insert(HashOf(v % 250000));
    parts[(v * 7) % 3].Insert(HashOf(v % 250000));
  }
  UniquesHashSet merged;
  merged.Merge(parts[2]);
  std::string bytes;
  parts[0].Serialize(&bytes);
  ASSERT_TRUE(merged.MergeSerialized(bytes).ok());
  merged.Merge(parts[1]);
  EXPECT_EQ(merged.skip_degree(), single.skip_degree());
  EXPECT_EQ(merged.size(), single.size());
  EXPECT_EQ(merged.Estimate(), single.Estimate());
}

TEST(UniquesHashSetTest, RoundTripsAndRejectsCorruptBytes) {
  UniquesHashSet set;
  for (uint64_t v = 0; v < 100; ++v) set.Insert(HashOf(v));
  std::string bytes;
  set.Serialize(&bytes);
  UniquesHashSet copy;
  ASSERT_TRUE(copy.MergeSerialized(bytes).ok());
  EXPECT_EQ(copy.Estimate(), 100u);

  UniquesHashSet target;
  EXPECT_EQ(CodeOf(target.MergeSerialized(bytes.substr(0, bytes.size() - 1))),
            ErrorCode::kCorruptedData);
  EXPECT_EQ(CodeOf(target.MergeSerialized("")), ErrorCode::kCorruptedData);
  std::string bad_version = bytes;
  bad_version[0] = 9;
  EXPECT_EQ(CodeOf(target.MergeSerialized(bad_version)), ErrorCode::kCorruptedData);
}

}  // namespace
}  // namespace granite::core
