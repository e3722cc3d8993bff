// SettingsOf: the typed query settings of a wire fragment (its changed (name, value) pairs parsed
// over the defaults of setting_list.h). The worker-side stages that still take the protobuf
// fragment read their settings through it; once the plan is typed, the codec parses them once.
#pragma once

#include "absl/status/statusor.h"
#include "core/settings/settings.h"
#include "granite/worker/v1/plan.pb.h"

namespace granite::core {

// Returns `fragment`'s settings. Errors: UNKNOWN_SETTING / BAD_ARGUMENTS (settings.h).
inline absl::StatusOr<Settings> SettingsOf(const granite::worker::v1::Fragment& fragment) {
  return Settings::FromMap(fragment.settings());
}

}  // namespace granite::core
