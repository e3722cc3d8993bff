// system.settings: every query setting of the registry (core/settings/setting_list.h) with the
// value in force for the query that reads it (the session's SET, the request's settings, the
// statement's SETTINGS), as ClickHouse lists them.
#pragma once

#include "coordinator/planner/binder.h"
#include "core/settings/settings.h"

namespace granite::coordinator {

// Builds system.settings over `settings`: name, value, changed (UInt8), description, type,
// default.
LocalTable BuildSettingsTable(const core::Settings& settings);

}  // namespace granite::coordinator
