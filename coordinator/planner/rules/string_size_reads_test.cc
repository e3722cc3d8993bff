// Reading String columns as sizes: which uses qualify, how the fragment is rewritten, and that
// Part::ReadStringSizes (through MorselSource) returns the lengths a full read gives.
#include "coordinator/planner/rules/string_size_reads.h"

#include <gtest/gtest.h>

#include <string>

#include "core/functions/expr_builder.h"
#include "storage/temp_directory.h"
#include "worker/morsel_source.h"

namespace granite::worker {
namespace {

namespace pb = granite::worker::v1;
using core::Col;
using core::Lit;
using core::TypeId;

pb::Expr Url() { return Col(0, TypeId::kString); }
pb::Expr Title() { return Col(1, TypeId::kString); }

// FROM hits(URL, Title) WHERE URL <> '' with `projections`.
pb::Fragment Fragment(std::vector<pb::Expr> projections) {
  pb::Fragment fragment;
  fragment.mutable_source()->set_table("hits");
  fragment.mutable_source()->add_columns("URL");
  fragment.mutable_source()->add_columns("Title");
  *fragment.mutable_filter() =
      core::Call("notEquals", TypeId::kUInt8, {Url(), Lit(std::string(""))});
  for (pb::Expr& projection : projections) *fragment.add_projections() = std::move(projection);
  return fragment;
}

TEST(StringSizeReadsTest, RewritesColumnsUsedOnlyThroughTheirSize) {
  pb::Fragment fragment =
      Fragment({core::Call("length", TypeId::kUInt64, {Url()}),
                core::Call("equals", TypeId::kUInt8, {Lit(std::string("")), Title()}),
                core::Call("notEmpty", TypeId::kUInt8, {Title()})});
  EXPECT_EQ(ReadStringsAsSizes(&fragment), (std::vector<bool>{true, true}));
  const pb::Expr& filter = fragment.filter();
  EXPECT_EQ(filter.call().name(), "notEquals");
  EXPECT_EQ(static_cast<TypeId>(filter.call().args(0).type()), TypeId::kUInt64);
  EXPECT_EQ(filter.call().args(0).column(), 0u);
  EXPECT_EQ(filter.call().args(1).literal().uint_value(), 0u);
  EXPECT_EQ(fragment.projections(0).node_case(), pb::Expr::kColumn);
  EXPECT_EQ(static_cast<TypeId>(fragment.projections(0).type()), TypeId::kUInt64);
  EXPECT_EQ(fragment.projections(1).call().name(), "equals");
  EXPECT_EQ(fragment.projections(1).call().args(0).column(), 1u);
  EXPECT_EQ(fragment.projections(2).call().name(), "notEquals");
  EXPECT_EQ(static_cast<TypeId>(fragment.projections(2).type()), TypeId::kUInt8);
}

TEST(StringSizeReadsTest, AnyOtherUseKeepsTheCharacters) {
  // URL is also projected as itself; Title is compared with a non-empty string.
  pb::Fragment fragment =
      Fragment({Url(), core::Call("equals", TypeId::kUInt8, {Title(), Lit(std::string("a"))})});
  pb::Fragment before = fragment;
  EXPECT_EQ(ReadStringsAsSizes(&fragment), (std::vector<bool>{false, false}));
  EXPECT_EQ(fragment.SerializeAsString(), before.SerializeAsString());
  // Aggregate arguments count too: avg(length(URL)) qualifies, min(URL) does not.
  pb::Fragment aggregate = Fragment({});
  aggregate.set_aggregate(true);
  pb::AggregateCall* avg = aggregate.add_aggregates();
  avg->set_name("avg");
  *avg->add_args() = core::Call("length", TypeId::kUInt64, {Url()});
  EXPECT_EQ(ReadStringsAsSizes(&aggregate), (std::vector<bool>{true, false}));
  // A group key is another use: URL is read whole.
  pb::Fragment mixed = Fragment({});
  *mixed.add_group_keys() = Url();
  *mixed.add_projections() = core::Call("length", TypeId::kUInt64, {Url()});
  EXPECT_EQ(ReadStringsAsSizes(&mixed), (std::vector<bool>{false, false}));
}

TEST(StringSizeReadsTest, SizesReadFromPartsMatchTheValues) {
  storage::TempDirectory dir;
  auto store = storage::Store::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  storage::TableSchema schema;
  schema.name = "hits";
  schema.columns = {{"URL", TypeId::kString}, {"Title", TypeId::kString}};
  schema.settings["index_granularity"] = "100";
  ASSERT_TRUE((*store)->CreateTable(schema, false, false).ok());
  auto url = std::make_shared<core::Column>(TypeId::kString);
  auto title = std::make_shared<core::Column>(TypeId::kString);
  for (int i = 0; i < 1000; ++i) {
    url->AppendString(i % 5 == 0 ? "" : "http://x/" + std::string(i % 37, 'p'));
    title->AppendString(std::to_string(i));
  }
  ASSERT_TRUE((*store)->GetTable("hits")->Insert(core::Block{{url, title}}).ok());

  pb::Fragment fragment = Fragment({});
  auto full = MorselSource::Open(fragment, store->get());
  auto sizes = MorselSource::Open(fragment, store->get(), {true, false});
  ASSERT_TRUE(full.ok() && sizes.ok());
  ASSERT_EQ((*full)->table_morsels().size(), (*sizes)->table_morsels().size());
  size_t rows = 0;
  for (size_t m = 0; m < (*full)->table_morsels().size(); ++m) {
    auto values = (*full)->Read((*full)->table_morsels()[m]);
    auto lengths = (*sizes)->Read((*sizes)->table_morsels()[m]);
    ASSERT_TRUE(values.ok() && lengths.ok());
    ASSERT_EQ(lengths->columns[0]->type(), TypeId::kUInt64);
    ASSERT_EQ(lengths->rows(), values->rows());
    for (size_t r = 0; r < values->rows(); ++r) {
      EXPECT_EQ(lengths->columns[0]->Get<uint64_t>(r), values->columns[0]->StringAt(r).size());
      EXPECT_EQ(lengths->columns[1]->StringAt(r), values->columns[1]->StringAt(r));
    }
    rows += values->rows();
  }
  EXPECT_EQ(rows, 1000u);
  // Only String columns have sizes.
  const storage::Part& part = *(*full)->table_morsels()[0].data;
  EXPECT_TRUE(part.ReadStringSizes(0, 0, 1).ok());
  EXPECT_FALSE(part.ReadStringSizes(0, 0, part.granule_count() + 1).ok());
}

}  // namespace
}  // namespace granite::worker
