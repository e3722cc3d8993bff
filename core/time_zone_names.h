// The append-only table of IANA time zone names behind zone ids (core/time_zone_names.cc).
// Read through core/time_zone.h; only that file and its test use the table directly.
#pragma once

#include <cstddef>
#include <string_view>

namespace granite::core {

// kTimeZoneNames[id] is the name of zone `id`; [0] is "" (no zone), [1] is "UTC".
extern const std::string_view kTimeZoneNames[];
extern const size_t kTimeZoneNameCount;

}  // namespace granite::core
