// Thread names: every thread granite starts carries a short name saying what it does
// ("query_pool", "merge_pool", ...), so top -H, perf, gdb and /proc/<pid>/task/*/comm show which
// part of the server uses the CPU. gRPC names its own threads.
#pragma once

#include <string_view>

namespace granite::core {

// Names the calling thread; Linux keeps the first 15 bytes. Best effort: a failure is ignored.
void SetCurrentThreadName(std::string_view name);

}  // namespace granite::core
