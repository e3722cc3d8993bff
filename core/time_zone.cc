#include "core/time_zone.h"

#include <array>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/time_zone_names.h"

namespace granite::core {
namespace {

// Maps every name of the table to its id, built once.
const absl::flat_hash_map<std::string_view, uint32_t>& IdsByName() {
  static const auto* ids = [] {
    auto* map = new absl::flat_hash_map<std::string_view, uint32_t>();
    for (size_t id = 1; id < kTimeZoneNameCount; ++id) {
      map->emplace(kTimeZoneNames[id], static_cast<uint32_t>(id));
    }
    return map;
  }();
  return *ids;
}

// The zones whose offset is 0 at every instant: their conversions are the identity.
bool IsUtcName(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "UTC",     "UCT",      "Universal", "Zulu",          "GMT",          "GMT0",
      "GMT+0",   "GMT-0",    "Greenwich", "Etc/UTC",       "Etc/UCT",      "Etc/Universal",
      "Etc/Zulu", "Etc/GMT", "Etc/GMT0",  "Etc/GMT+0",     "Etc/GMT-0",    "Etc/Greenwich"};
  for (std::string_view utc : kNames) {
    if (name == utc) return true;
  }
  return false;
}

const absl::CivilSecond kEpoch(1970, 1, 1, 0, 0, 0);
// The span of the offset table: 1900-01-01 and 2300-01-01 (DateTime64's common range).
constexpr int64_t kTableFrom = -2208988800;
constexpr int64_t kTableTo = 10413792000;

const absl::TimeZone& Zone(const void* zone) { return *static_cast<const absl::TimeZone*>(zone); }

}  // namespace

bool IsValidTimeZoneId(uint32_t id) { return id < kTimeZoneNameCount; }

std::string_view TimeZoneName(uint32_t id) {
  return id < kTimeZoneNameCount ? kTimeZoneNames[id] : std::string_view();
}

absl::StatusOr<uint32_t> TimeZoneId(std::string_view name) {
  const auto& ids = IdsByName();
  auto it = ids.find(name);
  absl::TimeZone probe;
  if (it == ids.end() || !absl::LoadTimeZone(ToAbsl(name), &probe)) {
    return Error(ErrorCode::kBadArguments,
                 absl::StrCat("Cannot load time zone ", ToAbsl(name)));
  }
  return it->second;
}

TimeZone::TimeZone(std::string name, bool utc, const void* zone)
    : name_(std::move(name)), utc_(utc), zone_(zone) {
  if (utc_) return;
  const absl::TimeZone& tz = Zone(zone_);
  absl::Time at = absl::FromUnixSeconds(kTableFrom);
  transitions_.push_back({kTableFrom, tz.At(at).offset});
  absl::TimeZone::CivilTransition transition;
  while (tz.NextTransition(at, &transition)) {
    // The instant the wall clock jumps: `from` read with the offset in force before it.
    const int64_t instant = (transition.from - kEpoch) - transitions_.back().offset;
    if (instant >= kTableTo || instant <= absl::ToUnixSeconds(at)) break;
    at = absl::FromUnixSeconds(instant);
    transitions_.push_back({instant, tz.At(at).offset});
  }
}

const TimeZone& TimeZone::Get(uint32_t id) {
  // One slot per possible id, each filled once (std::call_once: no lock after the first load).
  static std::array<std::once_flag, kMaxTimeZoneId + 1> once;
  static std::array<const TimeZone*, kMaxTimeZoneId + 1> zones{};
  if (!IsValidTimeZoneId(id)) id = kUtcTimeZone;
  std::call_once(once[id], [id] {
    const std::string name(id == kNoTimeZone ? std::string_view("UTC") : TimeZoneName(id));
    auto* zone = new absl::TimeZone(absl::UTCTimeZone());
    const bool loaded = absl::LoadTimeZone(name, zone);
    zones[id] = new TimeZone(name, !loaded || IsUtcName(name), zone);
  });
  return *zones[id];
}

int64_t TimeZone::OffsetAt(int64_t utc) const {
  if (utc_) return 0;
  if (utc < kTableFrom || utc >= kTableTo) {
    return Zone(zone_).At(absl::FromUnixSeconds(utc)).offset;
  }
  // The last transition at or before `utc` (transitions_[0] is at kTableFrom).
  size_t low = 0, high = transitions_.size();
  while (high - low > 1) {
    const size_t mid = (low + high) / 2;
    if (transitions_[mid].at <= utc) {
      low = mid;
    } else {
      high = mid;
    }
  }
  return transitions_[low].offset;
}

int64_t TimeZone::ToUtc(int64_t local) const {
  if (utc_) return local;
  const absl::TimeZone::TimeInfo info = Zone(zone_).At(kEpoch + local);
  const absl::Time t = info.kind == absl::TimeZone::TimeInfo::SKIPPED ? info.post : info.pre;
  return absl::ToUnixSeconds(t);
}

int64_t TimeZone::TruncatedToUtc(int64_t utc_in, int64_t local_out) const {
  if (utc_) return local_out;
  const int64_t offset = OffsetAt(utc_in);
  const int64_t candidate = local_out - offset;
  return OffsetAt(candidate) == offset ? candidate : ToUtc(local_out);
}

}  // namespace granite::core
