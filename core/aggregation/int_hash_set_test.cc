// Tests of IntHashSet's inline small sets (int_hash_set.h): the first kInline values live inline,
// the next one promotes the set to an array, and every operation (ForEach, Swap, Reserve, pooled
// arrays) sees the same values either way; and of uniqExact states built from such sets, whose
// counts, serialized partial states and merges must equal a std::set reference.
#include "core/aggregation/int_hash_set.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "core/aggregation/aggregator.h"
#include "core/aggregation/slot_pool.h"
#include "core/block_codec.h"

namespace granite::core {
namespace {

template <typename Slot>
std::set<Slot> Values(const IntHashSet<Slot>& set) {
  std::set<Slot> out;
  set.ForEach([&](Slot value) { EXPECT_TRUE(out.insert(value).second) << value; });
  return out;
}

template <typename Slot>
void CheckPromotion() {
  constexpr size_t kInline = IntHashSet<Slot>::kInline;
  SlotPool pool;
  IntHashSet<Slot> set;
  set.set_pool(&pool);
  std::set<Slot> reference;
  // Zero is a flag, not an inline value: kInline nonzero values and 0 stay inline.
  for (Slot v : {Slot{0}, Slot{0}}) {
    set.Insert(v, HashIntKey(v));
    reference.insert(v);
  }
  for (size_t i = 1; i <= kInline; ++i) {
    Slot v = static_cast<Slot>(i * 1000003u);
    set.Insert(v, HashIntKey(v));
    set.Insert(v, HashIntKey(v));  // duplicates do not take inline room
    reference.insert(v);
    EXPECT_FALSE(set.large());
    EXPECT_EQ(set.capacity(), 0u);
    EXPECT_EQ(set.MemoryBytes(), 0u);
  }
  EXPECT_EQ(set.size(), kInline + 1);
  EXPECT_EQ(Values(set), reference);
  Slot extra = 7;
  set.Insert(extra, HashIntKey(extra));
  reference.insert(extra);
  EXPECT_TRUE(set.large());
  EXPECT_EQ(set.capacity(), 16u);
  EXPECT_EQ(set.size(), reference.size());
  EXPECT_EQ(Values(set), reference);
  // Values inserted after promotion, then growth past 16 slots.
  for (Slot v = 1; v < 500; ++v) {
    set.Insert(v, HashIntKey(v));
    reference.insert(v);
  }
  EXPECT_EQ(set.size(), reference.size());
  EXPECT_EQ(Values(set), reference);
}

TEST(IntHashSetInlineTest, Int64PromotesAfterTwoValues) {
  static_assert(Int64HashSet::kInline == 2);
  CheckPromotion<uint64_t>();
}

TEST(IntHashSetInlineTest, Int32PromotesAfterFourValues) {
  static_assert(Int32HashSet::kInline == 4);
  CheckPromotion<uint32_t>();
}

TEST(IntHashSetInlineTest, SwapBetweenInlineAndLargeSets) {
  Int64HashSet small;
  Int64HashSet large;
  small.Insert(5, HashIntKey(5));
  for (uint64_t v = 1; v <= 100; ++v) large.Insert(v * 3, HashIntKey(v * 3));
  small.Swap(large);
  EXPECT_TRUE(small.large());
  EXPECT_FALSE(large.large());
  EXPECT_EQ(small.size(), 100u);
  EXPECT_EQ(Values(large), std::set<uint64_t>({5}));
  // Both keep working after the swap.
  large.Insert(6, HashIntKey(6));
  large.Insert(9, HashIntKey(9));
  EXPECT_TRUE(large.large());
  EXPECT_EQ(Values(large), std::set<uint64_t>({5, 6, 9}));
  Int64HashSet moved = std::move(small);
  EXPECT_EQ(moved.size(), 100u);
  EXPECT_EQ(small.size(), 0u);  // NOLINT: moved-from is empty by contract (swap)
  EXPECT_FALSE(small.large());  // NOLINT
}

TEST(IntHashSetInlineTest, ReservePromotesOnlyPastInlineRoom) {
  Int64HashSet set;
  set.Insert(11, HashIntKey(11));
  set.Reserve(2);
  EXPECT_FALSE(set.large());
  set.Reserve(40);
  EXPECT_TRUE(set.large());
  EXPECT_GE(set.capacity(), 82u);
  EXPECT_EQ(Values(set), std::set<uint64_t>({11}));
  size_t capacity = set.capacity();
  for (uint64_t v = 1; v <= 40; ++v) set.Insert(v, HashIntKey(v));
  EXPECT_EQ(set.capacity(), capacity);  // no growth within the reservation
  EXPECT_EQ(set.size(), 40u);           // 11 was among 1..40
}

TEST(IntHashSetInlineTest, RandomSmallSetsMatchReference) {
  SlotPool pool;
  std::mt19937_64 rng(5);
  std::vector<Int32HashSet> sets(300);
  std::vector<std::set<uint32_t>> reference(sets.size());
  for (auto& set : sets) set.set_pool(&pool);
  for (int i = 0; i < 5000; ++i) {
    size_t s = rng() % sets.size();
    uint32_t v = static_cast<uint32_t>(rng() % (1 + s % 9));  // set s holds at most 1 + s % 9
    sets[s].Insert(v, HashIntKey(v));
    reference[s].insert(v);
  }
  for (size_t s = 0; s < sets.size(); ++s) {
    EXPECT_EQ(Values(sets[s]), reference[s]) << s;
    size_t nonzero = reference[s].size() - reference[s].count(0);
    EXPECT_EQ(sets[s].large(), nonzero > Int32HashSet::kInline) << s;
  }
}

// uniqExact(UInt64) by a UInt32 key: group g gets g % 6 distinct values (0 to 5: inline, at the
// promotion edge and promoted), split over two aggregators; partial states are merged in memory,
// encoded and merged in a third aggregator. Counts must equal the reference at every step.
TEST(IntHashSetInlineTest, UniqExactSmallStatesMergeAndSerialize) {
  auto make = [] {
    return *Aggregator::Create({TypeId::kUInt32}, {AggregateSpec{"uniqExact", {TypeId::kUInt64}}});
  };
  std::map<uint32_t, std::set<uint64_t>> reference;
  std::vector<std::unique_ptr<Aggregator>> parts;
  for (int part = 0; part < 2; ++part) {
    parts.push_back(make());
    auto keys = std::make_shared<Column>(TypeId::kUInt32);
    auto values = std::make_shared<Column>(TypeId::kUInt64);
    for (uint32_t g = 0; g < 60; ++g) {
      for (uint32_t v = 0; v < g % 6; ++v) {
        // Parts overlap on even values, so merges see shared and new values.
        uint64_t value = v % 2 == 0 ? v : v * 100 + part;
        keys->Append<uint32_t>(g);
        values->Append<uint64_t>(value);
        reference[g].insert(value);
      }
    }
    ASSERT_TRUE(parts.back()->Add({keys}, {{values}}, keys->size()).ok());
  }
  parts[0]->MergeAllFrom(*parts[1]);
  Block partial = parts[0]->Partial();
  absl::StatusOr<Block> decoded = DecodeBlock(EncodeBlock(partial));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  auto merged = make();
  ASSERT_TRUE(merged->Merge(*decoded).ok());
  absl::StatusOr<Block> result = merged->Finalize();
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->rows(), reference.size());
  for (size_t r = 0; r < result->rows(); ++r) {
    uint32_t key = result->columns[0]->Get<uint32_t>(r);
    EXPECT_EQ(result->columns[1]->Get<uint64_t>(r), reference[key].size()) << key;
  }
}

}  // namespace
}  // namespace granite::core
