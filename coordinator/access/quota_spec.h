// A quota as configured: named limits per interval, and the users it applies to. Written in the
// users file ([quota NAME] sections, users_file.h) or with CREATE QUOTA (grant_store.h); counted
// by quota_book.h.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace granite::coordinator::access {

// The resources a quota bounds, as ClickHouse names them: queries, query_selects, query_inserts,
// errors, result_rows, result_bytes, read_rows, read_bytes, execution_time (seconds).
struct QuotaInterval {
  uint64_t seconds = 0;                 // the interval's length; intervals start at multiples of it
  std::map<std::string, uint64_t> max;  // resource -> limit; a missing resource is unbounded
};

struct QuotaSpec {
  std::string name;
  std::vector<QuotaInterval> intervals;
  std::vector<std::string> users;  // CREATE QUOTA ... TO; empty for a users-file quota
  bool from_file = false;
};

}  // namespace granite::coordinator::access
