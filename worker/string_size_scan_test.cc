// MorselSource reading String columns as their sizes (Scan::string_sizes, set by the planner rule
// coordinator/planner/rules/string_size_reads.h): Part::ReadStringSizes returns the lengths a full
// read gives.
#include <gtest/gtest.h>

#include <string>

#include "core/functions/expr_builder.h"
#include "core/plan/fragment.h"
#include "storage/temp_directory.h"
#include "worker/morsel_source.h"

namespace granite::worker {
namespace {

namespace plan = granite::core::plan;
using core::TypeId;

// FROM hits(URL, Title).
plan::Fragment Fragment() {
  plan::Fragment fragment;
  fragment.scan.table = "hits";
  fragment.scan.columns = {"URL", "Title"};
  return fragment;
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

  plan::Fragment fragment = Fragment();
  auto full = MorselSource::Open(fragment, store->get());
  plan::Fragment sized = fragment;
  sized.scan.string_sizes = {true, false};
  auto sizes = MorselSource::Open(sized, store->get());
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
