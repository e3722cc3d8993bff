// Process-level plumbing shared by the coordinator and worker programs: shutdown signals and the
// allocator report logged at start-up.
#pragma once

#include <string>

namespace granite::core {

// Blocks SIGINT and SIGTERM in the calling thread; call first in main, before any thread starts,
// so every later thread inherits the mask and WaitForShutdownSignal() receives them.
void BlockShutdownSignals();

// Waits until SIGINT or SIGTERM arrives; returns the signal number.
int WaitForShutdownSignal();

// Returns "jemalloc 5.3.0-0-g… lg_extent_max_active_fit=8", or a line saying jemalloc is not linked.
std::string AllocatorSummary();

// Reads a jemalloc statistic such as "stats.allocated" (refreshing the epoch); 0 without jemalloc.
size_t JemallocStat(const char* name);

// Returns the freed pages of every jemalloc arena to the OS now (arena.<all>.purge) instead of
// after the dirty decay; nothing without jemalloc.
void JemallocPurge();

}  // namespace granite::core
