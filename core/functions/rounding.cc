// Rounding: round, floor, ceil, trunc (x[, N]) -> the type of x. N is a constant integer
// (default 0): the number of decimal places to keep, negative to round to tens, hundreds, ...
// Floats: round uses banker's rounding like ClickHouse (round(0.5) = 0, round(1.5) = 2), computed
// in the argument's precision (Float32 in float);
// integers with N < 0 round half away from zero (round(15, -1) = 20); integers with N >= 0 are
// unchanged. Decimals keep their type and round their scaled integer, half away from zero
// (round(toDecimal64(-12.35, 2), 1) = -12.4).
#include <cmath>
#include <memory>
#include <type_traits>

#include "core/decimal.h"
#include "core/functions/constant_column.h"
#include "core/functions/function_errors.h"
#include "core/functions/function_table.h"
#include "core/functions/vector_loops.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

enum class RoundingMode { kRound, kFloor, kCeil, kTrunc };

absl::StatusOr<TypeId> ResolveRounding(std::string_view name,
                                       const std::vector<ArgumentInfo>& args) {
  if (!(IsNumeric(args[0].type) || IsDecimal(args[0].type)) || IsDateOrDateTime(args[0].type)) {
    return IllegalArgumentType(name, 0, args[0].type);
  }
  if (args.size() == 2) {
    if (!IsInteger(args[1].type) || IsDateOrDateTime(args[1].type)) {
      return IllegalArgumentType(name, 1, args[1].type);
    }
    if (!args[1].constant) return ArgumentMustBeConstant(name, 1);
  }
  return args[0].type;
}

template <RoundingMode kMode, typename F>
F RoundFloat(F v) {
  switch (kMode) {
    case RoundingMode::kRound: return std::nearbyint(v);  // ties to even in the default mode
    case RoundingMode::kFloor: return std::floor(v);
    case RoundingMode::kCeil: return std::ceil(v);
    case RoundingMode::kTrunc: return std::trunc(v);
  }
  return v;
}

// Rounds integer v (in its 64-bit domain W) to a multiple of scale.
template <RoundingMode kMode, typename W>
W RoundInteger(W v, W scale) {
  const W q = v / scale;
  const W r = v % scale;
  W steps = q;
  if constexpr (kMode == RoundingMode::kFloor) {
    if constexpr (std::is_signed_v<W>) steps -= r < 0;
  } else if constexpr (kMode == RoundingMode::kCeil) {
    steps += r > 0;
  } else if constexpr (kMode == RoundingMode::kRound) {
    if constexpr (std::is_signed_v<W>) {
      const W twice = r < 0 ? -2 * r : 2 * r;
      if (twice >= scale) steps += v < 0 ? -1 : 1;
    } else {
      if (2 * r >= scale) steps += 1;
    }
  }
  return static_cast<W>(static_cast<uint64_t>(steps) * static_cast<uint64_t>(scale));
}

// Rounds a Decimal's scaled integer to a multiple of `step` (a power of 10); round goes half away
// from zero, as ClickHouse rounds decimals.
template <RoundingMode kMode>
Int128 RoundScaled(Int128 v, Int128 step) {
  Int128 q = v / step;
  const Int128 r = v % step;
  if constexpr (kMode == RoundingMode::kFloor) {
    q -= r < 0;
  } else if constexpr (kMode == RoundingMode::kCeil) {
    q += r > 0;
  } else if constexpr (kMode == RoundingMode::kRound) {
    if (2 * (r < 0 ? -r : r) >= step) q += v < 0 ? -1 : 1;
  }
  return q * step;
}

// Rounds a Decimal column to `places` decimal places: the scaled integers to a multiple of
// 10^(scale - places); nothing to do when places >= scale; 0 past 38 digits.
template <RoundingMode kMode, typename T>
void RoundDecimal(const T* x, T* result, size_t rows, int scale, int64_t places) {
  const int64_t digits = scale - places;
  if (digits <= 0) {
    UnaryLoop(x, result, rows, [](T v) { return v; });
  } else if (digits > 38) {
    UnaryLoop(x, result, rows, [](T) { return T{0}; });
  } else {
    const Int128 step = PowerOf10(static_cast<int>(digits));
    UnaryLoop(x, result, rows,
              [step](T v) { return static_cast<T>(RoundScaled<kMode>(Int128{v}, step)); });
  }
}

template <RoundingMode kMode>
class RoundingKernel : public ScalarKernel {
 public:
  explicit RoundingKernel(int64_t places) : places_(places) {}

  absl::StatusOr<ColumnPtr> Execute(const std::vector<Operand>& args, size_t rows) const override {
    const Column& in = *args[0].column;
    auto out = NewColumn(in.type(), rows);
    if (IsDecimal(in.type())) {
      const int scale = ScaleOf(in.type());
      switch (BaseOf(in.type())) {
        case TypeId::kDecimal32:
          RoundDecimal<kMode>(in.Data<int32_t>(), out->Data<int32_t>(), rows, scale, places_);
          break;
        case TypeId::kDecimal64:
          RoundDecimal<kMode>(in.Data<int64_t>(), out->Data<int64_t>(), rows, scale, places_);
          break;
        default:
          RoundDecimal<kMode>(in.Data<Int128>(), out->Data<Int128>(), rows, scale, places_);
      }
      return ColumnPtr(std::move(out));
    }
    DispatchFixed(in.type(), [&](auto tag) {
      using T = typename decltype(tag)::Type;
      const T* x = in.Data<T>();
      T* result = out->template Data<T>();
      if constexpr (std::is_floating_point_v<T>) {
        if (places_ == 0) {
          UnaryLoop(x, result, rows, [](T v) { return static_cast<T>(RoundFloat<kMode>(v)); });
        } else if (places_ > 0) {
          // In the argument's own precision, like ClickHouse: a Float32 is scaled, rounded and
          // scaled back in float arithmetic (round(toFloat32(80.05), 1) is 80, not 80.1).
          const T scale = static_cast<T>(std::pow(10.0, static_cast<double>(places_)));
          UnaryLoop(x, result, rows, [scale](T v) {
            const T scaled = v * scale;  // too many places for v: v is already exact
            return std::isfinite(scaled) ? static_cast<T>(RoundFloat<kMode>(scaled) / scale) : v;
          });
        } else {
          const T scale = static_cast<T>(std::pow(10.0, static_cast<double>(-places_)));
          if (!std::isfinite(scale)) {
            UnaryLoop(x, result, rows, [](T) { return T{0}; });
            return;
          }
          UnaryLoop(x, result, rows,
                    [scale](T v) { return static_cast<T>(RoundFloat<kMode>(v / scale) * scale); });
        }
      } else {
        using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
        if (places_ >= 0) {
          UnaryLoop(x, result, rows, [](T v) { return v; });
        } else if (places_ < -18) {
          UnaryLoop(x, result, rows, [](T) { return T{0}; });
        } else {
          W scale = 1;
          for (int64_t i = 0; i < -places_; ++i) scale *= 10;
          UnaryLoop(x, result, rows, [scale](T v) {
            return static_cast<T>(RoundInteger<kMode, W>(static_cast<W>(v), scale));
          });
        }
      }
    });
    return ColumnPtr(std::move(out));
  }

 private:
  const int64_t places_;
};

absl::StatusOr<std::unique_ptr<ScalarKernel>> CompileRounding(
    std::string_view name, const std::vector<ArgumentInfo>& args, TypeId result_type) {
  int64_t places = 0;
  if (args.size() == 2) {
    ASSIGN_OR_RETURN(ColumnPtr constant, MakeConstantColumn(*args[1].constant, args[1].type));
    Value v = ValueAt(*constant, 0);
    if (const auto* u = std::get_if<uint64_t>(&v)) {
      places = *u > 1000 ? 1000 : static_cast<int64_t>(*u);
    } else {
      places = std::max<int64_t>(std::get<int64_t>(v), -1000);
    }
  }
  if (name == "floor") return std::make_unique<RoundingKernel<RoundingMode::kFloor>>(places);
  if (name == "ceil") return std::make_unique<RoundingKernel<RoundingMode::kCeil>>(places);
  if (name == "trunc") return std::make_unique<RoundingKernel<RoundingMode::kTrunc>>(places);
  return std::make_unique<RoundingKernel<RoundingMode::kRound>>(places);
}

}  // namespace

void RegisterRoundingFunctions(FunctionTable& table) {
  table.Add({"round", 1, 2, true, ResolveRounding, CompileRounding});
  table.Add({"floor", 1, 2, true, ResolveRounding, CompileRounding});
  table.Add({"ceil", 1, 2, true, ResolveRounding, CompileRounding});
  table.AddAlias("ceiling", "ceil", true);
  table.Add({"trunc", 1, 2, true, ResolveRounding, CompileRounding});
  table.AddAlias("truncate", "trunc", true);
}

}  // namespace granite::core
