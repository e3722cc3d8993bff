#include "core/functions/decimal_cast.h"

#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/decimal.h"
#include "core/error.h"
#include "core/functions/cast_column.h"

namespace granite::core {
namespace {

absl::Status Overflow(const std::string& value, TypeId to) {
  return Error(ErrorCode::kDecimalOverflow,
               absl::StrCat("Decimal value ", value, " is out of range of ", ToAbsl(TypeName(to))));
}

}  // namespace

absl::StatusOr<ColumnPtr> CastDecimalColumn(const Column& column, TypeId to) {
  const TypeId from = column.type();
  const size_t rows = column.size();
  auto out = std::make_shared<Column>(to);
  out->Reserve(rows);
  if (IsDecimal(to)) {
    const int scale = ScaleOf(to);
    if (IsFloat(from)) {
      const double multiplier = static_cast<double>(PowerOf10(scale));
      const double limit = BaseOf(to) == TypeId::kDecimal32   ? 2147483648.0
                           : BaseOf(to) == TypeId::kDecimal64 ? 9223372036854775808.0
                                                              : 1.7014118346046923e38;
      for (size_t i = 0; i < rows; ++i) {
        const double v = IsFloat(from) && BaseOf(from) == TypeId::kFloat32
                             ? static_cast<double>(column.Get<float>(i))
                             : column.Get<double>(i);
        const double scaled = v * multiplier;
        if (!std::isfinite(scaled) || std::fabs(scaled) >= limit) {
          std::string text;
          absl::StrAppend(&text, v);
          return Overflow(text, to);
        }
        AppendDecimal(static_cast<Int128>(scaled), out.get());
      }
      return ColumnPtr(std::move(out));
    }
    if (!IsInteger(from) && !IsDecimal(from)) {
      return Error(ErrorCode::kCannotConvertType,
                   absl::StrCat("Conversion from ", ToAbsl(TypeName(from)), " to ",
                                ToAbsl(TypeName(to)), " is not supported"));
    }
    // One loop per (source, target) width pair: multiply or divide by a power of ten, flag
    // values that leave the target's storage width.
    bool bad = false;
    size_t bad_row = 0;
    const int from_scale = ScaleOf(from);
    out->Resize(rows);
    DispatchFixed(from, [&](auto from_tag) {
      using F = typename decltype(from_tag)::Type;
      DispatchFixed(to, [&](auto to_tag) {
        using T = typename decltype(to_tag)::Type;
        if constexpr (std::is_integral_v<F> && std::is_integral_v<T>) {
          const F* in = column.Data<F>();
          T* dst = out->template Data<T>();
          const bool up = scale >= from_scale;
          const Int128 factor = PowerOf10(up ? scale - from_scale : from_scale - scale);
          for (size_t i = 0; i < rows; ++i) {
            Int128 r;
            bool overflow = false;
            if (up) {
              overflow = __builtin_mul_overflow(static_cast<Int128>(in[i]), factor, &r);
            } else {
              r = static_cast<Int128>(in[i]) / factor;
            }
            overflow |= r < static_cast<Int128>(std::numeric_limits<T>::min()) ||
                        r > static_cast<Int128>(std::numeric_limits<T>::max());
            if (overflow && !bad) {
              bad = true;
              bad_row = i;
            }
            dst[i] = static_cast<T>(r);
          }
        }
      });
    });
    if (bad) {
      std::string text;
      if (IsDecimal(from)) {
        AppendDecimalText(DecimalAt(column, bad_row), ScaleOf(from), false, &text);
      } else {
        DispatchFixed(from, [&](auto tag) {
          using T = typename decltype(tag)::Type;
          text = Int128ToString(static_cast<Int128>(column.Get<T>(bad_row)));
        });
      }
      return Overflow(text, to);
    }
    return ColumnPtr(std::move(out));
  }
  // Decimal to a number, Date or DateTime.
  const int from_scale = ScaleOf(from);
  if (IsFloat(to)) {
    // value / 10^scale, as DecimalToDouble, in one typed loop (decimals compared with or
    // averaged as floats convert whole columns).
    const double divisor = static_cast<double>(PowerOf10(from_scale));
    out->ResizeUninitialized(rows);
    DispatchFixed(from, [&](auto tag) {
      using F = typename decltype(tag)::Type;
      if constexpr (std::is_integral_v<F> || std::is_same_v<F, Int128>) {
        const F* in = column.Data<F>();
        if (BaseOf(to) == TypeId::kFloat32) {
          float* dst = out->template Data<float>();
          for (size_t i = 0; i < rows; ++i) {
            dst[i] = static_cast<float>(static_cast<double>(in[i]) / divisor);
          }
        } else {
          double* dst = out->template Data<double>();
          for (size_t i = 0; i < rows; ++i) dst[i] = static_cast<double>(in[i]) / divisor;
        }
      }
    });
    return ColumnPtr(std::move(out));
  }
  if (!IsInteger(to)) {
    return Error(ErrorCode::kCannotConvertType,
                 absl::StrCat("Conversion from ", ToAbsl(TypeName(from)), " to ",
                              ToAbsl(TypeName(to)), " is not supported"));
  }
  // The whole part must fit the target integer (DECIMAL_OVERFLOW otherwise, as ClickHouse).
  const Int128 divisor = PowerOf10(from_scale);
  bool overflow = false;
  size_t bad_row = 0;
  DispatchFixed(to, [&](auto tag) {
    using T = typename decltype(tag)::Type;
    if constexpr (std::is_integral_v<T>) {
      for (size_t i = 0; i < rows; ++i) {
        const Int128 whole = DecimalAt(column, i) / divisor;
        if (!overflow && (whole < static_cast<Int128>(std::numeric_limits<T>::min()) ||
                          whole > static_cast<Int128>(std::numeric_limits<T>::max()))) {
          overflow = true;
          bad_row = i;
        }
        out->Append(static_cast<T>(whole));
      }
    }
  });
  if (overflow) {
    std::string text;
    AppendDecimalText(DecimalAt(column, bad_row), from_scale, false, &text);
    return Error(ErrorCode::kDecimalOverflow,
                 absl::StrCat("Convert overflow: ", text, " is out of range of ", ToAbsl(TypeName(to))));
  }
  return ColumnPtr(std::move(out));
}

}  // namespace granite::core
