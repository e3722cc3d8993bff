#include "core/join/join_table.h"

#include <gtest/gtest.h>

#include <limits>

#include "core/error.h"
#include "core/join/row_keys.h"
#include "core/fragment_pipeline.h"
#include "core/functions/expr_builder.h"
#include "core/wire/plan_codec.h"

namespace granite::core {
namespace {

using Kind = plan::BroadcastJoin::Kind;

ColumnPtr UInt32s(std::vector<uint32_t> values) {
  auto column = std::make_shared<Column>(TypeId::kUInt32);
  for (uint32_t v : values) column->Append<uint32_t>(v);
  return column;
}

ColumnPtr UInt64s(std::vector<uint64_t> values) {
  auto column = std::make_shared<Column>(TypeId::kUInt64);
  for (uint64_t v : values) column->Append<uint64_t>(v);
  return column;
}

ColumnPtr Strings(std::vector<std::string> values) {
  auto column = std::make_shared<Column>(TypeId::kString);
  for (const std::string& v : values) column->AppendString(v);
  return column;
}

Block BlockOf(std::vector<ColumnPtr> columns) {
  Block block;
  block.columns = std::move(columns);
  return block;
}

// Build: keys 1, 1, 3, 7 (UInt32), names a, b, c, d.
JoinTable Table() {
  auto table = JoinTable::Build(BlockOf({UInt32s({1, 1, 3, 7}), Strings({"a", "b", "c", "d"})}),
                                {0}, {TypeId::kUInt64});
  EXPECT_TRUE(table.ok()) << table.status();
  return *std::move(table);
}

TEST(JoinTableTest, EachKindGivesClickHouseRows) {
  JoinTable table = Table();
  ColumnPtr probe = UInt64s({3, 1, 5});
  const std::vector<const Column*> keys = {probe.get()};
  ProbedRows inner = table.Probe(Kind::kInner, keys, 3);
  EXPECT_EQ(inner.probe, (std::vector<int64_t>{0, 1, 1}));
  EXPECT_EQ(inner.build, (std::vector<int64_t>{2, 0, 1}));  // build order within a key
  ProbedRows left = table.Probe(Kind::kLeft, keys, 3);
  EXPECT_EQ(left.probe, (std::vector<int64_t>{0, 1, 1, 2}));
  EXPECT_EQ(left.build, (std::vector<int64_t>{2, 0, 1, -1}));
  ProbedRows semi = table.Probe(Kind::kSemi, keys, 3);
  EXPECT_EQ(semi.probe, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(semi.build, (std::vector<int64_t>{2, 0}));
  ProbedRows anti = table.Probe(Kind::kAnti, keys, 3);
  EXPECT_EQ(anti.probe, (std::vector<int64_t>{2}));
  EXPECT_EQ(anti.build, (std::vector<int64_t>{-1}));
}

// RIGHT / FULL: INNER's / LEFT's rows, and the build rows no probe matched (NULL keys never do),
// whichever probe call matched them.
TEST(JoinTableTest, RightAndFullRecordTheMatchedBuildRows) {
  auto keys = std::make_shared<Column>(WithNullable(TypeId::kUInt32, true));
  for (int v : {1, 1, 3, -1, 7}) {
    if (v < 0) {
      keys->AppendNull();
    } else {
      keys->Append<uint32_t>(static_cast<uint32_t>(v));
    }
  }
  auto table = JoinTable::Build(BlockOf({keys}), {0}, {TypeId::kUInt64}, /*track_matches=*/true);
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(table->Unmatched(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  ColumnPtr first = UInt64s({3, 5});
  ProbedRows right = table->Probe(Kind::kRight, {first.get()}, 2);
  EXPECT_EQ(right.probe, (std::vector<int64_t>{0}));
  EXPECT_EQ(right.build, (std::vector<int64_t>{2}));
  ColumnPtr second = UInt64s({1, 9});
  ProbedRows full = table->Probe(Kind::kFull, {second.get()}, 2);
  EXPECT_EQ(full.probe, (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(full.build, (std::vector<int64_t>{0, 1, -1}));
  EXPECT_EQ(table->Unmatched(), (std::vector<int64_t>{3, 4}));
}

// Keys whose build rows are interleaved (a fact table's rows as the build) give each key's rows
// in build order, for integer and byte keys alike, and probing twice gives the same rows.
TEST(JoinTableTest, InterleavedKeysGiveTheirRowsInBuildOrder) {
  auto words = JoinTable::Build(BlockOf({UInt32s({5, 2, 5, 9, 2, 5})}), {0}, {TypeId::kUInt64});
  ASSERT_TRUE(words.ok()) << words.status();
  auto bytes = JoinTable::Build(BlockOf({Strings({"e", "b", "e", "i", "b", "e"})}), {0},
                                {TypeId::kString});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  ColumnPtr word_probe = UInt64s({5, 7, 2, 9, 5});
  ColumnPtr byte_probe = Strings({"e", "g", "b", "i", "e"});
  const std::vector<int64_t> probe = {0, 0, 0, 1, 2, 2, 3, 4, 4, 4};
  const std::vector<int64_t> build = {0, 2, 5, -1, 1, 4, 3, 0, 2, 5};
  for (const auto& [table, key] :
       {std::pair{&*words, word_probe}, std::pair{&*bytes, byte_probe}}) {
    for (int round = 0; round < 2; ++round) {
      ProbedRows left = table->Probe(Kind::kLeft, {key.get()}, 5);
      EXPECT_EQ(left.probe, probe);
      EXPECT_EQ(left.build, build);
    }
    ProbedRows semi = table->Probe(Kind::kSemi, {key.get()}, 5);
    EXPECT_EQ(semi.build, (std::vector<int64_t>{0, 1, 3, 0}));
  }
}

ColumnPtr Int32s(std::vector<int32_t> values) {
  auto column = std::make_shared<Column>(TypeId::kInt32);
  for (int32_t v : values) column->Append<int32_t>(v);
  return column;
}

// Two narrow integer keys of one signedness pack into one word; the same pairs join alike when
// they cannot (another signedness, a 64-bit key): negative values, the types' ends, a pair
// whose halves swap, repeated pairs.
TEST(JoinTableTest, TwoNarrowIntegerKeysJoinAsOneWord) {
  EXPECT_TRUE(PairWordKeysComparable(TypeId::kInt32, TypeId::kInt16, TypeId::kInt32,
                                     TypeId::kInt32));
  EXPECT_TRUE(PairWordKeysComparable(TypeId::kUInt32, TypeId::kDate, TypeId::kUInt8,
                                     TypeId::kUInt16));
  EXPECT_FALSE(PairWordKeysComparable(TypeId::kInt32, TypeId::kInt32, TypeId::kUInt32,
                                      TypeId::kInt32));
  EXPECT_FALSE(PairWordKeysComparable(TypeId::kInt64, TypeId::kInt32, TypeId::kInt64,
                                      TypeId::kInt32));
  const int32_t lo = std::numeric_limits<int32_t>::min();
  const int32_t hi = std::numeric_limits<int32_t>::max();
  Block build = BlockOf({Int32s({1, -1, 2, lo, 1, 7}), Int32s({2, 5, 1, hi, 2, -1})});
  ColumnPtr a = Int32s({1, 2, -1, lo, 7, 1});
  ColumnPtr b = Int32s({2, 1, 5, hi, 1, 3});
  // (1,2) twice, (2,1), (-1,5), (lo,hi); (7,1) and (1,3) match nothing.
  const std::vector<int64_t> probe = {0, 0, 1, 2, 3, 4, 5};
  const std::vector<int64_t> rows = {0, 4, 2, 1, 3, -1, -1};
  auto packed = JoinTable::Build(build, {0, 1}, {TypeId::kInt32, TypeId::kInt32});
  ASSERT_TRUE(packed.ok()) << packed.status();
  ProbedRows left = packed->Probe(Kind::kLeft, {a.get(), b.get()}, 6);
  EXPECT_EQ(left.probe, probe);
  EXPECT_EQ(left.build, rows);
  // Probe keys typed Int64: not packed, the same rows.
  auto wide = std::make_shared<Column>(TypeId::kInt64);
  for (int32_t v : {1, 2, -1, lo, 7, 1}) wide->Append<int64_t>(v);
  auto bytes = JoinTable::Build(build, {0, 1}, {TypeId::kInt64, TypeId::kInt32});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  left = bytes->Probe(Kind::kLeft, {wide.get(), b.get()}, 6);
  EXPECT_EQ(left.probe, probe);
  EXPECT_EQ(left.build, rows);
  ProbedRows semi = packed->Probe(Kind::kSemi, {a.get(), b.get()}, 6);
  EXPECT_EQ(semi.build, (std::vector<int64_t>{0, 2, 1, 3}));
}

// Unique build keys (a primary key's table): every kind's rows as with repeated keys.
TEST(JoinTableTest, UniqueKeysGiveEachKindsRows) {
  auto table = JoinTable::Build(BlockOf({UInt32s({9, 4, 6})}), {0}, {TypeId::kUInt64},
                                /*track_matches=*/true);
  ASSERT_TRUE(table.ok()) << table.status();
  ColumnPtr probe = UInt64s({6, 5, 9, 6});
  ProbedRows inner = table->Probe(Kind::kInner, {probe.get()}, 4);
  EXPECT_EQ(inner.probe, (std::vector<int64_t>{0, 2, 3}));
  EXPECT_EQ(inner.build, (std::vector<int64_t>{2, 0, 2}));
  ProbedRows anti = table->Probe(Kind::kAnti, {probe.get()}, 4);
  EXPECT_EQ(anti.probe, (std::vector<int64_t>{1}));
  ProbedRows full = table->Probe(Kind::kFull, {probe.get()}, 4);
  EXPECT_EQ(full.build, (std::vector<int64_t>{2, -1, 0, 2}));
  EXPECT_EQ(table->Unmatched(), (std::vector<int64_t>{1}));
}

TEST(JoinTableTest, StringAndCompositeKeys) {
  auto table = JoinTable::Build(BlockOf({Strings({"x", "y", "x"}), UInt32s({1, 2, 2})}), {0, 1},
                                {TypeId::kString, TypeId::kUInt8});
  ASSERT_TRUE(table.ok()) << table.status();
  ColumnPtr names = Strings({"x", "x", "y"});
  auto small = std::make_shared<Column>(TypeId::kUInt8);
  for (uint8_t v : {2, 1, 1}) small->Append<uint8_t>(v);
  ProbedRows rows = table->Probe(Kind::kInner, {names.get(), small.get()}, 3);
  EXPECT_EQ(rows.probe, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(rows.build, (std::vector<int64_t>{2, 0}));
}

TEST(JoinTableTest, NullKeysMatchNothing) {
  auto build = std::make_shared<Column>(WithNullable(TypeId::kUInt32, true));
  build->Append<uint32_t>(1);
  build->AppendNull();
  auto table = JoinTable::Build(BlockOf({build}), {0}, {WithNullable(TypeId::kUInt32, true)});
  ASSERT_TRUE(table.ok()) << table.status();
  auto probe = std::make_shared<Column>(WithNullable(TypeId::kUInt32, true));
  probe->AppendNull();
  probe->Append<uint32_t>(1);
  ProbedRows rows = table->Probe(Kind::kLeft, {probe.get()}, 2);
  EXPECT_EQ(rows.probe, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(rows.build, (std::vector<int64_t>{-1, 0}));
}

TEST(JoinTableTest, AUInt64PastInt64MaxMatchesNoNegativeKey) {
  auto build = std::make_shared<Column>(TypeId::kInt64);
  build->Append<int64_t>(-1);
  build->Append<int64_t>(7);
  auto table = JoinTable::Build(BlockOf({build}), {0}, {TypeId::kUInt64});
  ASSERT_TRUE(table.ok()) << table.status();
  ColumnPtr probe = UInt64s({~uint64_t{0}, 7});
  ProbedRows rows = table->Probe(Kind::kInner, {probe.get()}, 2);
  EXPECT_EQ(rows.probe, (std::vector<int64_t>{1}));
  EXPECT_EQ(rows.build, (std::vector<int64_t>{1}));
}

// Integer keys within a small span are first tested against a bitmap of the build keys; keys
// spread wide go to the hash table alone. Both join alike: negative keys, probe keys below, in
// and past the build's range, the type's ends, and a NULL probe key whose stored value (0) is a
// build key.
TEST(JoinTableTest, DenseAndSpreadIntegerKeysJoinAlike) {
  const int64_t lowest = std::numeric_limits<int64_t>::min();
  const int64_t highest = std::numeric_limits<int64_t>::max();
  for (int64_t scale : {int64_t{1}, int64_t{1} << 40}) {
    auto build = std::make_shared<Column>(TypeId::kInt64);
    for (int64_t v : {-3 * scale, int64_t{0}, 5 * scale, 5 * scale, 9 * scale}) {
      build->Append<int64_t>(v);
    }
    auto table = JoinTable::Build(BlockOf({build}), {0}, {WithNullable(TypeId::kInt64, true)});
    ASSERT_TRUE(table.ok()) << table.status();
    auto probe = std::make_shared<Column>(WithNullable(TypeId::kInt64, true));
    for (int64_t v : {-4 * scale, -3 * scale, int64_t{0}, int64_t{1}, 5 * scale, 9 * scale,
                      10 * scale, lowest, highest}) {
      probe->Append<int64_t>(v);
    }
    probe->AppendNull();
    ProbedRows inner = table->Probe(Kind::kInner, {probe.get()}, probe->size());
    EXPECT_EQ(inner.probe, (std::vector<int64_t>{1, 2, 4, 4, 5})) << scale;
    EXPECT_EQ(inner.build, (std::vector<int64_t>{0, 1, 2, 3, 4})) << scale;
    ProbedRows anti = table->Probe(Kind::kAnti, {probe.get()}, probe->size());
    EXPECT_EQ(anti.probe, (std::vector<int64_t>{0, 3, 6, 7, 8, 9})) << scale;
  }
}

TEST(JoinTableTest, RefusesAStringKeyAgainstANumber) {
  auto table = JoinTable::Build(BlockOf({UInt32s({1})}), {0}, {TypeId::kString});
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(CodeOf(table.status()), ErrorCode::kNoCommonType);
}

// A fragment that joins its rows with a build side, filters the joined rows and projects a
// build column, through the wire codec and the pipeline: the worker's whole path.
TEST(JoinTableTest, PipelineJoinsFiltersAndProjectsABuildColumn) {
  plan::Fragment fragment;
  fragment.scan.table = "t";
  fragment.scan.columns = {"k"};
  plan::BroadcastJoin join;
  join.kind = Kind::kInner;
  join.probe_keys = {Col(0, TypeId::kUInt64)};
  join.build_keys = {0};
  join.build = BlockOf({UInt32s({1, 1, 3, 7}), Strings({"a", "b", "c", "d"})});
  fragment.joins.push_back(join);
  fragment.join_filter = Call("notEquals", TypeId::kUInt8,
                              {Col(2, TypeId::kString), Lit(Value(std::string("b")))});
  fragment.projections = {Col(0, TypeId::kUInt64), Col(2, TypeId::kString)};
  auto decoded = wire::DecodeFragment(wire::EncodeFragment(fragment));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->joins.size(), 1u);
  EXPECT_EQ(decoded->joins[0].build.rows(), 4u);
  auto pipeline = FragmentPipeline::Compile(*decoded);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  auto state = (*pipeline)->NewLocalState();
  ASSERT_TRUE(state.ok());
  ASSERT_TRUE((*pipeline)->Consume(**state, BlockOf({UInt64s({1, 3, 3, 5, 7})})).ok());
  std::vector<std::unique_ptr<FragmentPipeline::LocalState>> states;
  states.push_back(*std::move(state));
  auto rows = (*pipeline)->FinishRows(std::move(states));
  ASSERT_TRUE(rows.ok()) << rows.status();
  std::vector<std::string> out;
  for (size_t i = 0; i < rows->rows(); ++i) {
    out.push_back(std::to_string(rows->columns[0]->Get<uint64_t>(i)) +
                  std::string(rows->columns[1]->StringAt(i)));
  }
  EXPECT_EQ(out, (std::vector<std::string>{"1a", "3c", "3c", "7d"}));
}

}  // namespace
}  // namespace granite::core
