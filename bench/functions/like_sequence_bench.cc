// LIKE with several literal runs split by '%' ('%special%requests%': a comment column searched
// for two words in order). Two ways to match a column of 40-80 byte sentences of a small
// vocabulary, where the longer word occurs in about a third of the rows:
//   Regex:    the longest run marks candidate rows (one column-wide SubstringSearcher pass), then
//             RE2::FullMatch of '.*special.*requests.*' per candidate (LikeMatcher before the
//             sequence kind).
//   Sequence: the same candidate pass, then each run searched after the previous one
//             (LikeMatcher's kSequence).
// Reported as rows per second. Argument: rows.
//
//   ninja -C build like_sequence_bench && build/bench/like_sequence_bench --benchmark_min_time=0.3
#include <re2/re2.h>

#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/column.h"
#include "core/functions/like_matcher.h"
#include "core/functions/substring_search.h"

namespace granite::core {
namespace {

constexpr std::string_view kPattern = "%special%requests%";

// Returns `rows` sentences of 40-80 bytes (the same generator seed for every size).
const Column& Sentences(size_t rows) {
  static auto* columns = new std::map<size_t, std::unique_ptr<Column>>();
  std::unique_ptr<Column>& cached = (*columns)[rows];
  if (cached == nullptr) cached = [rows] {
    std::mt19937 rng(7);
    auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
    static constexpr std::string_view kWords[] = {
        "quick", "silent", "bold", "even", "final", "ironic", "pending", "regular", "express",
        "careful", "deposits", "accounts", "theodolites", "packages", "requests", "special",
        "sleep", "nag", "wake", "haggle", "across", "above", "among", "blithely", "slyly"};
    auto column = std::make_unique<Column>(TypeId::kString);
    std::string text;
    for (size_t i = 0; i < rows; ++i) {
      text.clear();
      const size_t target = 40 + pick(41);
      while (text.size() < target) {
        text += kWords[pick(std::size(kWords))];
        text += ' ';
      }
      text.resize(target);
      column->AppendString(text);
    }
    return column;
  }();
  return *cached;
}

void BM_Regex(benchmark::State& state) {
  const Column& strings = Sentences(static_cast<size_t>(state.range(0)));
  const SubstringSearcher longest("requests");
  RE2::Options options;
  options.set_dot_nl(true);
  const RE2 regex(".*special.*requests.*", options);
  std::vector<uint8_t> out(strings.size());
  size_t matched = 0;
  for (auto _ : state) {
    std::memset(out.data(), 0, out.size());
    longest.MarkRowsContaining(strings, out.data());
    const uint64_t* offsets = strings.Offsets().data();
    const char* chars = strings.Chars().data();
    uint64_t begin = 0;
    matched = 0;
    for (size_t i = 0; i < strings.size(); ++i) {
      if (out[i]) out[i] = RE2::FullMatch(re2::StringPiece(chars + begin, offsets[i] - begin), regex);
      matched += out[i];
      begin = offsets[i];
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["matched"] = static_cast<double>(matched);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(strings.size()));
}

void BM_Sequence(benchmark::State& state) {
  const Column& strings = Sentences(static_cast<size_t>(state.range(0)));
  auto matcher = LikeMatcher::Compile(kPattern, false);
  if (!matcher.ok() || (*matcher)->kind() != LikeMatcher::Kind::kSequence) {
    state.SkipWithError("not the sequence kind");
    return;
  }
  std::vector<uint8_t> out(strings.size());
  size_t matched = 0;
  for (auto _ : state) {
    (*matcher)->MatchColumn(strings, false, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  for (uint8_t bit : out) matched += bit;
  state.counters["matched"] = static_cast<double>(matched);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(strings.size()));
}

BENCHMARK(BM_Regex)->Arg(1 << 16);
BENCHMARK(BM_Sequence)->Arg(1 << 16);

}  // namespace
}  // namespace granite::core

BENCHMARK_MAIN();
