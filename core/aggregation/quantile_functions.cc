// The quantile family, quantile(level)(x) with level in [0, 1] (default 0.5; median* are the
// same functions). NaN values are skipped. Partial states are the values themselves (or the
// t-digest's centroids), so states merge across threads and workers.
//   quantile, quantileDeterministic: sorts the values and interpolates linearly at
//     level * (n - 1); Float64 (Date / DateTime: the argument type). ClickHouse keeps a reservoir
//     sample of 8192 values and so agrees exactly up to 8192 values; granite keeps every value.
//   quantileExact: the value at floor(level * n) of the sorted values, argument type;
//     quantileExactLow / High: the lower / upper median at level 0.5, else as quantileExact.
//   quantileExactExclusive / Inclusive: Excel's PERCENTILE.EXC / INC, Float64.
//   quantileTiming: values truncated to integers, negatives dropped, capped at 30000; the value
//     at floor(level * n); Float32.
//   quantileBFloat16: values truncated to bfloat16; the value at ceil(level * n) - 1; Float64.
//   quantileExactWeighted(level)(x, w): the first value whose cumulative weight reaches
//     level * total weight; argument type.
//   quantileTDigest: ClickHouse's t-digest (epsilon 0.01, compression on every 2048 additions
//     and before a state is written or finalized); Float32 (Date / DateTime: argument type).
//     Equal to the exact interpolation while the digest holds only singletons (under ~200 values).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/aggregation/builtin_aggregate_functions.h"
#include "core/aggregation/cell_codec.h"
#include "core/aggregation/generic_aggregate_function.h"

namespace granite::core {
namespace {

template <typename T>
bool IsNan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  return false;
}

float ToBFloat16(double v) {
  float f = static_cast<float>(v);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits &= 0xffff0000u;
  std::memcpy(&f, &bits, 4);
  return f;
}

template <typename T>
class SampleOp {
 public:
  using State = std::vector<T>;
  SampleOp(QuantileKind kind, TypeId arg, double level) : kind_(kind), arg_(arg), level_(level) {}

  void Add(State& s, const std::vector<ColumnPtr>& args, size_t row) const {
    T v = args[0]->Data<T>()[row];
    if (IsNan(v)) return;
    s.push_back(v);
  }
  void Merge(State& s, State&& o) const {
    if (s.empty()) {
      s = std::move(o);
    } else {
      s.insert(s.end(), o.begin(), o.end());
    }
  }
  void Write(const State& s, std::string* out) const {
    out->append(reinterpret_cast<const char*>(s.data()), s.size() * sizeof(T));
  }
  bool Read(std::string_view in, State* s) const {
    if (in.size() % sizeof(T) != 0) return false;
    s->resize(in.size() / sizeof(T));
    std::memcpy(s->data(), in.data(), in.size());
    return true;
  }
  TypeId ResultType() const { return QuantileResultType(kind_, arg_); }

  void Final(State& s, Column* out) const {
    const TypeId result = ResultType();
    const size_t n = s.size();
    auto put_double = [&](double v) {
      if (result == TypeId::kFloat64) {
        out->Append<double>(v);
      } else if (result == TypeId::kFloat32) {
        out->Append<float>(static_cast<float>(v));
      } else {
        out->Append<T>(static_cast<T>(v));
      }
    };
    auto nth = [&](size_t k) {
      k = std::min(k, n - 1);
      std::nth_element(s.begin(), s.begin() + k, s.end());
      return s[k];
    };
    if (n == 0) {
      if (result == TypeId::kFloat64 || result == TypeId::kFloat32) {
        put_double(std::numeric_limits<double>::quiet_NaN());
      } else {
        out->Append<T>(T{});
      }
      return;
    }
    switch (kind_) {
      case QuantileKind::kInterpolated: {
        std::sort(s.begin(), s.end());
        const double index = std::max(0.0, std::min(n - 1.0, level_ * (n - 1)));
        const size_t i = static_cast<size_t>(index);
        if (i + 1 >= n) return put_double(static_cast<double>(s[i]));
        const double frac = index - i;
        return put_double(static_cast<double>(s[i]) * (1 - frac) +
                          static_cast<double>(s[i + 1]) * frac);
      }
      case QuantileKind::kExact: {
        T v = nth(level_ < 1 ? static_cast<size_t>(level_ * n) : n - 1);
        return out->Append<T>(v);
      }
      case QuantileKind::kExactLow:
      case QuantileKind::kExactHigh: {
        size_t k;
        if (level_ == 0.5) {
          k = kind_ == QuantileKind::kExactHigh || n % 2 == 1 ? n / 2 : n / 2 - 1;
        } else {
          k = level_ < 1 ? static_cast<size_t>(level_ * n) : n - 1;
        }
        return out->Append<T>(nth(k));
      }
      case QuantileKind::kExactExclusive:
      case QuantileKind::kExactInclusive: {
        std::sort(s.begin(), s.end());
        const bool exclusive = kind_ == QuantileKind::kExactExclusive;
        const double h = exclusive ? level_ * (n + 1) : level_ * (n - 1);
        if (exclusive) {
          if (h <= 1) return put_double(static_cast<double>(s[0]));
          if (h >= n) return put_double(static_cast<double>(s[n - 1]));
          const size_t i = static_cast<size_t>(h);
          return put_double(static_cast<double>(s[i - 1]) +
                            (h - i) * (static_cast<double>(s[i]) - static_cast<double>(s[i - 1])));
        }
        const size_t i = static_cast<size_t>(h);
        if (i + 1 >= n) return put_double(static_cast<double>(s[n - 1]));
        return put_double(static_cast<double>(s[i]) +
                          (h - i) * (static_cast<double>(s[i + 1]) - static_cast<double>(s[i])));
      }
      case QuantileKind::kTiming: {
        std::vector<int64_t> values;
        values.reserve(n);
        for (T v : s) {
          const double d = static_cast<double>(v);
          if (d < 0) continue;
          values.push_back(d > 30000 ? 30000 : static_cast<int64_t>(d));
        }
        if (values.empty()) return put_double(std::numeric_limits<double>::quiet_NaN());
        const size_t m = values.size();
        const size_t k = std::min(m - 1, level_ < 1 ? static_cast<size_t>(level_ * m) : m - 1);
        std::nth_element(values.begin(), values.begin() + k, values.end());
        return put_double(static_cast<double>(values[k]));
      }
      case QuantileKind::kBFloat16: {
        std::vector<float> values;
        values.reserve(n);
        for (T v : s) values.push_back(ToBFloat16(static_cast<double>(v)));
        size_t k = static_cast<size_t>(std::ceil(level_ * n));
        k = k == 0 ? 0 : std::min(k - 1, n - 1);
        std::nth_element(values.begin(), values.begin() + k, values.end());
        return put_double(values[k]);
      }
      default: return put_double(std::numeric_limits<double>::quiet_NaN());
    }
  }

 private:
  const QuantileKind kind_;
  const TypeId arg_;
  const double level_;
};

// quantileExactWeighted(level)(x, w): (value, weight) pairs.
template <typename T>
class WeightedOp {
 public:
  using State = std::vector<std::pair<T, uint64_t>>;
  WeightedOp(TypeId arg, double level) : arg_(arg), level_(level) {}

  void Add(State& s, const std::vector<ColumnPtr>& args, size_t row) const {
    T v = args[0]->Data<T>()[row];
    if (IsNan(v)) return;
    s.emplace_back(v, static_cast<uint64_t>(NumberAt(*args[1], row)));
  }
  void Merge(State& s, State&& o) const { s.insert(s.end(), o.begin(), o.end()); }
  void Write(const State& s, std::string* out) const {
    out->append(reinterpret_cast<const char*>(s.data()), s.size() * sizeof(s[0]));
  }
  bool Read(std::string_view in, State* s) const {
    if (in.size() % sizeof(typename State::value_type) != 0) return false;
    s->resize(in.size() / sizeof(typename State::value_type));
    std::memcpy(static_cast<void*>(s->data()), in.data(), in.size());
    return true;
  }
  TypeId ResultType() const { return arg_; }

  void Final(State& s, Column* out) const {
    std::sort(s.begin(), s.end());
    // Equal values add up their weights.
    double total = 0;
    for (const auto& p : s) total += static_cast<double>(p.second);
    const double threshold = std::ceil(total * level_);
    double sum = 0;
    T result{};
    for (size_t i = 0; i < s.size(); ++i) {
      sum += static_cast<double>(s[i].second);
      result = s[i].first;
      if (sum >= threshold && (i + 1 == s.size() || s[i + 1].first != s[i].first)) break;
    }
    out->Append<T>(result);
  }

 private:
  const TypeId arg_;
  const double level_;
};

// ClickHouse's t-digest: centroids (mean, count) as Float32 pairs.
struct Centroid {
  float mean;
  float count;
};

struct Digest {
  std::vector<Centroid> centroids;
  double count = 0;
  size_t unmerged = 0;
};

constexpr double kEpsilon = 0.01;
constexpr size_t kMaxUnmerged = 2048;
constexpr size_t kMaxCentroids = 2048;

void Compress(Digest& d) {
  if (d.unmerged == 0 && d.centroids.size() <= kMaxCentroids) return;
  auto& c = d.centroids;
  std::stable_sort(c.begin(), c.end(),
                   [](const Centroid& a, const Centroid& b) { return a.mean < b.mean; });
  const double count_eps4 = d.count * kEpsilon * 4;
  double sum = 0;
  size_t l = 0;
  double l_mean = c[0].mean;
  double l_count = c[0].count;
  for (size_t r = 1; r < c.size(); ++r) {
    double ql = (sum + l_count * 0.5) / d.count;
    double err = ql * (1 - ql);
    double qr = (sum + l_count + c[r].count * 0.5) / d.count;
    err = std::min(err, qr * (1 - qr));
    const double k = count_eps4 * err;
    const bool mergeable = l_mean == c[r].mean || (!std::isinf(l_mean) && !std::isinf(c[r].mean));
    if (l_count + c[r].count <= k && mergeable) {
      l_count += c[r].count;
      if (c[r].mean != l_mean) l_mean += c[r].count * (c[r].mean - l_mean) / l_count;
      c[l].mean = static_cast<float>(l_mean);
      c[l].count = static_cast<float>(l_count);
    } else {
      sum += c[l].count;
      ++l;
      if (l != r) c[l] = c[r];
      l_mean = c[l].mean;
      l_count = c[l].count;
    }
  }
  d.count = sum + l_count;
  c.resize(l + 1);
  d.unmerged = 0;
}

void AddCentroid(Digest& d, Centroid c) {
  d.centroids.push_back(c);
  d.count += c.count;
  if (++d.unmerged > kMaxUnmerged) Compress(d);
}

template <typename T>
class TDigestOp {
 public:
  using State = Digest;
  TDigestOp(TypeId arg, double level) : arg_(arg), level_(level) {}

  void Add(State& s, const std::vector<ColumnPtr>& args, size_t row) const {
    const float v = static_cast<float>(args[0]->Data<T>()[row]);
    if (v != v) return;
    AddCentroid(s, Centroid{v, 1});
  }
  void Merge(State& s, State&& o) const {
    for (const Centroid& c : o.centroids) AddCentroid(s, c);
  }
  void Write(const State& s, std::string* out) const {
    Digest copy = s;
    if (!copy.centroids.empty()) Compress(copy);
    out->append(reinterpret_cast<const char*>(copy.centroids.data()),
                copy.centroids.size() * sizeof(Centroid));
  }
  bool Read(std::string_view in, State* s) const {
    if (in.size() % sizeof(Centroid) != 0) return false;
    s->centroids.resize(in.size() / sizeof(Centroid));
    std::memcpy(static_cast<void*>(s->centroids.data()), in.data(), in.size());
    for (const Centroid& c : s->centroids) {
      if (!(c.count > 0)) return false;
      s->count += c.count;
    }
    s->unmerged = s->centroids.size();
    return true;
  }
  TypeId ResultType() const { return QuantileResultType(QuantileKind::kTDigest, arg_); }

  void Final(State& s, Column* out) const {
    const double v = Quantile(s);
    if (ResultType() == TypeId::kFloat32) {
      out->Append<float>(static_cast<float>(v));
    } else {
      out->Append<T>(v != v ? T{} : static_cast<T>(v));
    }
  }

 private:
  double Quantile(State& s) const {
    if (s.centroids.empty()) return std::numeric_limits<double>::quiet_NaN();
    Compress(s);
    const auto& c = s.centroids;
    if (c.size() == 1) return c[0].mean;
    const double x = level_ * s.count;
    double prev_x = 0;
    float sum = 0;
    float prev_mean = c[0].mean;
    float prev_count = c[0].count;
    for (const Centroid& cur : c) {
      const double current_x = sum + cur.count * 0.5;
      if (current_x >= x) {
        const double left = prev_x + 0.5 * (prev_count == 1);
        const double right = current_x - 0.5 * (cur.count == 1);
        if (x <= left) return prev_mean;
        if (x >= right) return cur.mean;
        const float fx = static_cast<float>(x);
        const float fl = static_cast<float>(left);
        const float fr = static_cast<float>(right);
        const double k = (fx - fl) / (fr - fl);
        return static_cast<float>((1 - k) * prev_mean + k * cur.mean);
      }
      sum += cur.count;
      prev_mean = cur.mean;
      prev_count = cur.count;
      prev_x = current_x;
    }
    return c.back().mean;
  }

  const TypeId arg_;
  const double level_;
};

}  // namespace

TypeId QuantileResultType(QuantileKind kind, TypeId arg) {
  switch (kind) {
    case QuantileKind::kExact:
    case QuantileKind::kExactLow:
    case QuantileKind::kExactHigh:
    case QuantileKind::kExactWeighted: return arg;
    case QuantileKind::kExactExclusive:
    case QuantileKind::kExactInclusive:
    case QuantileKind::kBFloat16: return TypeId::kFloat64;
    case QuantileKind::kTiming: return TypeId::kFloat32;
    case QuantileKind::kTDigest: return IsDateOrDateTime(arg) ? arg : TypeId::kFloat32;
    case QuantileKind::kInterpolated: return IsDateOrDateTime(arg) ? arg : TypeId::kFloat64;
  }
  return TypeId::kFloat64;
}

std::unique_ptr<AggregateFunction> MakeQuantile(QuantileKind kind, TypeId arg, double level) {
  return DispatchFixed(arg, [&](auto tag) -> std::unique_ptr<AggregateFunction> {
    using T = typename decltype(tag)::Type;
    if (kind == QuantileKind::kTDigest) return MakeGenericAggregate(TDigestOp<T>(arg, level));
    if (kind == QuantileKind::kExactWeighted) return MakeGenericAggregate(WeightedOp<T>(arg, level));
    return MakeGenericAggregate(SampleOp<T>(kind, arg, level));
  });
}

}  // namespace granite::core
