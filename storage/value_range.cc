#include "storage/value_range.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace granite::storage {
namespace {

std::string ValueText(const core::Value& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return absl::StrCat(*i);
  if (const auto* u = std::get_if<uint64_t>(&v)) return absl::StrCat(*u);
  if (const auto* d = std::get_if<double>(&v)) return absl::StrCat(*d);
  return absl::StrCat("'", std::get<std::string>(v), "'");
}

template <typename A, typename B>
int Three(A a, B b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

}  // namespace

std::optional<int> CompareValues(const core::Value& a, const core::Value& b) {
  const auto* as = std::get_if<std::string>(&a);
  const auto* bs = std::get_if<std::string>(&b);
  if (as != nullptr || bs != nullptr) {
    if (as == nullptr || bs == nullptr) return std::nullopt;
    int c = as->compare(*bs);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  // Both numeric: long double holds every int64 and uint64 exactly, so mixed forms compare
  // exactly.
  auto wide = [](const core::Value& v) -> long double {
    if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<long double>(*i);
    if (const auto* u = std::get_if<uint64_t>(&v)) return static_cast<long double>(*u);
    return static_cast<long double>(std::get<double>(v));
  };
  const auto* ai = std::get_if<int64_t>(&a);
  const auto* bi = std::get_if<int64_t>(&b);
  const auto* au = std::get_if<uint64_t>(&a);
  const auto* bu = std::get_if<uint64_t>(&b);
  if (ai && bi) return Three(*ai, *bi);
  if (au && bu) return Three(*au, *bu);
  long double x = wide(a), y = wide(b);
  if (std::isnan(x) || std::isnan(y)) return std::nullopt;
  return Three(x, y);
}

ValueRange ValueRange::Point(core::Value value) { return Points({std::move(value)}); }

ValueRange ValueRange::Points(std::vector<core::Value> values) {
  ValueRange range;
  if (values.empty()) {
    range.empty_ = true;
    return range;
  }
  for (const core::Value& v : values) {
    if (!CompareValues(v, values[0])) return range;  // incomparable: no narrowing
  }
  std::sort(values.begin(), values.end(),
            [](const auto& a, const auto& b) { return *CompareValues(a, b) < 0; });
  values.erase(std::unique(values.begin(), values.end(),
                           [](const auto& a, const auto& b) { return *CompareValues(a, b) == 0; }),
               values.end());
  range.low_ = values.front();
  range.high_ = values.back();
  range.points_ = std::move(values);
  return range;
}

ValueRange ValueRange::AtLeast(core::Value value, bool inclusive) {
  ValueRange range;
  if (!CompareValues(value, value)) return range;  // NaN
  range.low_ = std::move(value);
  range.low_inclusive_ = inclusive;
  return range;
}

ValueRange ValueRange::AtMost(core::Value value, bool inclusive) {
  ValueRange range;
  if (!CompareValues(value, value)) return range;
  range.high_ = std::move(value);
  range.high_inclusive_ = inclusive;
  return range;
}

void ValueRange::IntersectWith(const ValueRange& other) {
  if (empty_ || other.empty_) {
    empty_ = true;
    return;
  }
  // The tighter bound of each side; an incomparable one keeps ours (still a superset).
  if (other.low_) {
    std::optional<int> c = low_ ? CompareValues(*other.low_, *low_) : std::optional<int>(1);
    if (c && *c > 0) {
      low_ = other.low_;
      low_inclusive_ = other.low_inclusive_;
    } else if (c && *c == 0) {
      low_inclusive_ = low_inclusive_ && other.low_inclusive_;
    }
  }
  if (other.high_) {
    std::optional<int> c = high_ ? CompareValues(*other.high_, *high_) : std::optional<int>(-1);
    if (c && *c < 0) {
      high_ = other.high_;
      high_inclusive_ = other.high_inclusive_;
    } else if (c && *c == 0) {
      high_inclusive_ = high_inclusive_ && other.high_inclusive_;
    }
  }
  if (other.points_) {
    if (!points_) {
      points_ = other.points_;
    } else {
      std::vector<core::Value> both;
      for (const core::Value& p : *points_) {
        for (const core::Value& q : *other.points_) {
          std::optional<int> c = CompareValues(p, q);
          if (!c || *c == 0) {
            both.push_back(p);
            break;
          }
        }
      }
      points_ = std::move(both);
    }
  }
  Normalize();
}

void ValueRange::UniteWith(const ValueRange& other) {
  if (other.empty_) return;
  if (empty_) {
    *this = other;
    return;
  }
  if (low_ && other.low_) {
    std::optional<int> c = CompareValues(*other.low_, *low_);
    if (!c) {
      low_.reset();
    } else if (*c < 0) {
      low_ = other.low_;
      low_inclusive_ = other.low_inclusive_;
    } else if (*c == 0) {
      low_inclusive_ = low_inclusive_ || other.low_inclusive_;
    }
  } else {
    low_.reset();
  }
  if (high_ && other.high_) {
    std::optional<int> c = CompareValues(*other.high_, *high_);
    if (!c) {
      high_.reset();
    } else if (*c > 0) {
      high_ = other.high_;
      high_inclusive_ = other.high_inclusive_;
    } else if (*c == 0) {
      high_inclusive_ = high_inclusive_ || other.high_inclusive_;
    }
  } else {
    high_.reset();
  }
  if (points_ && other.points_) {
    std::vector<core::Value> all = *points_;
    all.insert(all.end(), other.points_->begin(), other.points_->end());
    ValueRange united = Points(std::move(all));
    points_ = united.points_;
  } else {
    points_.reset();
  }
  if (!low_) low_inclusive_ = true;
  if (!high_) high_inclusive_ = true;
}

void ValueRange::Normalize() {
  if (low_ && high_) {
    std::optional<int> c = CompareValues(*low_, *high_);
    if (c && (*c > 0 || (*c == 0 && !(low_inclusive_ && high_inclusive_)))) {
      empty_ = true;
      return;
    }
  }
  if (points_) {
    std::vector<core::Value> kept;
    for (const core::Value& p : *points_) {
      if (MayOverlap(p, p)) kept.push_back(p);
    }
    points_ = std::move(kept);
    if (points_->empty()) empty_ = true;
  }
}

bool ValueRange::MayOverlap(const core::Value& min, const core::Value& max) const {
  if (empty_) return false;
  if (high_) {
    std::optional<int> c = CompareValues(min, *high_);
    if (c && (*c > 0 || (*c == 0 && !high_inclusive_))) return false;
  }
  if (low_) {
    std::optional<int> c = CompareValues(max, *low_);
    if (c && (*c < 0 || (*c == 0 && !low_inclusive_))) return false;
  }
  if (points_) {
    // Points are sorted: the first one not below `min` decides.
    auto below = [](const auto& p, const auto& v) {
      std::optional<int> c = CompareValues(p, v);
      return c && *c < 0;
    };
    auto it = std::lower_bound(points_->begin(), points_->end(), min, below);
    if (it == points_->end()) return false;
    std::optional<int> c = CompareValues(*it, max);
    if (c && *c > 0) return false;
  }
  return true;
}

std::string ValueRange::DebugString() const {
  if (empty_) return "empty";
  if (points_) {
    std::vector<std::string> texts;
    for (const core::Value& p : *points_) texts.push_back(ValueText(p));
    return absl::StrCat("{", absl::StrJoin(texts, ", "), "}");
  }
  return absl::StrCat(low_ ? (low_inclusive_ ? "[" : "(") : "(", low_ ? ValueText(*low_) : "-inf",
                      ", ", high_ ? ValueText(*high_) : "+inf",
                      high_ ? (high_inclusive_ ? "]" : ")") : ")");
}

}  // namespace granite::storage
