// Tests of the short-key cache of the kSerialized layout (short_keys.h): the packing is injective
// over edge values (empty strings, zero bytes, values at the capacity, a value at the end of the
// column's buffer), refuses what it cannot pack, and an Aggregator over short String keys gives
// the groups, results and buckets of the serialized path, also through a selection, across
// batches whose keys stop packing, and past the cache's size.
#include "core/aggregation/short_keys.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/aggregation/aggregator.h"
#include "core/aggregation/key_hash.h"
#include "core/hash.h"

namespace granite::core {
namespace {

using T = TypeId;

ColumnPtr Strings(const std::vector<std::string>& values) {
  auto column = std::make_shared<Column>(T::kString);
  for (const std::string& value : values) column->AppendString(value);
  return column;
}

ColumnPtr UInt32s(const std::vector<uint32_t>& values) {
  auto column = std::make_shared<Column>(T::kUInt32);
  for (uint32_t value : values) column->Append<uint32_t>(value);
  return column;
}

std::pair<uint64_t, uint64_t> Pair(UInt128 value) { return {value.low, value.high}; }

TEST(ShortKeysTest, CreateRefusesWhatCannotPack) {
  EXPECT_EQ(ShortKeyPacker::Create({T::kUInt32, T::kUInt64}), nullptr);  // no String key
  EXPECT_EQ(ShortKeyPacker::Create({WithNullable(T::kString, true), T::kString}), nullptr);
  EXPECT_EQ(ShortKeyPacker::Create({T::kUInt64, T::kUInt64, T::kString}), nullptr);  // 18 bytes
  auto two = ShortKeyPacker::Create({T::kString, T::kString});
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(two->string_capacity(), 7u);
  auto mixed = ShortKeyPacker::Create({T::kUInt32, T::kString});
  ASSERT_NE(mixed, nullptr);
  EXPECT_EQ(mixed->string_capacity(), 11u);
}

TEST(ShortKeysTest, PackingIsInjectiveOverEdgeValues) {
  const std::vector<std::string> values = {
      "", "a", std::string("a\0", 2), std::string("\0", 1), std::string("\0\0", 2), "ab", "ba",
      "abcdefg", std::string("abcdef\0", 7), "N", "R", "F", "O"};
  std::vector<std::string> first, second;
  for (const std::string& a : values) {
    for (const std::string& b : values) {
      first.push_back(a);
      second.push_back(b);
    }
  }
  auto packer = ShortKeyPacker::Create({T::kString, T::kString});
  ASSERT_NE(packer, nullptr);
  std::vector<ColumnPtr> keys = {Strings(first), Strings(second)};
  std::vector<UInt128> packed(first.size());
  ASSERT_TRUE(packer->Pack(keys, nullptr, first.size(), packed.data()));
  std::set<std::pair<uint64_t, uint64_t>> distinct;
  for (const UInt128& value : packed) distinct.insert(Pair(value));
  EXPECT_EQ(distinct.size(), first.size());

  // The same pair packs the same wherever it sits: mid-buffer, or last in the column (the
  // bytes are then copied, not read as one word), and through a selection.
  for (size_t i = 0; i < first.size(); i += 7) {
    std::vector<ColumnPtr> alone = {Strings({first[i]}), Strings({second[i]})};
    UInt128 one;
    ASSERT_TRUE(packer->Pack(alone, nullptr, 1, &one));
    EXPECT_EQ(Pair(one), Pair(packed[i])) << i;
    const uint32_t selection[] = {static_cast<uint32_t>(i)};
    ASSERT_TRUE(packer->Pack(keys, selection, 1, &one));
    EXPECT_EQ(Pair(one), Pair(packed[i])) << i;
  }
}

// A key whose values all have one length packs without reading offsets (short_keys.cc); the
// packed values must be those of the general path: compared with the same values in a column
// that also holds one value of another length, past the compared rows.
TEST(ShortKeysTest, UniformLengthKeysPackAsTheGeneralPath) {
  auto packer = ShortKeyPacker::Create({T::kString, T::kString});
  ASSERT_NE(packer, nullptr);
  for (size_t length : {0, 1, 3, 7}) {
    std::vector<std::string> flags, statuses;
    for (size_t i = 0; i < 40; ++i) {
      std::string flag(length, 'A'), status(length, '\0');
      for (size_t j = 0; j < length; ++j) {
        flag[j] = static_cast<char>('A' + (i * 7 + j) % 26);
        status[j] = static_cast<char>((i + j) % 3);  // zero bytes too
      }
      flags.push_back(flag);
      statuses.push_back(status);
    }
    const size_t rows = flags.size();
    std::vector<ColumnPtr> uniform = {Strings(flags), Strings(statuses)};
    flags.push_back(std::string(length == 0 ? 1 : length - 1, 'z'));
    statuses.push_back("q");
    std::vector<ColumnPtr> mixed = {Strings(flags), Strings(statuses)};
    std::vector<UInt128> expected(rows), packed(rows);
    ASSERT_TRUE(packer->Pack(mixed, nullptr, rows, expected.data()));
    ASSERT_TRUE(packer->Pack(uniform, nullptr, rows, packed.data()));
    for (size_t i = 0; i < rows; ++i) EXPECT_EQ(Pair(packed[i]), Pair(expected[i])) << length;
    // Through a selection that ends at the last rows (whose 8-byte load would leave the buffer).
    std::vector<uint32_t> selection = {0, 5, 38, 39};
    std::vector<UInt128> selected(selection.size());
    ASSERT_TRUE(packer->Pack(uniform, selection.data(), selection.size(), selected.data()));
    for (size_t i = 0; i < selection.size(); ++i) {
      EXPECT_EQ(Pair(selected[i]), Pair(expected[selection[i]])) << length;
    }
  }
  // Uniform values longer than the capacity are refused, as by the general path.
  std::vector<ColumnPtr> long_values = {Strings({"abcdefgh", "bcdefghi"}), Strings({"a", "b"})};
  std::vector<UInt128> packed(2);
  EXPECT_FALSE(packer->Pack(long_values, nullptr, 2, packed.data()));
}

TEST(ShortKeysTest, RefusesValuesOverCapacity) {
  auto packer = ShortKeyPacker::Create({T::kString, T::kString});
  ASSERT_NE(packer, nullptr);
  std::vector<ColumnPtr> keys = {Strings({"a", "abcdefgh"}), Strings({"b", "c"})};
  std::vector<UInt128> packed(2);
  EXPECT_FALSE(packer->Pack(keys, nullptr, 2, packed.data()));
  const uint32_t first_only[] = {0};
  EXPECT_TRUE(packer->Pack(keys, first_only, 1, packed.data()));
}

TEST(ShortKeysTest, FixedWidthKeysPackBeside) {
  auto packer = ShortKeyPacker::Create({T::kUInt32, T::kString});
  ASSERT_NE(packer, nullptr);
  std::vector<ColumnPtr> keys = {UInt32s({1, 256, 1, 0}), Strings({"x", "x", "", "longer val"})};
  std::vector<UInt128> packed(4);
  ASSERT_TRUE(packer->Pack(keys, nullptr, 4, packed.data()));
  std::set<std::pair<uint64_t, uint64_t>> distinct;
  for (const UInt128& value : packed) distinct.insert(Pair(value));
  EXPECT_EQ(distinct.size(), 4u);
}

TEST(ShortKeysTest, MapFindsInsertsAndFills) {
  ShortKeyMap map;
  EXPECT_EQ(map.Find(UInt128{1, 2}), ShortKeyMap::kAbsent);
  EXPECT_TRUE(map.Insert(UInt128{1, 2}, 7));
  EXPECT_TRUE(map.Insert(UInt128{1, 2}, 9));  // already there: keeps 7
  EXPECT_EQ(map.Find(UInt128{1, 2}), 7u);
  EXPECT_EQ(map.Find(UInt128{2, 1}), ShortKeyMap::kAbsent);
  uint64_t key = 100;
  while (map.Insert(UInt128{key, 0}, static_cast<uint32_t>(key))) ++key;
  EXPECT_EQ(map.size(), ShortKeyMap::kCapacity / 2);
  EXPECT_EQ(map.Find(UInt128{key, 0}), ShortKeyMap::kAbsent);
  EXPECT_EQ(map.Find(UInt128{150, 0}), 150u);
  map.Clear();
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(map.Find(UInt128{1, 2}), ShortKeyMap::kAbsent);
}

using Groups = std::map<std::pair<std::string, std::string>, std::pair<uint64_t, uint64_t>>;

// Feeds `batches` of (flag, status, value) rows to a GROUP BY flag, status aggregator computing
// count() and sum(value), every other batch through a selection of its even rows, and checks the
// result against a map, and every group's bucket against its key hash.
void CheckAggregation(const std::vector<std::vector<std::tuple<std::string, std::string, uint64_t>>>&
                          batches) {
  auto aggregator = *Aggregator::Create({T::kString, T::kString},
                                        {{"count", {}}, {"sum", {T::kUInt64}}});
  ASSERT_EQ(aggregator->layout(), Aggregator::KeyLayout::kSerialized);
  Groups expected;
  for (size_t b = 0; b < batches.size(); ++b) {
    auto flags = std::make_shared<Column>(T::kString);
    auto statuses = std::make_shared<Column>(T::kString);
    auto values = std::make_shared<Column>(T::kUInt64);
    std::vector<uint32_t> selection;
    const bool selected = b % 2 == 1;
    for (size_t i = 0; i < batches[b].size(); ++i) {
      const auto& [flag, status, value] = batches[b][i];
      flags->AppendString(flag);
      statuses->AppendString(status);
      values->Append<uint64_t>(value);
      if (selected && i % 2 == 1) continue;
      selection.push_back(static_cast<uint32_t>(i));
      auto& group = expected[{flag, status}];
      group.first += 1;
      group.second += value;
    }
    if (selected) {
      ASSERT_TRUE(aggregator->AddSelected({flags, statuses}, {{}, {values}}, selection.data(),
                                          selection.size()).ok());
    } else {
      ASSERT_TRUE(aggregator->Add({flags, statuses}, {{}, {values}}, flags->size()).ok());
    }
  }
  std::vector<Block> buckets = aggregator->PartialByBucket();
  Groups got;
  for (uint32_t b = 0; b < buckets.size(); ++b) {
    const Block& block = buckets[b];
    if (block.rows() == 0) continue;
    std::vector<uint64_t> hashes(block.rows());
    HashKeys({block.columns[0], block.columns[1]}, block.rows(), hashes.data());
    for (size_t r = 0; r < block.rows(); ++r) {
      EXPECT_EQ(BucketOf(hashes[r]), b);
      auto key = std::make_pair(std::string(block.columns[0]->StringAt(r)),
                                std::string(block.columns[1]->StringAt(r)));
      EXPECT_EQ(got.count(key), 0u) << key.first << "|" << key.second;
      got[key] = {block.columns[2]->Get<uint64_t>(r), block.columns[3]->Get<uint64_t>(r)};
    }
  }
  EXPECT_EQ(got, expected);
}

// Six batches of 1,000 rows (flag, status, value) drawn from `flags` and `statuses`.
std::vector<std::vector<std::tuple<std::string, std::string, uint64_t>>> RandomBatches(
    const std::vector<std::string>& flags, const std::vector<std::string>& statuses,
    uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<std::tuple<std::string, std::string, uint64_t>>> batches(6);
  for (auto& batch : batches) {
    for (size_t i = 0; i < 1000; ++i) {
      const uint64_t r = rng();
      batch.emplace_back(flags[r % flags.size()], statuses[(r >> 8) % statuses.size()],
                         r % 1000);
    }
  }
  return batches;
}

TEST(ShortKeysTest, AggregatorMatchesSerializedGroups) {
  const std::vector<std::string> flags = {"A", "N", "R", "", std::string("\0", 1),
                                          std::string("A\0", 2)};
  const std::vector<std::string> statuses = {"F", "O", "", "abcdefg"};
  auto batches = RandomBatches(flags, statuses, 5);
  // A batch with one key too long to pack goes the serialized way; later batches pack again.
  batches[2].emplace_back("N", "a status longer than the capacity", 1);
  batches[3].emplace_back("toolongflag", "O", 2);
  CheckAggregation(batches);
}

TEST(ShortKeysTest, AggregatorPastTheCacheSize) {
  std::vector<std::vector<std::tuple<std::string, std::string, uint64_t>>> batches(4);
  for (size_t b = 0; b < batches.size(); ++b) {
    for (uint64_t i = 0; i < 3000; ++i) {
      const uint64_t k = (i * 7 + b * 13) % 5000;
      batches[b].emplace_back(std::to_string(k % 97), std::to_string(k), i);
    }
  }
  CheckAggregation(batches);
}

}  // namespace
}  // namespace granite::core

namespace granite::core {
namespace {

TEST(ShortKeysTest, OneByteKeysPackIntoTheirBytes) {
  auto packer = ShortKeyPacker::Create({T::kString, T::kString});
  ASSERT_NE(packer, nullptr);
  std::vector<ColumnPtr> keys = {Strings({"A", "N", std::string("\0", 1), "\xff"}),
                                 Strings({"F", "O", "O", std::string("\0", 1)})};
  std::vector<uint16_t> codes(4);
  ASSERT_TRUE(packer->PackOneByteKeys(keys, nullptr, 4, codes.data()));
  EXPECT_EQ(codes, (std::vector<uint16_t>{'A' | 'F' << 8, 'N' | 'O' << 8, 'O' << 8, 0xff}));
  const uint32_t selection[] = {1, 3};
  ASSERT_TRUE(packer->PackOneByteKeys(keys, selection, 2, codes.data()));
  EXPECT_EQ(codes[0], 'N' | 'O' << 8);
  EXPECT_EQ(codes[1], 0xff);
  // Any value of another length in the column, selected or not, refuses.
  std::vector<ColumnPtr> longer = {Strings({"A", "NN"}), Strings({"F", "O"})};
  EXPECT_FALSE(packer->PackOneByteKeys(longer, selection, 1, codes.data()));
  std::vector<ColumnPtr> empty = {Strings({"A", ""}), Strings({"F", "O"})};
  EXPECT_FALSE(packer->PackOneByteKeys(empty, nullptr, 2, codes.data()));
  // A fixed-width key beside the String keeps the packed path.
  auto mixed = ShortKeyPacker::Create({T::kUInt32, T::kString});
  ASSERT_NE(mixed, nullptr);
  EXPECT_FALSE(mixed->PackOneByteKeys({UInt32s({1}), Strings({"A"})}, nullptr, 1, codes.data()));

  ShortKeyMap map;
  EXPECT_EQ(map.FindOneByte(7), ShortKeyMap::kAbsent);
  map.InsertOneByte(7, 3);
  map.InsertOneByte(7, 4);  // already there: keeps 3
  EXPECT_EQ(map.FindOneByte(7), 3u);
  EXPECT_EQ(map.FindOneByte(8), ShortKeyMap::kAbsent);
  map.Clear();
  EXPECT_EQ(map.FindOneByte(7), ShortKeyMap::kAbsent);
}

// Batches of one-letter keys (the direct table) between batches that are not (the packed
// cache, the serialized path) give the serialized groups.
TEST(ShortKeysTest, AggregatorOverOneByteKeysMatchesSerializedGroups) {
  const std::vector<std::string> flags = {"A", "N", "R", std::string("\0", 1)};
  const std::vector<std::string> statuses = {"F", "O"};
  auto batches = RandomBatches(flags, statuses, 9);
  batches[2].emplace_back("NN", "O", 1);  // packed 128-bit keys
  batches[3].emplace_back("", "F", 2);
  batches[4].emplace_back("N", "a status longer than the capacity", 3);  // serialized
  batches[5].emplace_back("Z", "Z", 4);  // a new group in a one-byte batch
  CheckAggregation(batches);
}

}  // namespace
}  // namespace granite::core
