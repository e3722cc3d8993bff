// Tests of the sharding key: parsing and validating the setting, and routing rows so that equal
// key values always go to the same worker, for every column type, deterministically.
#include "coordinator/cluster/sharding_key.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>

#include "core/block_sort.h"
#include "core/error.h"
#include "core/types.h"

namespace granite::coordinator {
namespace {

namespace pb = granite::worker::v1;
using core::CodeOf;
using core::ErrorCode;
using core::TypeId;

pb::TableSchema Schema() {
  pb::TableSchema schema;
  schema.set_name("t");
  for (const char* column : {"a", "b_2", "s"}) schema.add_columns()->set_name(column);
  return schema;
}

TEST(ShardingKeyTest, ParsesNamesAndLists) {
  auto parsed = ParseShardingKey("a", Schema());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, std::vector<std::string>({"a"}));
  parsed = ParseShardingKey(" s ,`b_2`,a ", Schema());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, std::vector<std::string>({"s", "b_2", "a"}));
}

TEST(ShardingKeyTest, RejectsBadKeysNamingThem) {
  struct Case {
    const char* text;
    ErrorCode code;
    const char* mentions;
  };
  for (const Case& c : {Case{"nope", ErrorCode::kUnknownIdentifier, "nope"},
                        Case{"a, zz", ErrorCode::kUnknownIdentifier, "item 2"},
                        Case{"A", ErrorCode::kUnknownIdentifier, "A"},
                        Case{"", ErrorCode::kBadArguments, "empty"},
                        Case{"  ", ErrorCode::kBadArguments, "empty"},
                        Case{"a,", ErrorCode::kBadArguments, "item 2"},
                        Case{"a % 10", ErrorCode::kBadArguments, "\"a % 10\""},
                        Case{"cityHash64(a)", ErrorCode::kBadArguments, "not a column name"},
                        Case{"a, s, a", ErrorCode::kBadArguments, "repeated"},
                        Case{"``", ErrorCode::kBadArguments, "Empty column name"}}) {
    absl::Status status = ParseShardingKey(c.text, Schema()).status();
    EXPECT_EQ(CodeOf(status), c.code) << c.text << ": " << status;
    EXPECT_NE(status.message().find(c.mentions), std::string::npos) << c.text << ": " << status;
  }
}

core::Block TwoColumns(size_t rows) {
  auto ints = std::make_shared<core::Column>(TypeId::kInt16);
  auto strings = std::make_shared<core::Column>(TypeId::kString);
  for (size_t r = 0; r < rows; ++r) {
    ints->Append<int16_t>(static_cast<int16_t>(r % 37) - 18);
    strings->AppendString(std::string(r % 5, 'x'));
  }
  core::Block block;
  block.columns = {ints, strings};
  return block;
}

TEST(ShardingKeyTest, EqualKeysGoToOneWorkerAndEveryWorkerGetsRows) {
  core::Block block = TwoColumns(3700);
  for (const std::vector<size_t>& key : {std::vector<size_t>{0}, std::vector<size_t>{1},
                                         std::vector<size_t>{0, 1}}) {
    std::vector<uint32_t> shards = ShardOfRows(block, key, 3);
    ASSERT_EQ(shards.size(), block.rows());
    std::map<std::pair<int16_t, std::string>, uint32_t> owner;
    std::set<uint32_t> used;
    for (size_t r = 0; r < shards.size(); ++r) {
      ASSERT_LT(shards[r], 3u);
      used.insert(shards[r]);
      // The row's key: the columns not in `key` count as constant.
      bool only_strings = key.size() == 1 && key[0] == 1;
      bool only_ints = key.size() == 1 && key[0] == 0;
      int16_t i = only_strings ? 0 : block.columns[0]->Get<int16_t>(r);
      std::string s = only_ints ? "" : std::string(block.columns[1]->StringAt(r));
      auto [it, inserted] = owner.emplace(std::make_pair(i, s), shards[r]);
      EXPECT_EQ(it->second, shards[r]) << "row " << r;
    }
    // 37 or 185 distinct keys reach every worker (5 strings alone may well not).
    if (owner.size() > 30) {
      EXPECT_EQ(used.size(), 3u) << owner.size();
    }
  }
  // Deterministic: the same values hash the same in another block (another insert).
  core::Block again = core::TakeRows(block, {36, 0, 1});
  std::vector<uint32_t> first = ShardOfRows(block, {0, 1}, 3);
  std::vector<uint32_t> second = ShardOfRows(again, {0, 1}, 3);
  EXPECT_EQ(second, std::vector<uint32_t>({first[36], first[0], first[1]}));
  EXPECT_EQ(ShardOfRows(block, {0}, 1), std::vector<uint32_t>(block.rows(), 0));
}

TEST(ShardingKeyTest, NegativeZeroGoesWithZero) {
  auto floats = std::make_shared<core::Column>(TypeId::kFloat64);
  for (double value : {0.0, -0.0, 1.0}) floats->Append<double>(value);
  core::Block block;
  block.columns = {floats};
  // 2^31 "workers": the shard is nearly the whole hash, so only equal hashes agree.
  std::vector<uint32_t> shards = ShardOfRows(block, {0}, size_t{1} << 31);
  EXPECT_EQ(shards[0], shards[1]);
  EXPECT_NE(shards[0], shards[2]);
}

TEST(ShardingKeyTest, SplitKeepsEveryRowOnceInOrder) {
  core::Block block = TwoColumns(1000);
  std::vector<core::Block> parts = SplitByShard(block, {0}, 4);
  ASSERT_EQ(parts.size(), 4u);
  std::vector<uint32_t> shards = ShardOfRows(block, {0}, 4);
  size_t total = 0;
  for (size_t w = 0; w < parts.size(); ++w) {
    ASSERT_EQ(parts[w].columns.size(), 2u);
    EXPECT_EQ(parts[w].columns[1]->type(), TypeId::kString);
    size_t at = 0;
    for (size_t r = 0; r < block.rows(); ++r) {
      if (shards[r] != w) continue;
      ASSERT_LT(at, parts[w].rows());
      EXPECT_EQ(parts[w].columns[0]->Get<int16_t>(at), block.columns[0]->Get<int16_t>(r));
      EXPECT_EQ(parts[w].columns[1]->StringAt(at), block.columns[1]->StringAt(r));
      ++at;
    }
    EXPECT_EQ(at, parts[w].rows());
    total += parts[w].rows();
  }
  EXPECT_EQ(total, block.rows());
}

}  // namespace
}  // namespace granite::coordinator
