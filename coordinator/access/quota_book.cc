#include "coordinator/access/quota_book.h"

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "core/error.h"

namespace granite::coordinator::access {
namespace {

int64_t UnixSeconds(QuotaBook::Clock::time_point now) {
  return std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
}

// A limit compared in the counter's unit (execution_time is counted in microseconds).
uint64_t LimitInCounterUnits(const std::string& resource, uint64_t max) {
  return resource == "execution_time" ? max * 1000000 : max;
}

std::string UsedText(const std::string& resource, uint64_t used) {
  if (resource != "execution_time") return absl::StrCat(used);
  return absl::StrCat(static_cast<double>(used) / 1e6);
}

}  // namespace

QuotaBook& QuotaBook::Current() {
  static QuotaBook* book = new QuotaBook();
  return *book;
}

QuotaBook::Counter& QuotaBook::CounterOf(const Key& key, int64_t now_seconds) {
  Counter& counter = counters_[key];
  const int64_t length = static_cast<int64_t>(std::get<2>(key));
  if (now_seconds >= counter.end) {
    counter.used.clear();
    counter.end = (now_seconds / length + 1) * length;
  }
  return counter;
}

absl::Status QuotaBook::Start(const std::string& user, const std::vector<QuotaSpec>& quotas,
                              std::string_view kind, Clock::time_point now) {
  const int64_t now_seconds = UnixSeconds(now);
  core::MutexLock lock(mu_);
  for (const QuotaSpec& quota : quotas) {
    for (const QuotaInterval& interval : quota.intervals) {
      if (interval.seconds == 0) continue;
      Counter& counter = CounterOf(Key{quota.name, user, interval.seconds}, now_seconds);
      ++counter.used["queries"];
      if (kind == "select") ++counter.used["query_selects"];
      if (kind == "insert") ++counter.used["query_inserts"];
      for (const auto& [resource, max] : interval.max) {
        const uint64_t used = counter.used[resource];
        const bool counted_now = resource == "queries" || resource == "query_selects" ||
                                 resource == "query_inserts";
        // A count this query adds may reach the limit; what earlier queries consumed may not.
        const bool over = counted_now ? used > max : used >= LimitInCounterUnits(resource, max);
        if (!over) continue;
        return core::Error(
            core::ErrorCode::kQuotaExceeded,
            absl::StrCat("Quota for user `", user, "` for ", interval.seconds,
                         "s has been exceeded: ", resource, " = ", UsedText(resource, used), "/",
                         max, ". Interval will end at ",
                         absl::FormatTime("%Y-%m-%d %H:%M:%S", absl::FromUnixSeconds(counter.end),
                                          absl::UTCTimeZone()),
                         " UTC. Name of quota template: `", quota.name, "`"));
      }
    }
  }
  return absl::OkStatus();
}

void QuotaBook::Finish(const std::string& user, const std::vector<QuotaSpec>& quotas,
                       const QuotaConsumption& consumption, Clock::time_point now) {
  const int64_t now_seconds = UnixSeconds(now);
  core::MutexLock lock(mu_);
  for (const QuotaSpec& quota : quotas) {
    for (const QuotaInterval& interval : quota.intervals) {
      if (interval.seconds == 0) continue;
      Counter& counter = CounterOf(Key{quota.name, user, interval.seconds}, now_seconds);
      if (consumption.error) ++counter.used["errors"];
      counter.used["result_rows"] += consumption.result_rows;
      counter.used["result_bytes"] += consumption.result_bytes;
      counter.used["read_rows"] += consumption.read_rows;
      counter.used["read_bytes"] += consumption.read_bytes;
      counter.used["execution_time"] += consumption.execution_us;
    }
  }
}

std::vector<QuotaUsage> QuotaBook::UsageOf(const std::string& user,
                                           const std::vector<QuotaSpec>& quotas,
                                           Clock::time_point now) {
  const int64_t now_seconds = UnixSeconds(now);
  std::vector<QuotaUsage> usages;
  core::MutexLock lock(mu_);
  for (const QuotaSpec& quota : quotas) {
    for (const QuotaInterval& interval : quota.intervals) {
      if (interval.seconds == 0) continue;
      Counter& counter = CounterOf(Key{quota.name, user, interval.seconds}, now_seconds);
      usages.push_back(QuotaUsage{quota.name, interval.seconds, counter.end, counter.used,
                                  interval.max});
    }
  }
  return usages;
}

}  // namespace granite::coordinator::access
