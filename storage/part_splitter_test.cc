#include "storage/part_splitter.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace granite::storage {
namespace {

using core::CodeOf;
using core::ErrorCode;
using core::TypeId;

TableSchema Schema(std::string partition_by, std::vector<std::string> order_by) {
  TableSchema schema;
  schema.name = "t";
  schema.columns = {{"k", TypeId::kUInt32}, {"s", TypeId::kString}};
  schema.partition_by = std::move(partition_by);
  schema.order_by = std::move(order_by);
  return schema;
}

core::Block Rows(std::vector<uint32_t> keys) {
  auto k = std::make_shared<core::Column>(TypeId::kUInt32);
  auto s = std::make_shared<core::Column>(TypeId::kString);
  for (uint32_t key : keys) {
    k->Append<uint32_t>(key);
    s->AppendString("s" + std::to_string(key));
  }
  return core::Block{{k, s}};
}

std::vector<uint32_t> Keys(const core::Block& block) {
  std::vector<uint32_t> keys;
  for (size_t r = 0; r < block.rows(); ++r) keys.push_back(block.columns[0]->Get<uint32_t>(r));
  return keys;
}

TEST(PartSplitterTest, OnePiecePerPartitionEachSorted) {
  auto splitter = PartSplitter::Create(Schema("intDiv(k, 10)", {"s"}), true);
  ASSERT_TRUE(splitter.ok()) << splitter.status();
  auto pieces = (*splitter)->Split(Rows({25, 3, 21, 7, 29, 1}));
  ASSERT_TRUE(pieces.ok()) << pieces.status();
  ASSERT_EQ(pieces->size(), 2u);
  // Partition 0 sorted by s: "s1" < "s3" < "s7"; partition 2: "s21" < "s25" < "s29".
  EXPECT_EQ(Keys((*pieces)[0].block), (std::vector<uint32_t>{1, 3, 7}));
  EXPECT_EQ(Keys((*pieces)[1].block), (std::vector<uint32_t>{21, 25, 29}));
  EXPECT_EQ((*pieces)[1].description.partition,
            (PartitionValue{true, TypeId::kUInt32, uint64_t{2}}));
  EXPECT_EQ((*pieces)[0].description.sort_key, std::vector<std::string>{"s"});
  ASSERT_EQ((*pieces)[0].description.key_columns.size(), 1u);
  EXPECT_EQ((*pieces)[0].description.key_columns[0]->StringAt(2), "s7");
  EXPECT_TRUE((*(*splitter)->Split(Rows({}))).empty());
}

TEST(PartSplitterTest, StableSortKeepsInsertionOrderOfEqualKeys) {
  auto splitter = PartSplitter::Create(Schema("", {"intDiv(k, 100)"}), true);
  ASSERT_TRUE(splitter.ok()) << splitter.status();
  auto pieces = (*splitter)->Split(Rows({150, 5, 120, 7, 101}));
  ASSERT_TRUE(pieces.ok());
  ASSERT_EQ(pieces->size(), 1u);
  EXPECT_FALSE((*pieces)[0].description.partition.present);
  EXPECT_EQ(Keys((*pieces)[0].block), (std::vector<uint32_t>{5, 7, 150, 120, 101}));
}

TEST(PartSplitterTest, KeysGraniteCannotEvaluate) {
  // A sort key is cut before the first expression that does not compile.
  auto cut = PartSplitter::Create(Schema("", {"k", "noSuchFunction(s)", "s"}), true);
  ASSERT_TRUE(cut.ok()) << cut.status();
  EXPECT_EQ((*cut)->sort_key().size(), 1u);
  // PARTITION BY tuple() means no partitioning; several expressions are refused at CREATE.
  auto none = PartSplitter::Create(Schema("tuple()", {}), true);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ((*none)->partition_key(), nullptr);
  EXPECT_EQ(CodeOf(PartSplitter::Create(Schema("tuple(k, s)", {}), true).status()),
            ErrorCode::kNotImplemented);
  auto unknown = PartSplitter::Create(Schema("noSuchFunction(k)", {}), true);
  EXPECT_EQ(CodeOf(unknown.status()), ErrorCode::kUnknownFunction);
  EXPECT_NE(unknown.status().message().find("In PARTITION BY of table t"), std::string::npos);
  // Opening a stored table never fails on its keys.
  auto lenient = PartSplitter::Create(Schema("noSuchFunction(k)", {}), false);
  ASSERT_TRUE(lenient.ok());
  EXPECT_EQ((*lenient)->partition_key(), nullptr);
}

}  // namespace
}  // namespace granite::storage
