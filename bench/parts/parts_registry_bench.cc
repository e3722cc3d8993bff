// Time to choose parts for one query, and to publish one insert, against tables of 100 to 100,000
// parts (one per partition, as in bench/parts/run.py), with the shared snapshot (default) and
// without it (a private snapshot built per query, like use_parts_snapshot = 0), at 1 to 64
// threads. The parts live in memory only: this measures the registry and the pruner, not I/O.
//
//   build/bench/parts_registry_bench --benchmark_filter=Choose
#include <benchmark/benchmark.h>

#include <memory>
#include <random>

#include "storage/part_pruner.h"
#include "storage/parts_registry.h"

namespace granite::storage {
namespace {

TableSchema Schema() {
  TableSchema schema;
  schema.name = "t";
  schema.columns = {{"p", core::TypeId::kUInt32}, {"x", core::TypeId::kUInt64}};
  schema.partition_by = "p";
  schema.order_by = {"x"};
  return schema;
}

// A part of partition `p` with one granule of 8 rows (never read).
std::shared_ptr<const Part> MemoryPart(std::shared_ptr<const TableSchema> schema, uint32_t p,
                                       uint64_t block) {
  PartContents contents;
  contents.granule_rows = {8};
  contents.partition = {true, core::TypeId::kUInt32, uint64_t{p}};
  for (int c = 0; c < 2; ++c) {
    ColumnMarks marks;
    marks.marks.push_back({0, 10, 32, 0});
    marks.bounds.push_back({true, uint64_t{c == 0 ? p : 0u}, uint64_t{c == 0 ? p : 7u}});
    contents.columns.push_back(std::move(marks));
  }
  PartName name{block, block, 0, std::to_string(p)};
  return std::make_shared<const Part>(nullptr, std::move(schema), "/nonexistent", name,
                                      std::move(contents));
}

struct Table {
  explicit Table(int parts) {
    auto shared_schema = std::make_shared<const TableSchema>(Schema());
    splitter = *PartSplitter::Create(*shared_schema, true);
    std::vector<std::shared_ptr<const Part>> all;
    for (int p = 0; p < parts; ++p) all.push_back(MemoryPart(shared_schema, p, p + 1));
    registry.Reset(std::move(all), parts);
    registry.Snapshot();
    schema = shared_schema;
  }
  std::shared_ptr<const TableSchema> schema;
  std::shared_ptr<const PartSplitter> splitter;
  PartsRegistry registry;
};

Table& TableOf(int parts) {
  static auto* tables = new std::map<int, std::unique_ptr<Table>>();
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  auto& table = (*tables)[parts];
  if (!table) table = std::make_unique<Table>(parts);
  return *table;
}

// One query's part choice: WHERE p = <random>, one part out of range(0).
void ChooseParts(benchmark::State& state, bool shared) {
  Table& table = TableOf(static_cast<int>(state.range(0)));
  std::mt19937 random(state.thread_index());
  size_t selected = 0;
  for (auto _ : state) {
    std::shared_ptr<const PartsSnapshot> snapshot =
        shared ? table.registry.Snapshot() : table.registry.BuildUncached();
    ColumnRanges ranges;
    ranges[0] = ValueRange::Point(uint64_t{random() % static_cast<uint64_t>(state.range(0))});
    PartPruner pruner(*table.splitter, std::move(ranges));
    PruneStats stats;
    selected += pruner.Select(*snapshot, &stats).size();
  }
  if (selected != state.iterations()) state.SkipWithError("pruning did not keep one part");
}

void BM_ChoosePartsSharedSnapshot(benchmark::State& state) { ChooseParts(state, true); }
void BM_ChoosePartsPrivateSnapshot(benchmark::State& state) { ChooseParts(state, false); }

BENCHMARK(BM_ChoosePartsSharedSnapshot)
    ->Arg(100)->Arg(10000)->Arg(100000)->Threads(1)->Threads(8)->Threads(64)->UseRealTime();
BENCHMARK(BM_ChoosePartsPrivateSnapshot)
    ->Arg(100)->Arg(10000)->Arg(100000)->Threads(1)->Threads(8)->Threads(64)->UseRealTime();

// One insert's publication: the new snapshot is built (O(parts) pointer copies) and swapped in.
void BM_PublishOnePart(benchmark::State& state) {
  Table table(static_cast<int>(state.range(0)));
  uint64_t block = state.range(0) + 1;
  for (auto _ : state) {
    table.registry.AllocateBlock("7");
    table.registry.Add({MemoryPart(table.schema, 7, ++block)});
  }
}
BENCHMARK(BM_PublishOnePart)->Arg(100)->Arg(10000)->Arg(100000)->Iterations(200);

}  // namespace
}  // namespace granite::storage

BENCHMARK_MAIN();
