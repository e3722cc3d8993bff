// Aggregates that keep values of any type as cells (cell_codec.h), and small numeric ones:
//   argMin(a, b) / argMax(a, b): a at the smallest / largest b (the first seen on ties; NaN b
//     never wins over a number); result the type of a, its default for an empty group.
//   anyLast(x): the last value seen (after merging, one of the group's values).
//   any(x) of an array: the first value seen (the typed `any` keeps the other types).
//   anyHeavy(x): the majority candidate of the Boyer-Moore vote, as ClickHouse.
//   entropy(x): Shannon entropy in bits of the value distribution, Float64.
//   uniqUpTo(N)(x): the exact number of distinct values if at most N, else N + 1; UInt64.
//   sumKahan(x): compensated Float64 sum.
//   boundingRatio(x, y): (y at max x - y at min x) / (max x - min x), Float64.
//   groupBitAnd / groupBitOr / groupBitXor(x): bitwise fold of an integer, the argument type
//     (groupBitAnd of no rows: all bits set, as ClickHouse).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "core/aggregation/builtin_aggregate_functions.h"
#include "core/aggregation/cell_codec.h"
#include "core/aggregation/generic_aggregate_function.h"

namespace granite::core {
namespace {

struct CellPair {
  bool has = false;
  std::string value;  // the result cell
  std::string key;    // the compared cell (argMin / argMax); anyHeavy: unused
  uint64_t counter = 0;
};

void WritePair(const CellPair& s, std::string* out) {
  out->push_back(s.has ? 1 : 0);
  if (!s.has) return;
  PutCell(out, s.value);
  PutCell(out, s.key);
  PutVarint64(out, s.counter);
}

bool ReadPair(std::string_view in, CellPair* s) {
  if (in.empty()) return false;
  s->has = in[0] != 0;
  in.remove_prefix(1);
  if (!s->has) return in.empty();
  return GetCell(&in, &s->value) && GetCell(&in, &s->key) && GetVarint64(&in, &s->counter) &&
         in.empty();
}

class CellOp {
 public:
  using State = CellPair;
  CellOp(ValueKind kind, std::vector<TypeId> args) : kind_(kind), args_(std::move(args)) {}

  void Add(State& s, const std::vector<ColumnPtr>& args, size_t row) const {
    switch (kind_) {
      case ValueKind::kAnyLast:
        s.has = true;
        s.value = CellOf(*args[0], row);
        return;
      case ValueKind::kAnyFirst:
        if (s.has) return;
        s.has = true;
        s.value = CellOf(*args[0], row);
        return;
      case ValueKind::kAnyHeavy: {
        std::string v = CellOf(*args[0], row);
        Vote(s, v, 1);
        return;
      }
      default: {
        std::string key = CellOf(*args[1], row);
        if (!s.has || Better(key, s.key)) {
          s.has = true;
          s.key = std::move(key);
          s.value = CellOf(*args[0], row);
        }
      }
    }
  }
  void Merge(State& s, State&& o) const {
    if (!o.has) return;
    switch (kind_) {
      case ValueKind::kAnyLast: s = std::move(o); return;
      case ValueKind::kAnyFirst:
        if (!s.has) s = std::move(o);
        return;
      case ValueKind::kAnyHeavy: Vote(s, o.value, o.counter); return;
      default:
        if (!s.has || Better(o.key, s.key)) s = std::move(o);
    }
  }
  void Write(const State& s, std::string* out) const { WritePair(s, out); }
  bool Read(std::string_view in, State* s) const { return ReadPair(in, s); }
  TypeId ResultType() const { return args_[0]; }
  void Final(State& s, Column* out) const { AppendCell(out, s.has ? s.value : std::string()); }

 private:
  bool Better(const std::string& key, const std::string& current) const {
    const int c = CompareCells(args_[1], key, current);
    return kind_ == ValueKind::kArgMin ? c < 0 : c > 0;
  }
  static void Vote(State& s, const std::string& v, uint64_t weight) {
    if (s.has && s.value == v) {
      s.counter += weight;
    } else if (!s.has || s.counter < weight) {
      s.counter = s.has ? weight - s.counter : weight;
      s.value = v;
      s.has = true;
    } else {
      s.counter -= weight;
    }
  }

  const ValueKind kind_;
  const std::vector<TypeId> args_;
};

// entropy and uniqUpTo: a map from value cell to count.
class CountsOp {
 public:
  using State = absl::flat_hash_map<std::string, uint64_t>;
  CountsOp(ValueKind kind, uint64_t limit) : kind_(kind), limit_(limit) {}

  void Add(State& s, const std::vector<ColumnPtr>& args, size_t row) const {
    if (kind_ == ValueKind::kUniqUpTo && s.size() > limit_) return;
    ++s[CellOf(*args[0], row)];
  }
  void Merge(State& s, State&& o) const {
    for (auto& [k, v] : o) {
      if (kind_ == ValueKind::kUniqUpTo && s.size() > limit_) return;
      s[k] += v;
    }
  }
  void Write(const State& s, std::string* out) const {
    PutVarint64(out, s.size());
    for (const auto& [k, v] : s) {
      PutCell(out, k);
      PutVarint64(out, v);
    }
  }
  bool Read(std::string_view in, State* s) const {
    uint64_t n;
    if (!GetVarint64(&in, &n) || n > in.size()) return false;
    std::string k;
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t v;
      if (!GetCell(&in, &k) || !GetVarint64(&in, &v)) return false;
      (*s)[k] += v;
    }
    return in.empty();
  }
  TypeId ResultType() const {
    return kind_ == ValueKind::kUniqUpTo ? TypeId::kUInt64 : TypeId::kFloat64;
  }
  void Final(State& s, Column* out) const {
    if (kind_ == ValueKind::kUniqUpTo) {
      out->Append<uint64_t>(std::min<uint64_t>(s.size(), limit_ + 1));
      return;
    }
    double total = 0;
    for (const auto& [k, v] : s) total += static_cast<double>(v);
    double entropy = 0;
    for (const auto& [k, v] : s) {
      const double p = static_cast<double>(v) / total;
      entropy -= p * std::log2(p);
    }
    out->Append<double>(entropy);
  }

 private:
  const ValueKind kind_;
  const uint64_t limit_;
};

struct NumberState {
  double a = 0, b = 0, c = 0, d = 0;
  bool has = false;
};

class NumberOp {
 public:
  using State = NumberState;
  explicit NumberOp(ValueKind kind) : kind_(kind) {}

  void Add(State& s, const std::vector<ColumnPtr>& args, size_t row) const {
    const double x = NumberAt(*args[0], row);
    if (kind_ == ValueKind::kSumKahan) {  // a: sum, b: compensation
      const double y = x - s.b;
      const double t = s.a + y;
      s.b = (t - s.a) - y;
      s.a = t;
      return;
    }
    // boundingRatio: a = min x, b = y at min x, c = max x, d = y at max x.
    const double y = NumberAt(*args[1], row);
    Bound(s, x, y, x, y);
  }
  void Merge(State& s, State&& o) const {
    if (kind_ == ValueKind::kSumKahan) {
      const double y = o.a - (s.b + o.b);
      const double t = s.a + y;
      s.b = (t - s.a) - y;
      s.a = t;
      return;
    }
    if (o.has) Bound(s, o.a, o.b, o.c, o.d);
  }
  void Write(const State& s, std::string* out) const { WritePod(s, out); }
  bool Read(std::string_view in, State* s) const { return ReadPod(in, s); }
  TypeId ResultType() const { return TypeId::kFloat64; }
  void Final(State& s, Column* out) const {
    if (kind_ == ValueKind::kSumKahan) {
      out->Append<double>(s.a);
    } else {
      out->Append<double>(s.has ? (s.d - s.b) / (s.c - s.a)
                                : std::numeric_limits<double>::quiet_NaN());
    }
  }

 private:
  static void Bound(State& s, double min_x, double y_min, double max_x, double y_max) {
    if (!s.has || min_x < s.a) s.a = min_x, s.b = y_min;
    if (!s.has || max_x > s.c) s.c = max_x, s.d = y_max;
    s.has = true;
  }

  const ValueKind kind_;
};

// groupBitAnd / Or / Xor over integer type T.
template <typename T>
class BitOp {
 public:
  using State = T;
  explicit BitOp(ValueKind kind, TypeId arg) : kind_(kind), arg_(arg) {}
  // The empty state is T{} = 0; groupBitAnd keeps its own "seen" bit in Final by starting at ~0:
  // every state is written with Add applied, so a state of 0 for AND means "no row or zero".
  void Add(State& s, const std::vector<ColumnPtr>& args, size_t row) const {
    Fold(s, args[0]->Data<T>()[row]);
  }
  void Merge(State& s, State&& o) const {
    s = kind_ == ValueKind::kBitXor ? static_cast<T>(s ^ o) : static_cast<T>(s | o);
  }
  void Write(const State& s, std::string* out) const { WritePod(s, out); }
  bool Read(std::string_view in, State* s) const { return ReadPod(in, s); }
  TypeId ResultType() const { return arg_; }
  void Final(State& s, Column* out) const {
    out->Append<T>(kind_ == ValueKind::kBitAnd ? static_cast<T>(~s) : s);
  }

 private:
  // groupBitAnd stores the complement so that the zero state is the identity (all bits set).
  void Fold(State& s, T v) const {
    if (kind_ == ValueKind::kBitAnd) {
      s = static_cast<T>(s | static_cast<T>(~v));
    } else if (kind_ == ValueKind::kBitOr) {
      s = static_cast<T>(s | v);
    } else {
      s = static_cast<T>(s ^ v);
    }
  }
  const ValueKind kind_;
  const TypeId arg_;
};

}  // namespace

std::unique_ptr<AggregateFunction> MakeValueAggregate(ValueKind kind,
                                                      const std::vector<TypeId>& args,
                                                      uint64_t param) {
  switch (kind) {
    case ValueKind::kArgMin:
    case ValueKind::kArgMax:
    case ValueKind::kAnyLast:
    case ValueKind::kAnyFirst:
    case ValueKind::kAnyHeavy: return MakeGenericAggregate(CellOp(kind, args));
    case ValueKind::kEntropy:
    case ValueKind::kUniqUpTo: return MakeGenericAggregate(CountsOp(kind, param));
    case ValueKind::kSumKahan:
    case ValueKind::kBoundingRatio: return MakeGenericAggregate(NumberOp(kind));
    case ValueKind::kBitAnd:
    case ValueKind::kBitOr:
    case ValueKind::kBitXor:
      return DispatchFixed(args[0], [&](auto tag) -> std::unique_ptr<AggregateFunction> {
        using T = typename decltype(tag)::Type;
        if constexpr (std::is_integral_v<T>) {
          return MakeGenericAggregate(BitOp<T>(kind, args[0]));
        } else {
          return nullptr;
        }
      });
  }
  return nullptr;
}

}  // namespace granite::core
