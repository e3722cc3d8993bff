// Time zones of DateTime('tz') and DateTime64(p, 'tz'): zone ids (the index of a name in the
// compiled-in, append-only table of core/time_zone_names.cc, so an id means the same zone in every
// process and in every part file), and the conversions between UTC instants and local wall-clock
// seconds, done by abseil's time zone support over the system tzdata (/usr/share/zoneinfo).
//
// Values never change with a zone: a DateTime('Asia/Kolkata') holds UTC seconds like a DateTime.
// The zone changes how values are written and read as text and what the calendar functions see:
// they run on local wall-clock seconds (utc + the zone's offset at that instant), so the UTC
// kernels of core/functions serve every zone (core/functions/time_zone_arguments.h).
//
// Zone 0 ("no zone written") reads as UTC, the server's zone.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace granite::core {

inline constexpr uint32_t kNoTimeZone = 0;
inline constexpr uint32_t kUtcTimeZone = 1;
// Zone ids fit 12 bits (DateTime64 keeps them in bits 16..23 and 28..31 of its type id).
inline constexpr uint32_t kMaxTimeZoneId = 0xfff;

// Returns the id of a zone name as ClickHouse spells it (case-sensitive: "Europe/Berlin").
// Errors: a name not in the table, or whose tzdata file cannot be loaded -> BAD_ARGUMENTS
// "Cannot load time zone X" (ClickHouse's code and text).
absl::StatusOr<uint32_t> TimeZoneId(std::string_view name);

// Returns the name of zone `id` ("" for kNoTimeZone). REQUIRES: IsValidTimeZoneId(id).
std::string_view TimeZoneName(uint32_t id);

// Returns whether `id` names a zone of the table (kNoTimeZone included).
bool IsValidTimeZoneId(uint32_t id);

// Converts between UTC instants and one zone's local wall-clock seconds (both as seconds since
// 1970-01-01 00:00:00, the local one as if the wall clock were UTC).
// Thread-safety: immutable after Get; share freely.
class TimeZone {
 public:
  // Returns the loaded zone `id` (kNoTimeZone gives UTC). Loads each zone once per process.
  // REQUIRES: IsValidTimeZoneId(id) and TimeZoneId(TimeZoneName(id)) succeeded before (it is
  // what checks that the tzdata file loads); else the zone reads as UTC.
  static const TimeZone& Get(uint32_t id);

  // Whether the zone's offset is always 0 (UTC, Etc/UTC, GMT, Zulu, ...): callers skip the
  // conversions.
  bool IsUtc() const { return utc_; }
  // Returns the zone's offset from UTC (seconds east) at the UTC instant `utc`.
  int64_t OffsetAt(int64_t utc) const;
  // Returns the local wall-clock seconds of the instant `utc`.
  int64_t ToLocal(int64_t utc) const { return utc_ ? utc : utc + OffsetAt(utc); }
  // Returns the instant whose local wall clock reads `local`, as ClickHouse resolves it: a time
  // repeated by a backward transition is its first occurrence; a time skipped by a forward one
  // is read with the offset after the transition ('2024-03-31 02:30' in Europe/Berlin is
  // 00:30 UTC).
  int64_t ToUtc(int64_t local) const;
  // Returns the instant of `local_out`, a truncation of `utc_in`'s wall clock (start of its hour,
  // day, ...): keeps utc_in's offset when that offset still holds at the result, so a time in
  // a repeated hour truncates within its own occurrence; otherwise ToUtc(local_out).
  int64_t TruncatedToUtc(int64_t utc_in, int64_t local_out) const;

  std::string_view name() const { return name_; }

 private:
  // An offset in force from instant `at` on.
  struct Transition {
    int64_t at;
    int64_t offset;
  };

  TimeZone(std::string name, bool utc, const void* zone);

  std::string name_;
  bool utc_;
  const void* zone_;  // the absl::TimeZone (kept out of this header)
  // The zone's offsets from 1900 to 2300, sorted by `at` (transitions_[0].at is 1900): OffsetAt
  // binary-searches them instead of asking abseil for a civil breakdown per value.
  std::vector<Transition> transitions_;
};

}  // namespace granite::core
