#include "core/functions/extended_cast.h"

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "core/date_time.h"
#include "core/error.h"
#include "core/extended_value_text.h"
#include "core/functions/cast_column.h"

namespace granite::core {
namespace {

bool IsExtended(TypeId type) {
  const TypeId base = BaseOf(type);
  return base == TypeId::kBool || base == TypeId::kUUID || base == TypeId::kDateTime64 ||
         base == TypeId::kFixedString;
}

absl::Status CannotConvert(TypeId from, TypeId to) {
  return Error(ErrorCode::kCannotConvertType,
               "Conversion from " + std::string(TypeName(from)) + " to " +
                   std::string(TypeName(to)) + " is not supported");
}

// Truncates ticks of `precision` toward zero to whole seconds.
int64_t SecondsOf(int64_t ticks, int precision) { return ticks / TicksPerSecond(precision); }

absl::StatusOr<ColumnPtr> FromDateTime64(const Column& in, TypeId to) {
  const int precision = PrecisionOf(in.type());
  const int64_t* ticks = in.Data<int64_t>();
  const size_t rows = in.size();
  auto out = std::make_shared<Column>(to);
  out->Resize(rows);
  if (IsDateTime64(to)) {
    const int target = PrecisionOf(to);
    int64_t* dst = out->Data<int64_t>();
    for (size_t i = 0; i < rows; ++i) {
      if (target >= precision) {
        int64_t v;
        if (__builtin_mul_overflow(ticks[i], TicksPerSecond(target - precision), &v)) {
          return Error(ErrorCode::kDecimalOverflow,
                       "Value does not fit " + std::string(TypeName(to)));
        }
        dst[i] = v;
      } else {
        dst[i] = ticks[i] / TicksPerSecond(precision - target);
      }
    }
    return out;
  }
  if (IsDateTime(to)) {
    uint32_t* dst = out->Data<uint32_t>();
    for (size_t i = 0; i < rows; ++i) {
      const int64_t s = SecondsOf(ticks[i], precision);
      dst[i] = static_cast<uint32_t>(s < 0 ? 0 : (s > kMaxDateTime ? kMaxDateTime : s));
    }
    return out;
  }
  if (to == TypeId::kDate) {
    uint16_t* dst = out->Data<uint16_t>();
    for (size_t i = 0; i < rows; ++i) {
      const int64_t s = SecondsOf(ticks[i], precision);
      const int64_t days = s < 0 ? 0 : s / kSecondsPerDay;
      dst[i] = static_cast<uint16_t>(days > kMaxDate ? kMaxDate : days);
    }
    return out;
  }
  if (to == TypeId::kBool) {
    uint8_t* dst = out->Data<uint8_t>();
    for (size_t i = 0; i < rows; ++i) dst[i] = ticks[i] != 0;
    return out;
  }
  if (!IsNumeric(to)) return CannotConvert(in.type(), to);
  const double per_second = static_cast<double>(TicksPerSecond(precision));
  DispatchFixed(to, [&](auto tag) {
    using To = typename decltype(tag)::Type;
    To* dst = out->Data<To>();
    for (size_t i = 0; i < rows; ++i) {
      if constexpr (std::is_floating_point_v<To>) {
        dst[i] = static_cast<To>(static_cast<double>(ticks[i]) / per_second);
      } else {
        dst[i] = CastNumber<To>(SecondsOf(ticks[i], precision));
      }
    }
  });
  return out;
}

absl::StatusOr<ColumnPtr> ToDateTime64(const Column& in, TypeId to) {
  const int precision = PrecisionOf(to);
  const int64_t per_second = TicksPerSecond(precision);
  const size_t rows = in.size();
  auto out = std::make_shared<Column>(to);
  out->Resize(rows);
  int64_t* dst = out->Data<int64_t>();
  const TypeId from = in.type();
  if (from == TypeId::kDate) {
    for (size_t i = 0; i < rows; ++i) {
      dst[i] = int64_t{in.Get<uint16_t>(i)} * kSecondsPerDay * per_second;
    }
    return out;
  }
  if (IsDateTime(from)) {
    for (size_t i = 0; i < rows; ++i) dst[i] = int64_t{in.Get<uint32_t>(i)} * per_second;
    return out;
  }
  if (!IsNumeric(from)) return CannotConvert(from, to);
  bool overflow = false;
  DispatchFixed(from, [&](auto tag) {
    using From = typename decltype(tag)::Type;
    const From* src = in.Data<From>();
    for (size_t i = 0; i < rows; ++i) {
      if constexpr (std::is_floating_point_v<From>) {
        const double scaled = static_cast<double>(src[i]) * static_cast<double>(per_second);
        if (!std::isfinite(scaled) || std::fabs(scaled) >= 9.2e18) {
          overflow = true;
        } else {
          dst[i] = static_cast<int64_t>(scaled);
        }
      } else {
        if (static_cast<UnsignedInt128>(src[i]) >
                static_cast<UnsignedInt128>(std::numeric_limits<int64_t>::max()) &&
            src[i] > From{0}) {
          overflow = true;
        } else if (__builtin_mul_overflow(static_cast<int64_t>(src[i]), per_second, &dst[i])) {
          overflow = true;
        }
      }
    }
  });
  if (overflow) {
    return Error(ErrorCode::kDecimalOverflow,
                 "A value of " + std::string(TypeName(from)) + " does not fit " +
                     std::string(TypeName(to)));
  }
  return out;
}

absl::StatusOr<ColumnPtr> FixedStringToFixedString(const Column& in, TypeId to) {
  auto out = std::make_shared<Column>(to);
  out->Reserve(in.size());
  const uint32_t n = FixedStringSizeOf(to);
  std::string padded;
  for (size_t i = 0; i < in.size(); ++i) {
    std::string_view value = in.StringAt(i);
    // Trailing zero bytes are padding: FixedString(5) -> FixedString(3) keeps "abc\0\0" as "abc".
    while (value.size() > n && value.back() == '\0') value.remove_suffix(1);
    if (value.size() > n) {
      return Error(ErrorCode::kTooLargeStringSize,
                   "Too large value for " + std::string(TypeName(to)) + ": " +
                       std::to_string(value.size()) + " bytes");
    }
    padded.assign(value);
    padded.resize(n, '\0');
    out->AppendString(padded);
  }
  return out;
}

}  // namespace

bool IsExtendedCast(TypeId from, TypeId to) { return IsExtended(from) || IsExtended(to); }

absl::StatusOr<ColumnPtr> CastExtendedColumn(const Column& column, TypeId to) {
  const TypeId from = column.type();
  if (IsDecimal(from) || IsDecimal(to) || IsUuid(from) || IsUuid(to)) {
    return CannotConvert(from, to);
  }
  if (IsFixedString(from) || IsFixedString(to)) {
    if (IsFixedString(from) && IsFixedString(to)) return FixedStringToFixedString(column, to);
    return CannotConvert(from, to);
  }
  if (IsDateTime64(from)) return FromDateTime64(column, to);
  if (IsDateTime64(to)) return ToDateTime64(column, to);
  const size_t rows = column.size();
  auto out = std::make_shared<Column>(to);
  out->Resize(rows);
  if (to == TypeId::kBool) {
    uint8_t* dst = out->Data<uint8_t>();
    DispatchFixed(from, [&](auto tag) {
      using From = typename decltype(tag)::Type;
      const From* src = column.Data<From>();
      for (size_t i = 0; i < rows; ++i) dst[i] = src[i] != From{0};
    });
    return out;
  }
  // Bool -> a number, Date or DateTime: the value 0 / 1.
  const uint8_t* src = column.Data<uint8_t>();
  DispatchFixed(to, [&](auto tag) {
    using To = typename decltype(tag)::Type;
    To* dst = out->Data<To>();
    for (size_t i = 0; i < rows; ++i) dst[i] = static_cast<To>(src[i]);
  });
  return out;
}

}  // namespace granite::core
