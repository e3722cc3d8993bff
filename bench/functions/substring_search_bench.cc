// Substring search for LIKE '%x%': the two-byte SIMD searcher (AVX2 and SSE2 loops) against glibc
// memmem and std::string_view::find (memchr on the first byte, then compare), on a column of
// URL-like strings of 60-80 bytes. Needles: "google" (in ~0.2% of the rows, like the hits URL
// column) and "/catalog/" (in ~30%, with the frequent first bytes '/' and 'c').
// Per-row: one search per row (what a row-at-a-time engine does). Column: one search over the
// concatenated chars buffer, hits mapped to rows through the offsets (what LikeMatcher does).
// Throughput is reported as bytes of haystack per second. Arguments: needle (0 = google,
// 1 = /catalog/), rows.
//
//   ninja -C build-functions substring_search_bench &&
//   build-functions/bench/substring_search_bench --benchmark_min_time=0.3
#include <string.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/column.h"
#include "core/functions/substring_search.h"

namespace granite::core {
namespace {

using Isa = SubstringSearcher::Isa;

// Returns `rows` URL-like strings of 60-80 bytes (the same generator seed for every size).
const Column& Urls(size_t rows) {
  static auto* columns = new std::map<size_t, std::unique_ptr<Column>>();
  std::unique_ptr<Column>& cached = (*columns)[rows];
  if (cached == nullptr) cached = [rows] {
    std::mt19937 rng(42);
    auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
    static constexpr std::string_view kHosts[] = {
        "http://www.example.ru", "https://news.portal.com", "http://auto.market.ru",
        "https://mail.service.net", "http://video.stream.org", "http://forum.games.ru"};
    static constexpr std::string_view kWords[] = {"index", "page", "news", "item", "view",
                                                  "search", "list", "photo", "user", "go"};
    auto column = std::make_unique<Column>(TypeId::kString);
    std::string url;
    for (size_t i = 0; i < rows; ++i) {
      url = pick(500) == 0 ? "http://www.google.ru" : std::string(kHosts[pick(std::size(kHosts))]);
      url += pick(10) < 3 ? "/catalog/" : "/";
      const size_t target = 60 + pick(21);
      while (url.size() < target) {
        url += kWords[pick(std::size(kWords))];
        url += pick(3) == 0 ? "?id=" + std::to_string(pick(100000)) + "&" : "/";
      }
      url.resize(target);
      column->AppendString(url);
    }
    return column;
  }();
  return *cached;
}

// The benchmark's column: range(1) rows.
const Column& Urls(const benchmark::State& state) { return Urls(state.range(1)); }

// Needle x rows: 10k rows (~0.7 MB, cache-resident: compute-bound) and 100k rows (~7 MB,
// beyond L2: closer to a scan of a real column).
void Sizes(benchmark::internal::Benchmark* b) { b->ArgsProduct({{0, 1}, {10000, 100000}}); }

std::string_view Needle(int64_t which) { return which == 0 ? "google" : "/catalog/"; }

void SetCounters(benchmark::State& state, size_t matches) {
  state.SetBytesProcessed(state.iterations() * Urls(state).Chars().size());
  state.counters["matches"] = static_cast<double>(matches);
  state.SetLabel(std::string(Needle(state.range(0))));
}

// Per-row searches: `contains(row)` for each row.
template <typename Contains>
void PerRow(benchmark::State& state, Contains contains) {
  const Column& urls = Urls(state);
  size_t matches = 0;
  for (auto _ : state) {
    matches = 0;
    for (size_t i = 0; i < urls.size(); ++i) matches += contains(urls.StringAt(i));
    benchmark::DoNotOptimize(matches);
  }
  SetCounters(state, matches);
}

void BM_RowSearcherAvx2(benchmark::State& state) {
  if (!SubstringSearcher::CpuHasAvx2()) return state.SkipWithError("no AVX2");
  SubstringSearcher searcher(Needle(state.range(0)), false, Isa::kAvx2);
  PerRow(state, [&](std::string_view s) { return searcher.Contains(s); });
}
void BM_RowSearcherSse2(benchmark::State& state) {
  SubstringSearcher searcher(Needle(state.range(0)), false, Isa::kSse2);
  PerRow(state, [&](std::string_view s) { return searcher.Contains(s); });
}
void BM_RowMemmem(benchmark::State& state) {
  const std::string_view needle = Needle(state.range(0));
  PerRow(state, [&](std::string_view s) {
    return memmem(s.data(), s.size(), needle.data(), needle.size()) != nullptr;
  });
}
void BM_RowStringViewFind(benchmark::State& state) {
  const std::string_view needle = Needle(state.range(0));
  PerRow(state, [&](std::string_view s) { return s.find(needle) != std::string_view::npos; });
}
BENCHMARK(BM_RowSearcherAvx2)->Apply(Sizes);
BENCHMARK(BM_RowSearcherSse2)->Apply(Sizes);
BENCHMARK(BM_RowMemmem)->Apply(Sizes);
BENCHMARK(BM_RowStringViewFind)->Apply(Sizes);

// One search over the chars buffer; `find(begin, end)` returns the first hit or `end`. The
// row mapping is the one of SubstringSearcher::MarkRowsContaining (linear here).
template <typename Find>
void WholeColumn(benchmark::State& state, Find find) {
  const Column& urls = Urls(state);
  const size_t n = Needle(state.range(0)).size();
  std::vector<uint8_t> out(urls.size());
  size_t matches = 0;
  for (auto _ : state) {
    std::fill(out.begin(), out.end(), 0);
    const char* chars = urls.Chars().data();
    const char* end = chars + urls.Chars().size();
    const uint64_t* offsets = urls.Offsets().data();
    size_t row = 0;
    const char* pos = chars;
    while (row < urls.size()) {
      const char* hit = find(pos, end);
      if (hit == end) break;
      const uint64_t at = hit - chars;
      while (offsets[row] <= at) ++row;
      if (at + n <= offsets[row]) out[row] = 1;
      pos = chars + offsets[row++];
    }
    benchmark::DoNotOptimize(out.data());
  }
  matches = std::count(out.begin(), out.end(), 1);
  SetCounters(state, matches);
}

void ColumnSearcher(benchmark::State& state, Isa isa) {
  SubstringSearcher searcher(Needle(state.range(0)), false, isa);
  const Column& urls = Urls(state);
  std::vector<uint8_t> out(urls.size());
  for (auto _ : state) {
    std::fill(out.begin(), out.end(), 0);
    searcher.MarkRowsContaining(urls, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  SetCounters(state, std::count(out.begin(), out.end(), 1));
}
void BM_ColumnSearcherAvx2(benchmark::State& state) {
  if (!SubstringSearcher::CpuHasAvx2()) return state.SkipWithError("no AVX2");
  ColumnSearcher(state, Isa::kAvx2);
}
void BM_ColumnSearcherSse2(benchmark::State& state) { ColumnSearcher(state, Isa::kSse2); }
void BM_ColumnMemmem(benchmark::State& state) {
  const std::string_view needle = Needle(state.range(0));
  WholeColumn(state, [&](const char* begin, const char* end) {
    const void* hit = memmem(begin, end - begin, needle.data(), needle.size());
    return hit == nullptr ? end : static_cast<const char*>(hit);
  });
}
void BM_ColumnStringViewFind(benchmark::State& state) {
  const std::string_view needle = Needle(state.range(0));
  WholeColumn(state, [&](const char* begin, const char* end) {
    const size_t at = std::string_view(begin, end - begin).find(needle);
    return at == std::string_view::npos ? end : begin + at;
  });
}
BENCHMARK(BM_ColumnSearcherAvx2)->Apply(Sizes);
BENCHMARK(BM_ColumnSearcherSse2)->Apply(Sizes);
BENCHMARK(BM_ColumnMemmem)->Apply(Sizes);
BENCHMARK(BM_ColumnStringViewFind)->Apply(Sizes);

}  // namespace
}  // namespace granite::core

BENCHMARK_MAIN();
