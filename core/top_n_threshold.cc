#include "core/top_n_threshold.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <variant>

namespace granite::core {

namespace {

// Integers, dates and decimals up to 64 bits (a Bound holds 64 bits).
bool IsIntegerLike(TypeId type) {
  return !HasStringLayout(type) && type != TypeId::kFloat32 && type != TypeId::kFloat64 &&
         ValueSize(type) <= 8;
}

template <typename T>
T BoundValue(const TopNThreshold::Bound& bound) {
  T value;
  std::memcpy(&value, &bound.bits, sizeof(T));
  return value;
}

// Counts (and marks in `mask`, when not null) the values of data[0, rows) that do not order after
// `limit`: <= for ascending keys, >= for descending ones.
template <typename T, bool kDescending>
size_t SelectRows(const T* data, size_t rows, T limit, uint8_t* mask) {
  size_t kept = 0;
  if (mask == nullptr) {
    for (size_t i = 0; i < rows; ++i) kept += kDescending ? data[i] >= limit : data[i] <= limit;
    return kept;
  }
  for (size_t i = 0; i < rows; ++i) {
    const uint8_t pass = kDescending ? data[i] >= limit : data[i] <= limit;
    mask[i] = pass;
    kept += pass;
  }
  return kept;
}

}  // namespace

std::optional<TopNThreshold> TopNThreshold::For(const plan::Fragment& fragment) {
  if (fragment.aggregating() || fragment.limit == 0 || fragment.order_by.empty()) {
    return std::nullopt;
  }
  const plan::SortKey& key = fragment.order_by[0];
  if (key.column >= fragment.projections.size()) return std::nullopt;
  const plan::Expr& projection = fragment.projections[key.column];
  if (!projection.is_column()) return std::nullopt;
  const TypeId type = projection.type;
  // A Nullable key's NULLs sort after every value but read as 0: no bound.
  if (!IsIntegerLike(type) || IsNullable(type)) return std::nullopt;
  TopNThreshold threshold;
  threshold.input_column_ = projection.column;
  threshold.projected_column_ = key.column;
  threshold.type_ = type;
  threshold.descending_ = key.descending;
  return threshold;
}

size_t TopNThreshold::Select(const Column& key, const Bound& bound,
                             std::vector<uint8_t>* mask) const {
  const size_t rows = key.size();
  if (!bound.set) {
    if (mask != nullptr) mask->assign(rows, 1);
    return rows;
  }
  if (mask != nullptr) mask->resize(rows);
  uint8_t* out = mask == nullptr ? nullptr : mask->data();
  return DispatchFixed(type_, [&](auto tag) -> size_t {
    using T = typename decltype(tag)::Type;
    const T limit = BoundValue<T>(bound);
    return descending_ ? SelectRows<T, true>(key.Data<T>(), rows, limit, out)
                       : SelectRows<T, false>(key.Data<T>(), rows, limit, out);
  });
}

bool TopNThreshold::RangeMayEnter(const Value& min, const Value& max, const Bound& bound) const {
  if (!bound.set) return true;
  return DispatchFixed(type_, [&](auto tag) -> bool {
    using T = typename decltype(tag)::Type;
    using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    const Value& edge = descending_ ? max : min;
    if (!std::holds_alternative<Wide>(edge)) return true;
    const Wide limit = static_cast<Wide>(BoundValue<T>(bound));
    return descending_ ? std::get<Wide>(edge) >= limit : std::get<Wide>(edge) <= limit;
  });
}

void TopNThreshold::Tighten(const Column& top_keys, Bound* bound) const {
  if (top_keys.size() == 0) return;
  DispatchFixed(type_, [&](auto tag) {
    using T = typename decltype(tag)::Type;
    const T* data = top_keys.Data<T>();
    T worst = descending_ ? *std::min_element(data, data + top_keys.size())
                          : *std::max_element(data, data + top_keys.size());
    if (bound->set) {
      // A bound only ever tightens: the top-N it came from is still held.
      const T old = BoundValue<T>(*bound);
      worst = descending_ ? std::max(worst, old) : std::min(worst, old);
    }
    bound->bits = 0;
    std::memcpy(&bound->bits, &worst, sizeof(T));
    bound->set = true;
  });
}

}  // namespace granite::core
