// Statistical aggregates over numeric arguments, each a sum of moments per group (result Float64):
//   varPop, varSamp, stddevPop, stddevSamp, skewPop, skewSamp, kurtPop, kurtSamp (x);
//   covarPop, covarSamp, corr (x, y); regr_count (UInt64), regr_avgx, regr_avgy, regr_sxx,
//   regr_syy, regr_sxy, regr_slope, regr_intercept, regr_r2 (y, x); avgWeighted (x, weight);
//   varPopStable, varSampStable, stddevPopStable, stddevSampStable, covarPopStable,
//   covarSampStable, corrStable: Welford's running mean and squared deviations, merged with Chan's
//   formula, which loses less precision when the values are far from zero.
// As in ClickHouse, an empty group gives nan, a sample variance of fewer than two values nan, and
// a negative population variance from rounding 0.
#include <cmath>
#include <limits>

#include "core/aggregation/builtin_aggregate_functions.h"
#include "core/aggregation/cell_codec.h"
#include "core/aggregation/generic_aggregate_function.h"

namespace granite::core {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// Plain power sums: n, Σx, Σy, Σx², Σy², Σxy, Σx³, Σx⁴.
struct Moments {
  double n = 0, x = 0, y = 0, xx = 0, yy = 0, xy = 0, x3 = 0, x4 = 0;
};

class MomentsOp {
 public:
  using State = Moments;
  explicit MomentsOp(MomentKind kind) : kind_(kind) {}

  void Add(State& s, const std::vector<ColumnPtr>& args, size_t row) const {
    const double x = NumberAt(*args[0], row);
    const double y = args.size() > 1 ? NumberAt(*args[1], row) : 0;
    if (kind_ == MomentKind::kAvgWeighted) {  // Σ x·w and Σ w
      s.n += y;
      s.xy += x * y;
      return;
    }
    s.n += 1;
    s.x += x;
    s.y += y;
    s.xx += x * x;
    s.yy += y * y;
    s.xy += x * y;
    s.x3 += x * x * x;
    s.x4 += x * x * x * x;
  }
  void Merge(State& s, State&& o) const {
    s.n += o.n, s.x += o.x, s.y += o.y, s.xx += o.xx, s.yy += o.yy, s.xy += o.xy;
    s.x3 += o.x3, s.x4 += o.x4;
  }
  void Write(const State& s, std::string* out) const { WritePod(s, out); }
  bool Read(std::string_view in, State* s) const { return ReadPod(in, s); }
  TypeId ResultType() const {
    return kind_ == MomentKind::kRegrCount ? TypeId::kUInt64 : TypeId::kFloat64;
  }

  void Final(State& s, Column* out) const {
    if (kind_ == MomentKind::kRegrCount) {
      out->Append<uint64_t>(static_cast<uint64_t>(s.n));
      return;
    }
    out->Append<double>(Value(s));
  }

 private:
  static double Pop(const State& s) {
    if (s.n == 0) return kNan;
    const double v = (s.xx - s.x * s.x / s.n) / s.n;
    return v < 0 ? 0 : v;
  }
  static double Samp(const State& s) {
    if (s.n <= 1) return kNan;
    const double v = (s.xx - s.x * s.x / s.n) / (s.n - 1);
    return v < 0 ? 0 : v;
  }
  static double Third(const State& s) {
    return s.x3 - (3 * s.xx - 2 * s.x * s.x / s.n) * s.x / s.n;
  }
  static double Fourth(const State& s) {
    return s.x4 - (4 * s.x3 - (6 * s.xx - 3 * s.x * s.x / s.n) * s.x / s.n) * s.x / s.n;
  }

  double Value(const State& s) const {
    const double n = s.n;
    switch (kind_) {
      case MomentKind::kVarPop: return Pop(s);
      case MomentKind::kVarSamp: return Samp(s);
      case MomentKind::kStddevPop: return std::sqrt(Pop(s));
      case MomentKind::kStddevSamp: return std::sqrt(Samp(s));
      case MomentKind::kSkewPop: {
        if (n == 0) return kNan;
        const double v = Pop(s);
        return v > 0 ? Third(s) / n / std::pow(v, 1.5) : kNan;
      }
      case MomentKind::kSkewSamp: {
        if (n <= 1) return kNan;
        const double v = Samp(s);
        return v > 0 ? Third(s) / n / std::pow(v, 1.5) : kNan;
      }
      case MomentKind::kKurtPop: {
        if (n == 0) return kNan;
        const double v = Pop(s);
        return v > 0 ? Fourth(s) / n / (v * v) : kNan;
      }
      case MomentKind::kKurtSamp: {
        if (n <= 1) return kNan;
        const double v = Samp(s);
        return v > 0 ? Fourth(s) / n / (v * v) : kNan;
      }
      case MomentKind::kCovarPop: return n == 0 ? kNan : (s.xy - s.x * s.y / n) / n;
      case MomentKind::kCovarSamp: return n <= 1 ? kNan : (s.xy - s.x * s.y / n) / (n - 1);
      case MomentKind::kCorr:
        return (n * s.xy - s.x * s.y) /
               std::sqrt((n * s.xx - s.x * s.x) * (n * s.yy - s.y * s.y));
      case MomentKind::kAvgWeighted: return s.xy / s.n;
      // regr_*(y, x): the first argument is y (here x), the second x (here y).
      case MomentKind::kRegrAvgx: return s.y / n;
      case MomentKind::kRegrAvgy: return s.x / n;
      case MomentKind::kRegrSxx: return n == 0 ? kNan : s.yy - s.y * s.y / n;
      case MomentKind::kRegrSyy: return n == 0 ? kNan : s.xx - s.x * s.x / n;
      case MomentKind::kRegrSxy: return n == 0 ? kNan : s.xy - s.x * s.y / n;
      case MomentKind::kRegrSlope: {
        const double sxx = s.yy - s.y * s.y / n;
        return n == 0 || sxx == 0 ? kNan : (s.xy - s.x * s.y / n) / sxx;
      }
      case MomentKind::kRegrIntercept: {
        const double sxx = s.yy - s.y * s.y / n;
        if (n == 0 || sxx == 0) return kNan;
        const double slope = (s.xy - s.x * s.y / n) / sxx;
        return (s.x - slope * s.y) / n;
      }
      case MomentKind::kRegrR2: {
        if (n == 0) return kNan;
        const double sxx = s.yy - s.y * s.y / n;
        const double syy = s.xx - s.x * s.x / n;
        const double sxy = s.xy - s.x * s.y / n;
        if (sxx == 0) return kNan;
        if (syy == 0) return 1;
        return sxy * sxy / (sxx * syy);
      }
      default: return kNan;
    }
  }

  const MomentKind kind_;
};

// Welford's state for one or two variables: count, means, co-moments.
struct Welford {
  double n = 0, mean_x = 0, mean_y = 0, m2x = 0, m2y = 0, cxy = 0;
};

class StableOp {
 public:
  using State = Welford;
  explicit StableOp(MomentKind kind) : kind_(kind) {}

  void Add(State& s, const std::vector<ColumnPtr>& args, size_t row) const {
    const double x = NumberAt(*args[0], row);
    const double y = args.size() > 1 ? NumberAt(*args[1], row) : 0;
    s.n += 1;
    const double dx = x - s.mean_x;
    const double dy = y - s.mean_y;
    s.mean_x += dx / s.n;
    s.mean_y += dy / s.n;
    s.m2x += dx * (x - s.mean_x);
    s.m2y += dy * (y - s.mean_y);
    s.cxy += dx * (y - s.mean_y);
  }
  void Merge(State& s, State&& o) const {
    if (o.n == 0) return;
    if (s.n == 0) {
      s = o;
      return;
    }
    const double n = s.n + o.n;
    const double dx = o.mean_x - s.mean_x;
    const double dy = o.mean_y - s.mean_y;
    s.m2x += o.m2x + dx * dx * s.n * o.n / n;
    s.m2y += o.m2y + dy * dy * s.n * o.n / n;
    s.cxy += o.cxy + dx * dy * s.n * o.n / n;
    s.mean_x = (s.mean_x * s.n + o.mean_x * o.n) / n;
    s.mean_y = (s.mean_y * s.n + o.mean_y * o.n) / n;
    s.n = n;
  }
  void Write(const State& s, std::string* out) const { WritePod(s, out); }
  bool Read(std::string_view in, State* s) const { return ReadPod(in, s); }
  TypeId ResultType() const { return TypeId::kFloat64; }

  void Final(State& s, Column* out) const {
    double v = kNan;
    switch (kind_) {
      case MomentKind::kVarPop: v = s.n == 0 ? kNan : s.m2x / s.n; break;
      case MomentKind::kVarSamp: v = s.n <= 1 ? kNan : s.m2x / (s.n - 1); break;
      case MomentKind::kStddevPop: v = s.n == 0 ? kNan : std::sqrt(s.m2x / s.n); break;
      case MomentKind::kStddevSamp: v = s.n <= 1 ? kNan : std::sqrt(s.m2x / (s.n - 1)); break;
      case MomentKind::kCovarPop: v = s.n == 0 ? kNan : s.cxy / s.n; break;
      case MomentKind::kCovarSamp: v = s.n <= 1 ? kNan : s.cxy / (s.n - 1); break;
      case MomentKind::kCorr: v = s.cxy / std::sqrt(s.m2x * s.m2y); break;
      default: break;
    }
    out->Append<double>(v);
  }

 private:
  const MomentKind kind_;
};

}  // namespace

std::unique_ptr<AggregateFunction> MakeMoments(MomentKind kind, bool stable) {
  if (stable) return MakeGenericAggregate(StableOp(kind));
  return MakeGenericAggregate(MomentsOp(kind));
}

}  // namespace granite::core
