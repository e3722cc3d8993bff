// Encode and decode throughput of each column codec chain on one granule (8192 values) of data
// shaped like ClickBench's columns: a sorted Int64 key with small steps (a timestamp), a random
// Int64 (a hash or id), a low-cardinality Int16 (a flag or enum), a Float64 with few distinct
// values, and URL-like Strings. Throughput is counted in raw (decoded) bytes per second; the
// "ratio" counter is raw bytes / encoded bytes. Decoding runs once per granule into the
// uncompressed cache, so decode throughput bounds cold scans and insert throughput bounds
// encode.
//
//   build/bench/codec_bench --benchmark_filter=Decode
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/codec_spec.h"
#include "storage/compression_codec.h"

namespace granite::storage {
namespace {

using core::TypeId;

constexpr size_t kRows = 8192;

template <typename T>
std::string Raw(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

struct Shape {
  const char* name;
  TypeId type;
  std::string raw;
};

const std::vector<Shape>& Shapes() {
  static const std::vector<Shape> shapes = [] {
    std::mt19937_64 random(42);
    std::vector<int64_t> time(kRows), hash(kRows);
    std::vector<int16_t> flags(kRows);
    std::vector<double> price(kRows);
    int64_t t = 1'373'000'000;
    for (size_t i = 0; i < kRows; ++i) {
      t += static_cast<int64_t>(random() % 20);
      time[i] = t;
      hash[i] = static_cast<int64_t>(random());
      flags[i] = static_cast<int16_t>(random() % 100 < 90 ? 0 : random() % 8);
      price[i] = static_cast<double>(random() % 500) / 4;
    }
    std::string urls;
    std::string chars;
    for (size_t i = 0; i < kRows; ++i) {
      std::string url = "http://site" + std::to_string(random() % 50) + ".example/path/" +
                        std::to_string(random() % 1000) + "?q=" + std::to_string(random() % 97);
      uint32_t length = static_cast<uint32_t>(url.size());
      urls.append(reinterpret_cast<const char*>(&length), 4);
      chars += url;
    }
    return std::vector<Shape>{{"sorted_time", TypeId::kInt64, Raw(time)},
                              {"random_int64", TypeId::kInt64, Raw(hash)},
                              {"flag_int16", TypeId::kInt16, Raw(flags)},
                              {"price_float64", TypeId::kFloat64, Raw(price)},
                              {"url_string", TypeId::kString, urls + chars}};
  }();
  return shapes;
}

const char* const kChains[] = {"LZ4",          "LZ4HC(9)",           "ZSTD(1)",
                               "ZSTD(3)",      "Delta, LZ4",         "Delta, ZSTD(1)",
                               "DoubleDelta",  "DoubleDelta, ZSTD(1)", "T64, LZ4",
                               "T64, ZSTD(1)", "Gorilla, ZSTD(1)",   "NONE"};

// Returns the codec for chain `c` on shape `s`, or false when the chain does not apply.
bool CodecFor(int s, int c, CompressionCodec* out) {
  const Shape& shape = Shapes()[s];
  absl::StatusOr<core::CodecSpec> spec = core::ParseCodecSpec(kChains[c], shape.type, "c");
  if (!spec.ok()) return false;
  *out = CompressionCodec(*spec);
  return true;
}

void BM_Encode(benchmark::State& state) {
  CompressionCodec codec = CompressionCodec::Lz4();
  if (!CodecFor(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), &codec)) {
    state.SkipWithError("codec does not apply to this type");
    return;
  }
  const std::string& raw = Shapes()[state.range(0)].raw;
  std::string block;
  for (auto _ : state) {
    (void)codec.Encode(raw, &block);
    benchmark::DoNotOptimize(block.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * raw.size()));
  state.counters["ratio"] = static_cast<double>(raw.size()) / static_cast<double>(block.size());
  state.SetLabel(std::string(Shapes()[state.range(0)].name) + " " + kChains[state.range(1)]);
}

void BM_Decode(benchmark::State& state) {
  CompressionCodec codec = CompressionCodec::Lz4();
  if (!CodecFor(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), &codec)) {
    state.SkipWithError("codec does not apply to this type");
    return;
  }
  const std::string& raw = Shapes()[state.range(0)].raw;
  std::string block;
  (void)codec.Encode(raw, &block);
  std::string out(raw.size(), '\0');
  for (auto _ : state) {
    bool ok = codec.Decode(block.data(), block.size(), out.data(), out.size());
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * raw.size()));
  state.counters["ratio"] = static_cast<double>(raw.size()) / static_cast<double>(block.size());
  state.SetLabel(std::string(Shapes()[state.range(0)].name) + " " + kChains[state.range(1)]);
}

void Args(benchmark::internal::Benchmark* b) {
  for (int s = 0; s < 5; ++s) {
    for (int c = 0; c < static_cast<int>(std::size(kChains)); ++c) b->Args({s, c});
  }
}

BENCHMARK(BM_Encode)->Apply(Args);
BENCHMARK(BM_Decode)->Apply(Args);

}  // namespace
}  // namespace granite::storage

BENCHMARK_MAIN();
