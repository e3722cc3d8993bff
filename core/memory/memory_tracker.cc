#include "core/memory/memory_tracker.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_format.h"
#include "core/error.h"
#include "core/process.h"

namespace granite::core {
namespace {

constinit MemoryTracker server_tracker(MemoryTracker::Level::kServer, nullptr);

// ClickHouse's ReadableSize: "1.50 GiB".
std::string Readable(int64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (std::abs(value) >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  return absl::StrFormat("%.2f %s", value, kUnits[unit]);
}

// Re-syncs the server tracker with the allocator's count of live bytes at most once a second:
// bytes freed after their query's tracker was gone, or on an untracked thread, would otherwise
// drift the total. Runs inside allocations: reads a clock and, rarely, jemalloc's statistics.
void MaybeResyncServer() {
  static std::atomic<int64_t> next_sync_ns{0};
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
  int64_t ns = int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
  int64_t due = next_sync_ns.load(std::memory_order_relaxed);
  if (ns < due) return;
  if (!next_sync_ns.compare_exchange_strong(due, ns + 1000000000)) return;
  size_t allocated = JemallocStat("stats.allocated");
  if (allocated > 0) server_tracker.Set(static_cast<int64_t>(allocated));
}

// Reads the first integer of a file (a cgroup limit, or "max"); 0 if absent or unlimited.
int64_t ReadLimitFile(const char* path) {
  FILE* file = std::fopen(path, "r");
  if (file == nullptr) return 0;
  char text[64] = {};
  size_t n = std::fread(text, 1, sizeof(text) - 1, file);
  std::fclose(file);
  text[n] = '\0';
  if (std::strncmp(text, "max", 3) == 0) return 0;
  long long value = std::atoll(text);
  // cgroup v1 reports "no limit" as a number near 2^63 rounded to pages.
  return value <= 0 || value >= (int64_t{1} << 60) ? 0 : value;
}

}  // namespace

MemoryTracker::~MemoryTracker() {
  if (parent_ != nullptr) parent_->Add(-current());
}

std::shared_ptr<MemoryTracker> MemoryTracker::ForQuery(int64_t limit) {
  auto tracker = std::make_shared<MemoryTracker>(Level::kQuery, &server_tracker);
  tracker->set_limit(limit);
  return tracker;
}

void MemoryTracker::RaisePeak(int64_t now) {
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

void MemoryTracker::Add(int64_t bytes) {
  for (MemoryTracker* tracker = this; tracker != nullptr; tracker = tracker->parent_) {
    int64_t now = tracker->current_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    if (bytes <= 0) continue;
    tracker->RaisePeak(now);
    int64_t limit = tracker->limit();
    // The server tracker alone (an allocation outside any query) has no query to fail.
    if (limit > 0 && now > limit && level_ == Level::kQuery) {
      Record(tracker->level_, now, bytes, limit);
    }
  }
}

void MemoryTracker::Record(Level level, int64_t would_use, int64_t chunk, int64_t limit) {
  int expected = kNone;
  if (!exceeded_.compare_exchange_strong(expected, kRecording, std::memory_order_acq_rel)) return;
  exceeded_level_ = level;
  exceeded_would_use_ = would_use;
  exceeded_chunk_ = chunk;
  exceeded_limit_ = limit;
  exceeded_.store(kRecorded, std::memory_order_release);
  if (cancel_flag_ != nullptr) cancel_flag_->store(true, std::memory_order_relaxed);
}

absl::Status MemoryTracker::ExceededStatus() const {
  if (!exceeded()) return absl::OkStatus();
  return Error(ErrorCode::kMemoryLimitExceeded,
               absl::StrFormat("Memory limit (%s) exceeded: would use %s (attempt to allocate "
                               "chunk of %d bytes), maximum: %s (%s)",
                               exceeded_level_ == Level::kQuery ? "for query" : "total",
                               Readable(exceeded_would_use_), exceeded_chunk_,
                               Readable(exceeded_limit_),
                               exceeded_level_ == Level::kQuery ? "max_memory_usage"
                                                                : "max_server_memory_usage"));
}

MemoryTracker& ServerMemoryTracker() { return server_tracker; }

int64_t DefaultServerMemoryLimit(double ratio) {
  int64_t ram = static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  int64_t limit = ram > 0 ? ram : 0;
  for (const char* path : {"/sys/fs/cgroup/memory.max",
                           "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    int64_t cgroup = ReadLimitFile(path);
    if (cgroup > 0) limit = limit > 0 ? std::min(limit, cgroup) : cgroup;
  }
  return static_cast<int64_t>(static_cast<double>(limit) * ratio);
}

MemoryTracker* CurrentMemoryTracker() { return memory_internal::thread_memory.tracker; }

absl::Status CurrentMemoryLimitStatus() {
  MemoryTracker* tracker = memory_internal::thread_memory.tracker;
  return tracker != nullptr ? tracker->ExceededStatus() : absl::OkStatus();
}

MemoryTrackerScope::MemoryTrackerScope(MemoryTracker* tracker)
    : saved_(memory_internal::thread_memory.tracker) {
  memory_internal::Flush();
  memory_internal::thread_memory.tracker = tracker;
}

MemoryTrackerScope::~MemoryTrackerScope() {
  memory_internal::Flush();
  memory_internal::thread_memory.tracker = saved_;
}

namespace memory_internal {

void Flush() {
  ThreadMemory& memory = thread_memory;
  if (memory.flushing) return;
  memory.flushing = true;
  int64_t bytes = memory.untracked;
  memory.untracked = 0;
  if (bytes != 0) {
    (memory.tracker != nullptr ? memory.tracker : &server_tracker)->Add(bytes);
    MaybeResyncServer();
  }
  memory.flushing = false;
}

}  // namespace memory_internal

}  // namespace granite::core
