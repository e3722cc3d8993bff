#include "core/functions/cast_column.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/date_time.h"
#include "core/error.h"
#include "core/functions/array_cast.h"
#include "core/functions/decimal_cast.h"
#include "core/functions/extended_cast.h"
#include "core/status_macros.h"
#include "core/time_zone.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

template <typename To, typename From>
void ConvertLoop(const From* in, To* out, size_t rows) {
  for (size_t i = 0; i < rows; ++i) out[i] = CastNumber<To>(in[i]);
}

// Number -> Date: day numbers up to 65535, unix timestamps above.
template <typename From>
void ToDateLoop(const From* in, uint16_t* out, size_t rows) {
  for (size_t i = 0; i < rows; ++i) {
    int64_t v;
    if constexpr (std::is_floating_point_v<From>) {
      v = in[i] >= kMaxDateTime ? kMaxDateTime : CastNumber<int64_t>(in[i]);
    } else if constexpr (std::is_same_v<From, uint64_t>) {
      v = in[i] > static_cast<uint64_t>(kMaxDateTime) ? kMaxDateTime : static_cast<int64_t>(in[i]);
    } else {
      v = static_cast<int64_t>(in[i]);
    }
    int64_t days = v < 0 ? 0 : (v <= kMaxDate ? v : v / kSecondsPerDay);
    out[i] = static_cast<uint16_t>(days > kMaxDate ? kMaxDate : days);
  }
}

// Number -> DateTime: seconds since the epoch, saturated to the range 1970-01-01 00:00:00 ..
// 2106-02-07 06:28:15 as ClickHouse's toDateTime does (NaN gives the epoch).
template <typename From>
void ToDateTimeLoop(const From* in, uint32_t* out, size_t rows) {
  for (size_t i = 0; i < rows; ++i) {
    if constexpr (std::is_floating_point_v<From>) {
      out[i] = !(in[i] > 0) ? 0 : in[i] >= kMaxDateTime ? kMaxDateTime
                                                         : static_cast<uint32_t>(in[i]);
    } else if constexpr (std::is_signed_v<From>) {
      out[i] = static_cast<uint32_t>(std::clamp<int64_t>(in[i], 0, kMaxDateTime));
    } else {
      out[i] = static_cast<uint32_t>(std::min<uint64_t>(in[i], kMaxDateTime));
    }
  }
}

ColumnPtr CastToString(const Column& in) {
  auto out = std::make_shared<Column>(TypeId::kString);
  const size_t rows = in.size();
  std::string& chars = out->MutableChars();
  std::vector<uint64_t>& offsets = out->MutableOffsets();
  chars.reserve(rows * 8);
  offsets.resize(rows);
  const bool fixed_string = IsFixedString(in.type());
  for (size_t i = 0; i < rows; ++i) {
    AppendValueText(in, i, &chars);
    // FixedString -> String drops the zero padding (ClickHouse's CAST and toString).
    if (fixed_string) {
      const size_t begin = i == 0 ? 0 : offsets[i - 1];
      while (chars.size() > begin && chars.back() == '\0') chars.pop_back();
    }
    offsets[i] = chars.size();
  }
  out->SetSize(rows);
  return out;
}

absl::StatusOr<ColumnPtr> CastFromString(const Column& in, TypeId to) {
  auto out = std::make_shared<Column>(to);
  out->Reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    RETURN_IF_ERROR(ParseValueText(in.StringAt(i), to, out.get()));
  }
  return out;
}

// Returns a copy of `in` whose type says zone `zone` (a DateTime or DateTime64 of the same
// precision): an instant keeps its value in every zone.
ColumnPtr Rezoned(const Column& in, uint32_t zone) {
  auto out = std::make_shared<Column>(in);
  out->SetTimeZone(zone);
  return out;
}

// DateTime('tz') -> Date: the day of the local wall clock (ClickHouse's toDate in a zone).
ColumnPtr ZonedDateTimeToDate(const Column& in, const TimeZone& zone) {
  auto out = std::make_shared<Column>(TypeId::kDate);
  out->Resize(in.size());
  const uint32_t* src = in.Data<uint32_t>();
  uint16_t* dst = out->Data<uint16_t>();
  for (size_t i = 0; i < in.size(); ++i) {
    const int64_t local = zone.ToLocal(src[i]);
    const int64_t day = local < 0 ? -1 : local / kSecondsPerDay;
    dst[i] = static_cast<uint16_t>(std::clamp<int64_t>(day, 0, kMaxDate));
  }
  return out;
}

// Date -> DateTime('tz'): the instant of the day's local midnight.
ColumnPtr DateToZonedDateTime(const Column& in, TypeId to, const TimeZone& zone) {
  auto out = std::make_shared<Column>(to);
  out->Resize(in.size());
  const uint16_t* src = in.Data<uint16_t>();
  uint32_t* dst = out->Data<uint32_t>();
  for (size_t i = 0; i < in.size(); ++i) {
    const int64_t s = zone.ToUtc(int64_t{src[i]} * kSecondsPerDay);
    dst[i] = static_cast<uint32_t>(std::clamp<int64_t>(s, 0, kMaxDateTime));
  }
  return out;
}

}  // namespace

absl::StatusOr<ColumnPtr> CastColumn(const ColumnPtr& column, TypeId to) {
  const TypeId from = column->type();
  if (from == to) return column;
  if (IsTuple(from) || IsTuple(to)) {  // tuples convert element by element, in the planner
    return Error(ErrorCode::kCannotConvertType,
                 absl::StrCat("Conversion from ", ToAbsl(TypeName(from)), " to ",
                              ToAbsl(TypeName(to)), " is not supported"));
  }
  if (TimeZoneOf(from) != TimeZoneOf(to)) {
    if (RemoveTimeZone(from) == RemoveTimeZone(to)) return Rezoned(*column, TimeZoneOf(to));
    const TimeZone& from_zone = TimeZone::Get(TimeZoneOf(from));
    const TimeZone& to_zone = TimeZone::Get(TimeZoneOf(to));
    if (IsDateTime(from) && to == TypeId::kDate && !from_zone.IsUtc()) {
      return ZonedDateTimeToDate(*column, from_zone);
    }
    if (from == TypeId::kDate && IsDateTime(to) && !to_zone.IsUtc()) {
      return DateToZonedDateTime(*column, to, to_zone);
    }
  }
  if (to == TypeId::kString) return CastToString(*column);
  if (from == TypeId::kString) return CastFromString(*column, to);
  if (IsArray(from) || IsArray(to)) return CastArrayColumn(*column, to);
  if (IsExtendedCast(from, to)) return CastExtendedColumn(*column, to);
  if (IsDecimal(from) || IsDecimal(to)) return CastDecimalColumn(*column, to);

  const size_t rows = column->size();
  auto out = std::make_shared<Column>(to);
  out->Resize(rows);
  if (from == TypeId::kDate && IsDateTime(to)) {
    const uint16_t* in = column->Data<uint16_t>();
    uint32_t* dst = out->Data<uint32_t>();
    // Dates past 2106-02-07 wrap around, as in ClickHouse's CAST.
    for (size_t i = 0; i < rows; ++i) dst[i] = static_cast<uint32_t>(in[i] * kSecondsPerDay);
    return out;
  }
  if (IsDateTime(from) && to == TypeId::kDate) {
    const uint32_t* in = column->Data<uint32_t>();
    uint16_t* dst = out->Data<uint16_t>();
    for (size_t i = 0; i < rows; ++i) dst[i] = static_cast<uint16_t>(in[i] / kSecondsPerDay);
    return out;
  }
  if (IsDateTime(to) && !IsDateOrDateTime(from) && from != TypeId::kBool) {
    DispatchFixed(from, [&](auto tag) {
      using From = typename decltype(tag)::Type;
      ToDateTimeLoop(column->Data<From>(), out->Data<uint32_t>(), rows);
    });
    return out;
  }
  if (to == TypeId::kDate) {
    DispatchFixed(from, [&](auto tag) {
      using From = typename decltype(tag)::Type;
      ToDateLoop(column->Data<From>(), out->Data<uint16_t>(), rows);
    });
    return out;
  }
  DispatchFixed(from, [&](auto from_tag) {
    using From = typename decltype(from_tag)::Type;
    DispatchFixed(to, [&](auto to_tag) {
      using To = typename decltype(to_tag)::Type;
      ConvertLoop(column->Data<From>(), out->Data<To>(), rows);
    });
  });
  return out;
}

}  // namespace granite::core
