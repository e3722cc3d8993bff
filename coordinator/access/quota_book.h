// QuotaBook: what each user consumed of each quota interval, in memory on this coordinator (a
// restart, or another coordinator, starts from zero). Intervals are aligned on multiples of
// their length since the Unix epoch, as ClickHouse's non-randomized intervals.
//
// A query is counted when it starts (queries, query_selects, query_inserts): if that, or what
// earlier queries consumed, is over a limit, it fails with QUOTA_EXCEEDED (201) before it runs.
// Errors, result rows and bytes, read rows and bytes and execution time are added when a query
// ends, so they stop the next query.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "coordinator/access/quota_spec.h"
#include "core/mutex.h"

namespace granite::coordinator::access {

// One finished query's consumption.
struct QuotaConsumption {
  bool error = false;
  uint64_t result_rows = 0;
  uint64_t result_bytes = 0;
  uint64_t read_rows = 0;
  uint64_t read_bytes = 0;
  uint64_t execution_us = 0;
};

// One interval of one quota for one user, as system.quota_usage shows it.
struct QuotaUsage {
  std::string quota;
  uint64_t seconds = 0;
  int64_t end = 0;  // Unix seconds
  std::map<std::string, uint64_t> used;  // execution_time in microseconds
  std::map<std::string, uint64_t> max;   // execution_time in seconds
};

// Thread-safety: every method may be called concurrently (one "quota_book" lock).
class QuotaBook {
 public:
  static QuotaBook& Current();

  using Clock = std::chrono::system_clock;

  // Counts a starting query of `user` (`kind`: "select", "insert" or other) against `quotas`;
  // QUOTA_EXCEEDED naming the user, interval, resource, use/limit, the interval's end and the
  // quota if it is over a limit.
  absl::Status Start(const std::string& user, const std::vector<QuotaSpec>& quotas,
                     std::string_view kind, Clock::time_point now = Clock::now())
      EXCLUDES(mu_);
  // Adds a finished query's consumption.
  void Finish(const std::string& user, const std::vector<QuotaSpec>& quotas,
              const QuotaConsumption& consumption, Clock::time_point now = Clock::now())
      EXCLUDES(mu_);
  // Returns `user`'s use of every interval of `quotas`.
  std::vector<QuotaUsage> UsageOf(const std::string& user, const std::vector<QuotaSpec>& quotas,
                                  Clock::time_point now = Clock::now()) EXCLUDES(mu_);

 private:
  struct Counter {
    int64_t end = 0;
    std::map<std::string, uint64_t> used;
  };
  // By quota, user and interval length.
  using Key = std::tuple<std::string, std::string, uint64_t>;
  Counter& CounterOf(const Key& key, int64_t now_seconds) EXCLUSIVE_LOCKS_REQUIRED(mu_);

  core::Mutex mu_{"quota_book"};
  std::map<Key, Counter> counters_ GUARDED_BY(mu_);
};

}  // namespace granite::coordinator::access
