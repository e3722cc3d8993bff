// TopNMorselFilter through FragmentExecutor: on a table stored in EventTime order, ORDER BY
// EventTime LIMIT n skips the morsels whose granule bounds lie past the thread's bound, and every
// top-N (ascending, descending, with and without late materialization) returns the rows a full
// sort returns.
#include "worker/top_n_morsel_filter.h"

#include <gtest/gtest.h>

#include <string>

#include "core/block_codec.h"
#include "core/functions/expr_builder.h"
#include "worker/store_test_base.h"
#include "worker/fragment_executor.h"

namespace granite::worker {
namespace {

namespace plan = granite::core::plan;
using core::Col;
using core::Lit;
using core::TypeId;

constexpr uint32_t kRows = 3000;

class TopNMorselFilterTest : public StoreTestBase {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(CreateTable(
        "hits",
        {{"Id", TypeId::kUInt32}, {"EventTime", TypeId::kDateTime}, {"URL", TypeId::kString}},
        16));
    for (uint32_t begin = 0; begin < kRows; begin += 1000) {  // three parts, time ascending
      auto id = std::make_shared<core::Column>(TypeId::kUInt32);
      auto time = std::make_shared<core::Column>(TypeId::kDateTime);
      auto url = std::make_shared<core::Column>(TypeId::kString);
      for (uint32_t i = begin; i < begin + 1000; ++i) {
        id->Append<uint32_t>(i);
        time->Append<uint32_t>(1000000 + i / 4);  // ties of four rows
        url->AppendString("http://x/" + std::to_string(i));
      }
      ASSERT_NO_FATAL_FAILURE(Insert("hits", {id, time, url}));
    }
  }

  // SELECT Id, EventTime, URL FROM hits WHERE Id % 3 != 1 ORDER BY EventTime [DESC], Id LIMIT n.
  static plan::Fragment TopN(uint64_t limit, bool descending, bool late) {
    plan::Fragment fragment;
    fragment.worker_count = 1;
    fragment.scan.table = "hits";
    for (const char* name : {"Id", "EventTime", "URL"}) {
      fragment.scan.columns.push_back(name);
    }
    fragment.filter = core::Call(
        "notEquals", TypeId::kUInt8,
        {core::Call("modulo", TypeId::kUInt8, {Col(0, TypeId::kUInt32), Lit(uint64_t{3})}),
         Lit(uint64_t{1})});
    fragment.projections.push_back(Col(0, TypeId::kUInt32));
    fragment.projections.push_back(Col(1, TypeId::kDateTime));
    fragment.projections.push_back(Col(2, TypeId::kString));
    fragment.order_by.push_back({.column = 1, .descending = descending});
    fragment.order_by.push_back({.column = 0});
    fragment.limit = limit;
    fragment.late_materialization = late;
    return fragment;
  }

  // Runs `fragment`; returns its rows as "Id EventTime URL" lines and sets *read_rows.
  std::vector<std::string> Run(const plan::Fragment& fragment, uint64_t* read_rows) {
    core::ThreadPool pool(2);
    FragmentExecutor executor(store_.get(), &pool);
    std::atomic<bool> cancelled{false};
    std::vector<std::string> rows;
    absl::Status status = executor.Run(fragment, cancelled, [&](plan::ResultChunk&& chunk) {
      // Stats chunks carry increments (scan_progress.h): their sum is what the scan read.
      if (chunk.kind == plan::ResultChunk::Kind::kStats) *read_rows += chunk.stats.read_rows;
      if (chunk.kind != plan::ResultChunk::Kind::kBlock) return true;
      auto block = core::DecodeWireBlock(chunk.block.data, chunk.block.raw_size);
      EXPECT_TRUE(block.ok()) << block.status();
      for (size_t r = 0; r < block->rows(); ++r) {
        rows.push_back(std::to_string(block->columns[0]->Get<uint32_t>(r)) + " " +
                       std::to_string(block->columns[1]->Get<uint32_t>(r)) + " " +
                       std::string(block->columns[2]->StringAt(r)));
      }
      return true;
    });
    EXPECT_TRUE(status.ok()) << status;
    return rows;
  }

  // The expected rows of TopN(limit, descending, ...), from a full sort.
  static std::vector<std::string> Expected(uint64_t limit, bool descending) {
    std::vector<uint32_t> ids;
    for (uint32_t i = 0; i < kRows; ++i) {
      if (i % 3 != 1) ids.push_back(i);
    }
    std::stable_sort(ids.begin(), ids.end(), [&](uint32_t a, uint32_t b) {
      if (a / 4 != b / 4) return descending ? a / 4 > b / 4 : a / 4 < b / 4;
      return a < b;
    });
    std::vector<std::string> rows;
    for (size_t k = 0; k < limit && k < ids.size(); ++k) {
      rows.push_back(std::to_string(ids[k]) + " " + std::to_string(1000000 + ids[k] / 4) +
                     " http://x/" + std::to_string(ids[k]));
    }
    return rows;
  }
};

TEST_F(TopNMorselFilterTest, MatchesFullSort) {
  for (bool late : {false, true}) {
    for (bool descending : {false, true}) {
      for (uint64_t limit : {1, 7, 100}) {
        uint64_t read_rows = 0;
        EXPECT_EQ(Run(TopN(limit, descending, late), &read_rows), Expected(limit, descending))
            << "late " << late << " descending " << descending << " limit " << limit;
      }
    }
  }
}

TEST_F(TopNMorselFilterTest, SkipsMorselsPastTheBound) {
  // Ascending time: once each thread holds 7 rows, the later morsels' minima exceed its bound.
  for (bool late : {false, true}) {
    uint64_t read_rows = 0;
    EXPECT_EQ(Run(TopN(7, false, late), &read_rows), Expected(7, false));
    EXPECT_GT(read_rows, 0u);
    EXPECT_LT(read_rows, kRows / 2) << "late " << late;
  }
}

}  // namespace
}  // namespace granite::worker
