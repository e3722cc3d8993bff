// GROUP BY tables against absl::flat_hash_map, for the three key kinds the Aggregator
// specializes: UInt16 (FixedHashMap, a direct array), UInt64 (IntHashMap, single- and two-level)
// and String (StringHashMap with its arena and inline short keys); and uniqExact's string set
// (StringHashSet) against absl::flat_hash_set.
//
// "Insert" is the GROUP BY workload: a stream of rows whose keys come from a pool of D distinct
// values, each row finding or creating its group id (D new groups in total). "Lookup" finds ids of
// keys that are all present. Both sides get the same rows; our side, as the Aggregator does, hashes
// a batch of 4096 rows first and prefetches slots ahead once the table outgrows the L2 cache, and
// hashes each row inside the probe loop before (UInt64: core::HashIntKey); absl's side
// copies new string keys into an Arena too, so both own their keys. items/s = rows per second.
//
//   build-*/hash_map_bench --benchmark_min_time=0.2 [--benchmark_filter=UInt64]
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "benchmark/benchmark.h"
#include "core/aggregation/arena.h"
#include "core/aggregation/fixed_hash_map.h"
#include "core/aggregation/int_hash_map.h"
#include "core/aggregation/string_hash_map.h"
#include "core/aggregation/string_hash_set.h"
#include "core/aggregation/two_level_hash_map.h"
#include "core/hash.h"

namespace granite::core {
namespace {

constexpr size_t kBatch = 4096;
constexpr size_t kPrefetchDistance = 16;
constexpr size_t kPrefetchCapacity = 1 << 15;

size_t RowsFor(size_t distinct) { return std::max<size_t>(distinct, size_t{1} << 22); }

// Rows of keys: every distinct value once (in random order), then random draws from the pool.
template <typename T>
std::vector<T> Rows(const std::vector<T>& pool, size_t rows) {
  std::mt19937_64 rng(42);
  std::vector<T> out(pool);
  std::shuffle(out.begin(), out.end(), rng);
  while (out.size() < rows) out.push_back(pool[rng() % pool.size()]);
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

std::vector<uint64_t> UInt64Pool(size_t distinct) {
  std::mt19937_64 rng(7);
  std::vector<uint64_t> pool(distinct);
  for (auto& v : pool) v = rng();
  return pool;
}

std::vector<std::string> StringPool(size_t distinct) {
  // Lengths 3..30 like URLs' pieces and names: about a fifth fit inline (<= 8 bytes).
  std::mt19937_64 rng(9);
  std::vector<std::string> pool(distinct);
  for (size_t i = 0; i < distinct; ++i) {
    std::string s = std::to_string(i);
    s.append(rng() % 24, static_cast<char>('a' + i % 26));
    pool[i] = s;
  }
  return pool;
}

// ---- UInt16 ----------------------------------------------------------------------------------

void BM_UInt16_Ours(benchmark::State& state) {
  size_t distinct = state.range(0);
  std::vector<uint16_t> pool(distinct);
  for (size_t i = 0; i < distinct; ++i) pool[i] = static_cast<uint16_t>(i * 40503u);
  std::vector<uint16_t> rows = Rows(pool, RowsFor(distinct));
  std::vector<uint32_t> ids(rows.size());
  for (auto _ : state) {
    FixedHashMap map;
    uint32_t next = 0;
    uint32_t* direct = map.Data();
    for (size_t i = 0; i < rows.size(); ++i) {
      uint32_t group = direct[rows[i]];
      if (group == FixedHashMap::kEmpty) {
        group = next++;
        direct[rows[i]] = group;
        map.NoteOccupied(rows[i]);
      }
      ids[i] = group;
    }
    benchmark::DoNotOptimize(ids.data());
  }
  state.SetItemsProcessed(state.iterations() * rows.size());
}

void BM_UInt16_Absl(benchmark::State& state) {
  size_t distinct = state.range(0);
  std::vector<uint16_t> pool(distinct);
  for (size_t i = 0; i < distinct; ++i) pool[i] = static_cast<uint16_t>(i * 40503u);
  std::vector<uint16_t> rows = Rows(pool, RowsFor(distinct));
  std::vector<uint32_t> ids(rows.size());
  for (auto _ : state) {
    absl::flat_hash_map<uint16_t, uint32_t> map;
    for (size_t i = 0; i < rows.size(); ++i) {
      ids[i] = map.try_emplace(rows[i], static_cast<uint32_t>(map.size())).first->second;
    }
    benchmark::DoNotOptimize(ids.data());
  }
  state.SetItemsProcessed(state.iterations() * rows.size());
}

// ---- UInt64 ----------------------------------------------------------------------------------

// Finds or inserts every row, in batches: hash, then probe with prefetching.
template <bool kTwoLevel>
void InsertUInt64(const std::vector<uint64_t>& rows, std::vector<uint32_t>* ids) {
  IntHashMap single(256);
  TwoLevelHashMap<IntHashMap> two;
  uint32_t next = 0;
  std::vector<uint64_t> hashes(kBatch);
  for (size_t start = 0; start < rows.size(); start += kBatch) {
    size_t n = std::min(kBatch, rows.size() - start);
    const uint64_t* keys = rows.data() + start;
    bool prefetch = next * 2 >= kPrefetchCapacity;
    if (prefetch) {
      for (size_t i = 0; i < n; ++i) hashes[i] = HashIntKey(keys[i]);
    }
    for (size_t i = 0; i < n; ++i) {
      if (prefetch && i + kPrefetchDistance < n) {
        if constexpr (kTwoLevel) {
          two.Prefetch(hashes[i + kPrefetchDistance]);
        } else {
          single.Prefetch(hashes[i + kPrefetchDistance]);
        }
      }
      uint64_t hash = prefetch ? hashes[i] : HashIntKey(keys[i]);
      IntHashMap& table = kTwoLevel ? two.sub(hash) : single;
      uint32_t group = table.FindOrInsert(keys[i], hash, next);
      if (group == next) ++next;
      (*ids)[start + i] = group;
    }
  }
}

template <bool kTwoLevel>
void BM_UInt64_Ours(benchmark::State& state) {
  std::vector<uint64_t> rows = Rows(UInt64Pool(state.range(0)), RowsFor(state.range(0)));
  std::vector<uint32_t> ids(rows.size());
  for (auto _ : state) {
    InsertUInt64<kTwoLevel>(rows, &ids);
    benchmark::DoNotOptimize(ids.data());
  }
  state.SetItemsProcessed(state.iterations() * rows.size());
}

void BM_UInt64_Absl(benchmark::State& state) {
  std::vector<uint64_t> rows = Rows(UInt64Pool(state.range(0)), RowsFor(state.range(0)));
  std::vector<uint32_t> ids(rows.size());
  for (auto _ : state) {
    absl::flat_hash_map<uint64_t, uint32_t> map;
    for (size_t i = 0; i < rows.size(); ++i) {
      ids[i] = map.try_emplace(rows[i], static_cast<uint32_t>(map.size())).first->second;
    }
    benchmark::DoNotOptimize(ids.data());
  }
  state.SetItemsProcessed(state.iterations() * rows.size());
}

void BM_UInt64Lookup_Ours(benchmark::State& state) {
  std::vector<uint64_t> pool = UInt64Pool(state.range(0));
  std::vector<uint64_t> rows = Rows(pool, RowsFor(state.range(0)));
  IntHashMap map(256);
  for (uint64_t key : pool) {
    map.FindOrInsert(key, HashIntKey(key), static_cast<uint32_t>(map.size()));
  }
  std::vector<uint64_t> hashes(kBatch);
  bool prefetch = pool.size() * 2 >= kPrefetchCapacity;
  uint64_t sum = 0;
  for (auto _ : state) {
    for (size_t start = 0; start < rows.size(); start += kBatch) {
      size_t n = std::min(kBatch, rows.size() - start);
      const uint64_t* keys = rows.data() + start;
      if (!prefetch) {
        for (size_t i = 0; i < n; ++i) sum += map.FindOrInsert(keys[i], HashIntKey(keys[i]), 0);
        continue;
      }
      for (size_t i = 0; i < n; ++i) hashes[i] = HashIntKey(keys[i]);
      for (size_t i = 0; i < n; ++i) {
        if (i + kPrefetchDistance < n) map.Prefetch(hashes[i + kPrefetchDistance]);
        sum += map.FindOrInsert(keys[i], hashes[i], 0);
      }
    }
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations() * rows.size());
}

void BM_UInt64Lookup_Absl(benchmark::State& state) {
  std::vector<uint64_t> pool = UInt64Pool(state.range(0));
  std::vector<uint64_t> rows = Rows(pool, RowsFor(state.range(0)));
  absl::flat_hash_map<uint64_t, uint32_t> map;
  for (uint64_t key : pool) map.try_emplace(key, static_cast<uint32_t>(map.size()));
  uint64_t sum = 0;
  for (auto _ : state) {
    for (uint64_t key : rows) sum += map.find(key)->second;
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations() * rows.size());
}

// ---- String ----------------------------------------------------------------------------------

void BM_String_Ours(benchmark::State& state) {
  std::vector<std::string> pool = StringPool(state.range(0));
  std::vector<std::string> rows = Rows(pool, RowsFor(state.range(0)));
  std::vector<uint32_t> ids(rows.size());
  std::vector<uint64_t> hashes(kBatch);
  for (auto _ : state) {
    StringHashMap map(256);
    Arena arena;
    uint32_t next = 0;
    for (size_t start = 0; start < rows.size(); start += kBatch) {
      size_t n = std::min(kBatch, rows.size() - start);
      for (size_t i = 0; i < n; ++i) hashes[i] = HashBytes(rows[start + i]);
      bool prefetch = next * 2 >= kPrefetchCapacity;
      for (size_t i = 0; i < n; ++i) {
        if (prefetch && i + kPrefetchDistance < n) map.Prefetch(hashes[i + kPrefetchDistance]);
        KeyRef stored;
        uint32_t group = map.FindOrInsert(rows[start + i], hashes[i], next, arena, &stored);
        if (group == next) ++next;
        ids[start + i] = group;
      }
    }
    benchmark::DoNotOptimize(ids.data());
  }
  state.SetItemsProcessed(state.iterations() * rows.size());
}

void BM_String_Absl(benchmark::State& state) {
  std::vector<std::string> pool = StringPool(state.range(0));
  std::vector<std::string> rows = Rows(pool, RowsFor(state.range(0)));
  std::vector<uint32_t> ids(rows.size());
  for (auto _ : state) {
    absl::flat_hash_map<std::string_view, uint32_t> map;
    Arena arena;
    for (size_t i = 0; i < rows.size(); ++i) {
      std::string_view key = rows[i];
      auto it = map.find(key);
      if (it == map.end()) {
        it = map.emplace(arena.Copy(key), static_cast<uint32_t>(map.size())).first;
      }
      ids[i] = it->second;
    }
    benchmark::DoNotOptimize(ids.data());
  }
  state.SetItemsProcessed(state.iterations() * rows.size());
}

// ---- String sets (uniqExact / COUNT(DISTINCT s)) --------------------------------------------

// Ours as uniq_exact_function.cc runs it: hash a batch, prefetch slots 16 rows ahead.
void BM_StringSet_Ours(benchmark::State& state) {
  std::vector<std::string> pool = StringPool(state.range(0));
  std::vector<std::string> rows = Rows(pool, RowsFor(state.range(0)));
  std::vector<uint64_t> hashes(kBatch);
  for (auto _ : state) {
    StringHashSet set;
    Arena arena;
    for (size_t start = 0; start < rows.size(); start += kBatch) {
      size_t n = std::min(kBatch, rows.size() - start);
      for (size_t i = 0; i < n; ++i) hashes[i] = HashBytes(rows[start + i]);
      for (size_t i = 0; i < n; ++i) {
        if (i + kPrefetchDistance < n) set.Prefetch(hashes[i + kPrefetchDistance]);
        set.Insert(rows[start + i], hashes[i], arena);
      }
    }
    benchmark::DoNotOptimize(set.size());
  }
  state.SetItemsProcessed(state.iterations() * rows.size());
}

// The set uniqExact used before: absl::flat_hash_set<string_view> with XXH3, copies in an Arena.
struct Xxh3Hash {
  size_t operator()(std::string_view value) const { return HashBytes(value); }
};
void BM_StringSet_Absl(benchmark::State& state) {
  std::vector<std::string> pool = StringPool(state.range(0));
  std::vector<std::string> rows = Rows(pool, RowsFor(state.range(0)));
  for (auto _ : state) {
    absl::flat_hash_set<std::string_view, Xxh3Hash> set;
    Arena arena;
    for (const std::string& row : rows) {
      std::string_view value = row;
      set.lazy_emplace(value, [&](const auto& construct) { construct(arena.Copy(value)); });
    }
    benchmark::DoNotOptimize(set.size());
  }
  state.SetItemsProcessed(state.iterations() * rows.size());
}

void Distinct(benchmark::internal::Benchmark* b) {
  for (int64_t d : {1000, 10000, 100000, 1000000, 10000000}) b->Arg(d);
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

void Distinct16(benchmark::internal::Benchmark* b) {
  for (int64_t d : {1000, 10000, 65536}) b->Arg(d);
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(BM_UInt16_Ours)->Apply(Distinct16);
BENCHMARK(BM_UInt16_Absl)->Apply(Distinct16);
BENCHMARK(BM_UInt64_Ours<false>)->Name("BM_UInt64_Ours")->Apply(Distinct);
BENCHMARK(BM_UInt64_Ours<true>)->Name("BM_UInt64_OursTwoLevel")->Apply(Distinct);
BENCHMARK(BM_UInt64_Absl)->Apply(Distinct);
BENCHMARK(BM_UInt64Lookup_Ours)->Apply(Distinct);
BENCHMARK(BM_UInt64Lookup_Absl)->Apply(Distinct);
BENCHMARK(BM_String_Ours)->Apply(Distinct);
BENCHMARK(BM_String_Absl)->Apply(Distinct);
BENCHMARK(BM_StringSet_Ours)->Apply(Distinct);
BENCHMARK(BM_StringSet_Absl)->Apply(Distinct);

}  // namespace
}  // namespace granite::core

BENCHMARK_MAIN();
