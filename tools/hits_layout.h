// The table-level plan of the synthetic ClickBench `hits` table: which counters (sites) exist, how
// many rows each gets, their page pools, the day and hour distributions, the heavy users and the
// special rows that the benchmark's literals select. Rows are written counter by counter in
// CounterID order, each counter's rows sorted by (EventDate, UserID, EventTime, WatchID): the
// table's primary key order, as in the published files.
//
// The numbers and the reasons for them are documented in bench/clickbench/README.md.
#pragma once

#include <cstdint>
#include <vector>

#include "tools/weighted_picker.h"

namespace granite::tools {

// The first and last EventDate (2013-07-02 and 2013-07-31, days since 1970-01-01).
inline constexpr int64_t kFirstDay = 15888;
inline constexpr int kDays = 30;
// EventDate is the Moscow (UTC+4 in 2013) calendar date of EventTime.
inline constexpr int64_t kMoscowOffsetSeconds = 4 * 3600;

// The literals of the benchmark's queries that must select rows.
inline constexpr int32_t kSpecialCounterId = 62;
inline constexpr int64_t kSpecialUserId = 435090932899640449LL;  // exactly 4 rows
inline constexpr int kSpecialUserRows = 4;
inline constexpr int64_t kSpecialRefererHash = 3594120000172545465LL;
inline constexpr int64_t kSpecialUrlHash = 2868770270353813622LL;

// One counter (a site) and its share of the table.
struct CounterPlan {
  int32_t id = 0;
  uint64_t rows = 0;
  uint64_t first_row = 0;        // index of its first row in generation order (seeds rows)
  double top_page_share = 0.05;  // share of its rows on its most visited page
  uint64_t pages = 0;            // size of its page pool
  bool long_urls = false;        // URLs with long query strings
  int counter_class = 0;
  int url_category = 0;
  int code_version = 0;
  double is_link_rate = 0.1;
  // Robots (heavy UserIDs) living on this counter: index into HitsLayout::robots and their
  // probability per row of this counter.
  std::vector<std::pair<int, double>> robots;
  // Rows (0-based within the counter, before sorting) that belong to kSpecialUserId.
  std::vector<uint64_t> special_user_rows;
};

// One heavy user (a robot): a fixed UserID and its share of all rows.
struct RobotPlan {
  int64_t user_id = 0;
  int32_t client_ip = 0;
  double share = 0;
};

// Plans the whole table from its row count and seed. Thread-safety: immutable after Build().
class HitsLayout {
 public:
  // REQUIRES: rows > 0.
  static HitsLayout Build(uint64_t rows, uint64_t seed);

  uint64_t rows() const { return rows_; }
  uint64_t seed() const { return seed_; }
  const std::vector<CounterPlan>& counters() const { return counters_; }
  const std::vector<RobotPlan>& robots() const { return robots_; }
  // Size of the pool of ordinary users (UserIDs are drawn from it with a skew).
  uint64_t user_pool() const { return user_pool_; }
  // Size of the pool of distinct non-empty search phrases.
  uint64_t phrase_pool() const { return phrase_pool_; }
  // Size of the pool of less common referring hosts.
  uint64_t referer_host_pool() const { return referer_host_pool_; }

  // Day index (0 = 2013-07-02) of a row; `special_counter` excludes 2013-07-14.
  const WeightedPicker& day_picker(bool special_counter) const {
    return special_counter ? special_day_picker_ : day_picker_;
  }
  // Moscow hour of day of a row.
  const WeightedPicker& hour_picker() const { return hour_picker_; }

  // Returns the UserID of ordinary user `index` (never kSpecialUserId nor a robot's id).
  int64_t UserIdOf(uint64_t index) const;

 private:
  uint64_t rows_ = 0;
  uint64_t seed_ = 0;
  uint64_t user_pool_ = 0;
  uint64_t phrase_pool_ = 0;
  uint64_t referer_host_pool_ = 0;
  std::vector<CounterPlan> counters_;
  std::vector<RobotPlan> robots_;
  WeightedPicker day_picker_;
  WeightedPicker special_day_picker_;
  WeightedPicker hour_picker_;
};

}  // namespace granite::tools
