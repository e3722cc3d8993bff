// in(x, c1, ..., cn) and notIn -> UInt8. Plans carry in(x, tuple(c1, ..., cn)); core::Expression
// flattens the tuple, so kernels see x followed by the constants. A long set arrives as one
// argument holding a column of its values (ArgumentInfo::set); kernels read only x.
//
// The set is built once at compile time, in x's type: each constant is converted exactly
// (ConvertConstantExactly); constants with no equal value in x's type (300 for a UInt8 x) can
// never match and are dropped. Lookup by type: 1- and 2-byte types index a byte table, up to
// eight values compare directly (a vectorizable loop per value), larger sets of integers over a
// span of at most 256 bits per value use a bitmap over that span, other sets a hash set.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/functions/constant_column.h"
#include "core/functions/function_errors.h"
#include "core/functions/function_table.h"
#include "core/functions/vector_loops.h"
#include "core/status_macros.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

constexpr size_t kMaxLinearValues = 8;

// Returns the constants converted to x's type; those without an exact counterpart are dropped.
absl::StatusOr<std::vector<Value>> SetValues(std::string_view name,
                                             const std::vector<ArgumentInfo>& args) {
  std::vector<Value> values;
  // Adds `value` (of argument i's type) converted to x's type, when it has a counterpart there.
  const bool string_x = IsString(RemoveNullable(args[0].type)) && !IsFixedString(args[0].type);
  auto add = [&](const Value& value, size_t i) -> absl::Status {
    if (string_x && IsFixedString(args[i].type) && std::holds_alternative<std::string>(value)) {
      // A FixedString value compares with a String as toString shows it: without its zero
      // padding (ClickHouse: 'f1' IN (SELECT toFixedString('f1', 4))).
      std::string text = std::get<std::string>(value);
      while (!text.empty() && text.back() == '\0') text.pop_back();
      values.push_back(std::move(text));
      return absl::OkStatus();
    }
    auto converted = ConvertConstantExactly(value, args[i].type, args[0].type);
    if (!converted.ok()) {
      if (CodeOf(converted.status()) == ErrorCode::kIllegalTypeOfArgument) {
        return IllegalArgumentType(name, i, args[i].type);
      }
      return converted.status();
    }
    if (converted->has_value()) values.push_back(**std::move(converted));
    return absl::OkStatus();
  };
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i].set != nullptr) {
      const Column& set = *args[i].set;
      values.reserve(values.size() + set.size());
      for (size_t row = 0; row < set.size(); ++row) RETURN_IF_ERROR(add(ValueAt(set, row), i));
      continue;
    }
    if (!args[i].constant) return ArgumentMustBeConstant(name, i);
    RETURN_IF_ERROR(add(*args[i].constant, i));
  }
  return values;
}

// Whether the only set is a column of x's own integer type (a key set of a join, the IN of a
// subquery over the same column type): its values are x's as they are, with nothing to convert.
bool SetOfOwnIntegers(const std::vector<ArgumentInfo>& args) {
  if (args.size() != 2 || args[1].set == nullptr) return false;
  const TypeId x = RemoveNullable(args[0].type);
  const bool integer = x == TypeId::kInt32 || x == TypeId::kUInt32 || x == TypeId::kInt64 ||
                       x == TypeId::kUInt64;
  return integer && args[1].set->type() == x;
}

absl::StatusOr<TypeId> ResolveIn(std::string_view name, const std::vector<ArgumentInfo>& args) {
  // Sets hold values by physical type; a Decimal would compare unscaled. Not supported yet.
  if (IsDecimal(args[0].type)) return IllegalArgumentType(name, 0, args[0].type);
  if (SetOfOwnIntegers(args)) return TypeId::kUInt8;
  RETURN_IF_ERROR(SetValues(name, args).status());
  return TypeId::kUInt8;
}

template <typename T>
T ValueAs(const Value& v) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(std::get<double>(v));
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<T>(std::get<int64_t>(v));
  } else {
    return static_cast<T>(std::get<uint64_t>(v));
  }
}

// Membership in a set of fixed-width values of physical type T.
template <typename T>
class FixedInKernel : public ScalarKernel {
 public:
  FixedInKernel(const std::vector<Value>& values, bool negated)
      : FixedInKernel(Converted(values), negated) {}

  FixedInKernel(const std::vector<T>& keys, bool negated) : negated_(negated) {
    if constexpr (kUseBitmap) {
      if (keys.size() > kMaxLinearValues && BuildBitmap(keys)) return;
    }
    for (T t : keys) {
      if constexpr (kUseTable) {
        if (table_.empty()) table_.resize(size_t{1} << (8 * sizeof(T)));
        table_[static_cast<std::make_unsigned_t<T>>(t)] = 1;
      } else {
        set_.insert(t);
      }
    }
    if constexpr (!kUseTable) {
      if (set_.size() <= kMaxLinearValues) linear_.assign(set_.begin(), set_.end());
    }
  }

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    auto out = NewColumn(TypeId::kUInt8, rows);
    uint8_t* result = out->Data<uint8_t>();
    const T* x = args[0].column->template Data<T>();
    const uint8_t miss = negated_ ? 1 : 0;
    if constexpr (kUseTable) {
      if (table_.empty()) {
        std::memset(result, miss, rows);
      } else {
        const uint8_t* table = table_.data();
        for (size_t i = 0; i < rows; ++i) {
          result[i] = table[static_cast<std::make_unsigned_t<T>>(x[i])] ^ miss;
        }
      }
    } else if (!bitmap_.empty()) {
      // One load per row; over a column sorted by x (a table's key) the loads run in order.
      const uint64_t* bits = bitmap_.data();
      const U low = static_cast<U>(min_);
      for (size_t i = 0; i < rows; ++i) {
        const uint64_t offset = static_cast<U>(static_cast<U>(x[i]) - low);
        const uint8_t hit = offset < range_ ? (bits[offset >> 6] >> (offset & 63)) & 1 : 0;
        result[i] = hit ^ miss;
      }
    } else if (set_.size() <= kMaxLinearValues) {
      std::memset(result, 0, rows);
      for (T v : linear_) {
        for (size_t i = 0; i < rows; ++i) result[i] |= x[i] == v;
      }
      for (size_t i = 0; i < rows; ++i) result[i] ^= miss;
    } else {
      for (size_t i = 0; i < rows; ++i) result[i] = set_.contains(x[i]) ^ miss;
    }
    return ColumnPtr(std::move(out));
  }

 private:
  static constexpr bool kUseTable = std::is_integral_v<T> && sizeof(T) <= 2;
  static constexpr bool kUseBitmap = std::is_integral_v<T> && sizeof(T) > 2;
  using U = std::make_unsigned_t<std::conditional_t<std::is_integral_v<T>, T, int>>;

  // A set of integers whose span is at most kBitsPerValue bits per value (or kSmallSpanBits)
  // becomes a bitmap over [min, max]: smaller than the hash set's slots and probed without
  // hashing, as the key sets of joins (dense keys) are.
  // Returns whether it did.
  bool BuildBitmap(const std::vector<T>& keys) {
    const auto [low, high] = std::minmax_element(keys.begin(), keys.end());
    const uint64_t span = static_cast<U>(static_cast<U>(*high) - static_cast<U>(*low));
    const uint64_t limit = std::min<uint64_t>(
        kMaxBitmapBits, std::max<uint64_t>(kSmallSpanBits, keys.size() * kBitsPerValue));
    if (span >= limit) return false;
    min_ = *low;
    range_ = span + 1;
    bitmap_.assign((range_ + 63) / 64, 0);
    for (T v : keys) {
      const uint64_t offset = static_cast<U>(static_cast<U>(v) - static_cast<U>(min_));
      bitmap_[offset >> 6] |= uint64_t{1} << (offset & 63);
    }
    return true;
  }

  static std::vector<T> Converted(const std::vector<Value>& values) {
    std::vector<T> keys;
    keys.reserve(values.size());
    for (const Value& v : values) keys.push_back(ValueAs<T>(v));
    return keys;
  }

  static constexpr uint64_t kBitsPerValue = 256;
  // Any set spanning at most 2M values (a 256 KiB bitmap, held in L2): a few hundred keys spread
  // over a dimension's key range (the parts of one brand and container) are probed by one load
  // per row instead of a hash and a probe.
  static constexpr uint64_t kSmallSpanBits = uint64_t{1} << 21;
  static constexpr uint64_t kMaxBitmapBits = uint64_t{1} << 28;  // 32 MiB

  const bool negated_;
  std::vector<uint8_t> table_;  // indexed by the unsigned bits of a 1- or 2-byte value
  absl::flat_hash_set<T> set_;
  std::vector<T> linear_;
  std::vector<uint64_t> bitmap_;  // bit (v - min_) for each value v of a bitmap set
  T min_{};
  uint64_t range_ = 0;
};

class StringInKernel : public ScalarKernel {
 public:
  StringInKernel(const std::vector<Value>& values, bool negated) : negated_(negated) {
    for (const Value& v : values) set_.insert(std::get<std::string>(v));
    if (set_.size() <= kMaxLinearStrings) few_.assign(set_.begin(), set_.end());
  }

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    auto out = NewColumn(TypeId::kUInt8, rows);
    uint8_t* result = out->Data<uint8_t>();
    const Column& x = *args[0].column;
    if (set_.size() <= kMaxLinearStrings) {
      // Up to three values (`shipmode IN ('MAIL', 'SHIP')`): their sizes first, then the bytes
      // of a value of the same size; no hash of every row
      // (bench/functions/string_in_bench.cc).
      for (size_t i = 0; i < rows; ++i) {
        const std::string_view value = x.StringAt(i);
        bool hit = false;
        for (const std::string& candidate : few_) {
          hit |= candidate.size() == value.size() &&
                 std::memcmp(candidate.data(), value.data(), value.size()) == 0;
        }
        result[i] = hit != negated_;
      }
      return ColumnPtr(std::move(out));
    }
    for (size_t i = 0; i < rows; ++i) {
      result[i] = set_.contains(ToAbsl(x.StringAt(i))) != negated_;
    }
    return ColumnPtr(std::move(out));
  }

 private:
  static constexpr size_t kMaxLinearStrings = 3;
  const bool negated_;
  absl::flat_hash_set<std::string> set_;
  std::vector<std::string> few_;  // set_'s values when there are at most kMaxLinearStrings
};

// Membership of UUIDs, the set holding each value's 16 bytes.
class UuidInKernel : public ScalarKernel {
 public:
  UuidInKernel(const std::vector<Value>& values, bool negated) : negated_(negated) {
    for (const Value& v : values) set_.insert(std::get<std::string>(v));
  }

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    auto out = NewColumn(TypeId::kUInt8, rows);
    uint8_t* result = out->Data<uint8_t>();
    const char* x = args[0].column->RawData();
    for (size_t i = 0; i < rows; ++i) {
      result[i] = set_.contains(absl::string_view(x + i * 16, 16)) != negated_;
    }
    return ColumnPtr(std::move(out));
  }

 private:
  const bool negated_;
  absl::flat_hash_set<std::string> set_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileIn(std::string_view name,
                                                        const std::vector<ArgumentInfo>& args,
                                                        TypeId result_type) {
  const bool negated = name == "notIn";
  if (SetOfOwnIntegers(args)) {
    const Column& set = *args[1].set;
    return DispatchFixed(set.type(), [&](auto tag) -> std::unique_ptr<ScalarKernel> {
      using T = typename decltype(tag)::Type;
      const T* data = set.template Data<T>();
      return std::make_unique<FixedInKernel<T>>(std::vector<T>(data, data + set.size()), negated);
    });
  }
  ASSIGN_OR_RETURN(std::vector<Value> values, SetValues(name, args));
  if (IsUuid(args[0].type) || IsDateTime64(args[0].type) || IsFixedString(args[0].type)) {
    // Their constants are text or whole seconds: bring each to the physical value of x's type.
    for (Value& v : values) {
      ASSIGN_OR_RETURN(ColumnPtr column, MakeConstantColumn(v, RemoveNullable(args[0].type)));
      v = HasStringLayout(column->type()) ? Value(std::string(column->StringAt(0)))
          : IsDateTime64(column->type())  ? Value(column->Get<int64_t>(0))
                                          : Value(std::string(column->RawData(), 16));
    }
  }
  if (HasStringLayout(args[0].type)) return std::make_unique<StringInKernel>(values, negated);
  if (IsUuid(args[0].type)) {
    // 16-byte values: the set holds their bytes.
    return std::make_unique<UuidInKernel>(values, negated);
  }
  return DispatchFixed(args[0].type, [&](auto tag) -> std::unique_ptr<ScalarKernel> {
    using T = typename decltype(tag)::Type;
    return std::make_unique<FixedInKernel<T>>(values, negated);
  });
}

// Tuples and maps never reach a kernel: the binder lowers comparisons and tupleElement of
// tuples to their elements and map functions to their arrays, and the coordinator puts
// select-list tuples and maps together itself (coordinator/planner/tuple_lowering.h,
// coordinator/planner/compound_columns.h, coordinator/exec/tuple_results.h). They are listed
// here so that system.functions names them; a call that gets this far used one elsewhere.
absl::StatusOr<TypeId> ResolveTuple(std::string_view name, const std::vector<ArgumentInfo>&) {
  return Error(ErrorCode::kNotImplemented,
               "Function " + std::string(name) +
                   " is supported over a tuple or map value (in the select list, comparisons of "
                   "tuples, tupleElement, map functions of a map) and as the list of values of "
                   "IN");
}

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileTuple(std::string_view name,
                                                           const std::vector<ArgumentInfo>& args,
                                                           TypeId) {
  return ResolveTuple(name, args).status();
}

}  // namespace

bool IsSetColumnType(TypeId type) {
  if (IsNullable(type) || IsArray(type) || IsDecimal(type) || IsFixedString(type)) return false;
  return IsInteger(type) || IsFloat(type) || IsDateOrDateTime(type) || IsString(type);
}

absl::StatusOr<ColumnPtr> InSetColumn(const std::vector<ArgumentInfo>& args) {
  if (args.empty()) return ColumnPtr();
  const TypeId type = RemoveNullable(args[0].type);
  if (!IsSetColumnType(type)) return ColumnPtr();
  std::vector<ArgumentInfo> list = {args[0]};
  for (size_t i = 1; i < args.size(); ++i) {
    if (!args[i].constant_is_null) list.push_back(args[i]);
  }
  ASSIGN_OR_RETURN(std::vector<Value> values, SetValues("in", list));
  if (values.empty()) return ColumnPtr();
  auto column = std::make_shared<Column>(type);
  for (const Value& value : values) RETURN_IF_ERROR(AppendValue(value, type, column.get()));
  return ColumnPtr(std::move(column));
}

void RegisterInFunctions(FunctionTable& table) {
  table.Add({"in", 2, kVariadic, false, ResolveIn, CompileIn});
  table.Add({"notIn", 2, kVariadic, false, ResolveIn, CompileIn});
  table.Add({"tuple", 0, kVariadic, false, ResolveTuple, CompileTuple});
  table.Add({"tupleElement", 2, 3, false, ResolveTuple, CompileTuple});
  table.Add({"map", 0, kVariadic, false, ResolveTuple, CompileTuple});
  table.Add({"mapFromArrays", 2, 2, false, ResolveTuple, CompileTuple});
  // An array of tuples (planner/array_of_tuples_lowering.h); listed in system.functions.
  table.Add({"arrayZip", 1, kVariadic, false, ResolveTuple, CompileTuple, /*accepts_arrays=*/true});
  for (const char* name : {"mapKeys", "mapValues"}) {
    table.Add({name, 1, 1, false, ResolveTuple, CompileTuple});
  }
  for (const char* name : {"mapContains", "mapContainsKey", "mapFilter", "mapApply"}) {
    table.Add({name, 2, 2, false, ResolveTuple, CompileTuple});
  }
}

}  // namespace granite::core
