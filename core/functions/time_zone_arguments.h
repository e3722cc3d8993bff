// Time zones in function calls (ClickHouse's semantics): the calendar functions (toYear, toHour,
// toStartOfDay, formatDateTime, dateDiff, dateTrunc, ...) take an optional trailing zone
// argument, and otherwise use the zone of their DateTime('tz') argument. The registry
// (function_registry.cc) runs every such call on the UTC kernels:
//   1. StripZoneArgument removes the constant zone argument before the argument count is checked;
//   2. AdaptTimeZones (after DateTime64 arguments became DateTime: date_time64_arguments.h)
//      replaces the zoned DateTime arguments with plain ones read as local wall-clock seconds
//      (utc + the zone's offset at that instant; a constant converted here);
//   3. the kernel wrapper (TimeZoneKernel) converts the columns the same way, runs the UTC
//      kernel, and turns a DateTime result (toStartOfHour: a local wall-clock truncation) back
//      into the instant, stamped with the zone (DateTime('Asia/Kolkata')).
// Other functions returning a DateTime from a zoned argument (if, addHours, greatest, ...) only
// stamp the argument's zone on their result, as ClickHouse does. Calls without a zone (every
// call over plain DateTime) are not wrapped: the UTC fast paths stay as they are.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/functions/function_registry.h"
#include "core/functions/scalar_kernel.h"
#include "core/types.h"

namespace granite::core {

// How one call deals with zones; built by StripZoneArgument, completed by AdaptTimeZones.
struct TimeZoneCall {
  bool calendar = false;            // the function does calendar math in a zone
  uint32_t explicit_zone = 0;       // the zone argument's id (0: none written)
  uint32_t zone = 0;                // the zone of the calendar math (0: UTC, nothing to convert)
  // Argument i is read as local wall-clock seconds of zone to_local[i] (0: as it is): `zone`,
  // or for dateDiff without a zone argument each date-time's own zone, as ClickHouse.
  std::vector<uint32_t> to_local;
  int truncated_argument = -1;      // the argument a DateTime result truncates (-1: none)
  uint32_t result_zone = 0;         // the zone stamped on a DateTime / DateTime64 result
  bool stamp = false;               // the result gets result_zone

  // Whether the kernel must be wrapped.
  bool Active() const {
    return zone != 0 || stamp ||
           std::any_of(to_local.begin(), to_local.end(), [](uint32_t z) { return z != 0; });
  }
};

// Removes the trailing zone argument of a calendar function ('Asia/Kolkata' in
// toHour(t, 'Asia/Kolkata')) from `*args`. `name` is the name as written or canonical.
// Errors: a zone argument that is not a constant string -> ILLEGAL_COLUMN /
// ILLEGAL_TYPE_OF_ARGUMENT; an unknown zone -> BAD_ARGUMENTS ("Cannot load time zone X").
absl::StatusOr<TimeZoneCall> StripZoneArgument(std::string_view name,
                                               std::vector<ArgumentInfo>* args);

// Chooses the zone of a calendar call and rewrites its DateTime arguments as local wall-clock
// ones (see the file comment); for other functions records the zone their result keeps.
// `canonical` is the function's canonical name.
void AdaptTimeZones(std::string_view canonical, std::vector<ArgumentInfo>* args,
                    TimeZoneCall* call);

// Returns the result type of the call: `result` (what the UTC function resolved) with the zone
// stamped when the call says so.
TypeId ZonedResult(const TimeZoneCall& call, TypeId result);

// Returns where an implicit zone (the setting session_timezone) goes in a call of `name` (as
// written) that has none: the index of the zone argument to append, or -1 when the call takes no
// zone, already has one, or reads no zoneless date-time. Calls it applies to: the calendar
// functions over a zoneless DateTime, DateTime64 or Date; toString / toDate of a zoneless
// date-time; toDateTime, toDateTime64, toUnixTimestamp, parseDateTimeBestEffort[OrZero] of text.
int ImplicitZoneArgument(std::string_view name, const std::vector<ArgumentInfo>& args);

// Wraps the UTC kernel compiled for `inner_result` so that it runs the call in its zone.
// REQUIRES: call.Active().
std::unique_ptr<ScalarKernel> TimeZoneKernel(std::unique_ptr<ScalarKernel> kernel,
                                             TimeZoneCall call, TypeId inner_result);

}  // namespace granite::core
