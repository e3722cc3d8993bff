// min(x), max(x), any(x) over every type, result the argument type; min and max skip NaN. State columns: the value
// (argument type) and a UInt8 "has value" flag; a group that saw no row finalizes to the type's
// default (0, empty string), like ClickHouse. Fixed-width types use SimpleAggregateFunction; String
// keeps its values in an arena owned by the function (StringExtremeFunction).
//
// any(x) keeps the first value the state saw; after merging partial states from several threads it
// is one of the group's values, not a particular one.
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/aggregation/arena.h"
#include "core/aggregation/builtin_aggregate_functions.h"
#include "core/aggregation/simple_aggregate_function.h"

namespace granite::core {
namespace {

enum class Extreme { kMin, kMax, kAny };

// Returns true if `value` replaces `current` in a state that already has a value. Like
// ClickHouse, min and max skip NaN: a NaN is the result only when every value is NaN, whatever
// order rows, threads and workers bring them in.
template <Extreme kKind, typename T>
inline bool Replaces(const T& value, const T& current) {
  if constexpr (kKind == Extreme::kAny) return false;
  bool better;
  if constexpr (kKind == Extreme::kMin) {
    better = value < current;
  } else {
    better = current < value;
  }
  if constexpr (std::is_floating_point_v<T>) better |= current != current && value == value;
  return better;
}

template <typename T>
struct ExtremeState {
  T value;
  uint8_t has;
};

// Keeps the minimum, maximum or first value of a fixed-width type.
template <typename T, Extreme kKind>
struct ExtremeOp {
  using In = T;
  using State = ExtremeState<T>;
  using Result = T;

  static State Init() { return State{T{}, 0}; }
  static void Add(State& s, In value) {
    // Branch-free select: the compiler emits conditional moves for the hot min/max loop.
    bool take = !s.has || Replaces<kKind>(value, s.value);
    s.value = take ? value : s.value;
    s.has = 1;
  }
  static void Merge(State& s, const State& other) {
    if (other.has) Add(s, other.value);
  }
  static Result Final(const State& s) { return s.value; }
  static std::vector<TypeId> StateTypes(TypeId arg) { return {arg, TypeId::kUInt8}; }
  static TypeId ResultType(TypeId arg) { return arg; }
  static void Write(const State& s, char* const* columns, size_t row) {
    StoreAt<T>(columns[0], row, s.value);
    StoreAt<uint8_t>(columns[1], row, s.has);
  }
  static State Read(const char* const* columns, size_t row) {
    return State{LoadAt<T>(columns[0], row), LoadAt<uint8_t>(columns[1], row)};
  }
};

// Keeps the minimum, maximum or first String value per group; values are copied into an arena.
// Thread-safety: none (see AggregateFunction).
template <Extreme kKind>
class StringExtremeFunction final : public AggregateFunction {
 public:
  std::vector<TypeId> StateTypes() const override { return {TypeId::kString, TypeId::kUInt8}; }
  TypeId ResultType() const override { return TypeId::kString; }
  size_t groups() const override { return values_.size(); }
  void Resize(size_t groups) override {
    values_.resize(groups);
    has_.resize(groups, 0);
  }

  void AddBatch(const uint32_t* group_ids, const std::vector<ColumnPtr>& args,
                size_t rows) override {
    const Column& column = *args[0];
    for (size_t i = 0; i < rows; ++i) Add(group_ids[i], column.StringAt(i));
  }

  void AddBatchOneGroup(uint32_t group, const std::vector<ColumnPtr>& args, size_t rows) override {
    const Column& column = *args[0];
    if (rows == 0) return;
    // Find the winner among the batch first, then copy it once.
    std::string_view best = column.StringAt(0);
    for (size_t i = 1; i < rows && kKind != Extreme::kAny; ++i) {
      std::string_view value = column.StringAt(i);
      if (Replaces<kKind>(value, best)) best = value;
    }
    Add(group, best);
  }

  absl::Status MergeBatch(const uint32_t* group_ids, const ColumnPtr* states,
                          size_t rows) override {
    const Column& values = *states[0];
    const uint8_t* has = states[1]->Data<uint8_t>();
    for (size_t i = 0; i < rows; ++i) {
      if (has[i]) Add(group_ids[i], values.StringAt(i));
    }
    return absl::OkStatus();
  }

  void MergeFrom(const uint32_t* dst_groups, AggregateFunction& src, const uint32_t* src_groups,
                 size_t count) override {
    const auto& other = static_cast<const StringExtremeFunction&>(src);
    for (size_t i = 0; i < count; ++i) {
      uint32_t g = src_groups[i];
      // The view may stay in src's arena: src outlives the merged states (see MergeFrom).
      if (other.has_[g]) AddView(dst_groups[i], other.values_[g]);
    }
  }

  void WriteStates(const uint32_t* groups, size_t count, Column* const* out) const override {
    out[0]->Reserve(out[0]->size() + count);
    out[1]->Reserve(out[1]->size() + count);
    for (size_t i = 0; i < count; ++i) {
      out[0]->AppendString(values_[groups[i]]);
      out[1]->Append<uint8_t>(has_[groups[i]]);
    }
  }

  size_t StateBytes() const override { return arena_.BytesReserved(); }

  void Finalize(Column* out) const override {
    out->Reserve(out->size() + values_.size());
    for (std::string_view value : values_) out->AppendString(value);
  }

  void Clear() override {
    std::vector<std::string_view>().swap(values_);
    std::vector<uint8_t>().swap(has_);
    arena_.Clear();
  }

 private:
  void Add(uint32_t group, std::string_view value) {
    if (has_[group] && !Replaces<kKind>(value, values_[group])) return;
    values_[group] = arena_.Copy(value);
    has_[group] = 1;
  }

  // Like Add, keeping `value` (which outlives the state) without copying it.
  void AddView(uint32_t group, std::string_view value) {
    if (has_[group] && !Replaces<kKind>(value, values_[group])) return;
    values_[group] = value;
    has_[group] = 1;
  }

  std::vector<std::string_view> values_;  // views into arena_; empty for groups without a value
  std::vector<uint8_t> has_;
  Arena arena_;
};

template <Extreme kKind>
std::unique_ptr<AggregateFunction> MakeExtreme(TypeId arg) {
  if (arg == TypeId::kString) return std::make_unique<StringExtremeFunction<kKind>>();
  return DispatchFixed(arg, [&](auto tag) -> std::unique_ptr<AggregateFunction> {
    using T = typename decltype(tag)::Type;
    return MakeSimpleAggregate<ExtremeOp<T, kKind>>(arg);
  });
}

}  // namespace

std::unique_ptr<AggregateFunction> MakeMin(TypeId arg) { return MakeExtreme<Extreme::kMin>(arg); }
std::unique_ptr<AggregateFunction> MakeMax(TypeId arg) { return MakeExtreme<Extreme::kMax>(arg); }
std::unique_ptr<AggregateFunction> MakeAny(TypeId arg) { return MakeExtreme<Extreme::kAny>(arg); }

}  // namespace granite::core
