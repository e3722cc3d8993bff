#include "tools/hits_generator.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "tools/hits_layout.h"
#include "tools/hits_row_writer.h"
#include "tools/split_mix_rng.h"

namespace granite::tools {
namespace {

// Robots browse in bursts: 70% of their rows fall in minutes 26-34 of an hour (the real top user
// has 540-589 rows in each of those minutes-of-hour).
constexpr double kRobotBurstShare = 0.7;

// Draws the keys of all rows of `counter` and sorts them in primary-key order.
void MakeKeys(const HitsLayout& layout, const CounterPlan& counter, std::vector<RowKey>* keys) {
  keys->resize(counter.rows);
  const bool special = counter.id == kSpecialCounterId;
  const WeightedPicker& days = layout.day_picker(special);
  const WeightedPicker& hours = layout.hour_picker();
  const double user_pool = static_cast<double>(layout.user_pool());
  size_t next_special = 0;
  for (uint64_t i = 0; i < counter.rows; ++i) {
    SplitMixRng rng(Mix64(layout.seed(), counter.first_row + i));
    RowKey& key = (*keys)[i];
    key.row_seed = rng.Next();
    key.watch_id = static_cast<int64_t>(rng.Next());
    key.day = static_cast<uint16_t>(days.Pick(rng));
    key.robot = -1;
    double u = rng.Unit();
    for (const auto& [robot, probability] : counter.robots) {
      if (u < probability) {
        key.robot = static_cast<int16_t>(robot);
        break;
      }
      u -= probability;
    }
    uint32_t second_of_day = static_cast<uint32_t>(hours.Pick(rng) * 3600 + rng.Below(3600));
    if (next_special < counter.special_user_rows.size() &&
        counter.special_user_rows[next_special] == i) {
      ++next_special;
      key.user_id = kSpecialUserId;
      key.user_index = ~0ULL;
      key.robot = -1;
    } else if (key.robot >= 0) {
      key.user_id = layout.robots()[key.robot].user_id;
      key.user_index = ~1ULL;
      if (rng.Chance(kRobotBurstShare)) {
        second_of_day = second_of_day / 3600 * 3600 + static_cast<uint32_t>(rng.Between(26, 34)) * 60 +
                        static_cast<uint32_t>(rng.Below(60));
      }
    } else {
      // Index = pool * v^1.5, density ~ x^(-1/3): a mild skew; robots are the heavy hitters.
      double v = rng.Unit();
      key.user_index = static_cast<uint64_t>(user_pool * v * std::sqrt(v));
      key.user_id = layout.UserIdOf(key.user_index);
    }
    int64_t day_start = (kFirstDay + key.day) * 86400 - kMoscowOffsetSeconds;
    key.event_time = static_cast<uint32_t>(day_start + second_of_day);
  }
  std::sort(keys->begin(), keys->end(), [](const RowKey& a, const RowKey& b) {
    if (a.day != b.day) return a.day < b.day;
    if (a.user_id != b.user_id) return a.user_id < b.user_id;
    if (a.event_time != b.event_time) return a.event_time < b.event_time;
    return a.watch_id < b.watch_id;
  });
}

}  // namespace

absl::Status GenerateHits(const GeneratorOptions& options, std::ostream& out) {
  if (options.rows == 0) return absl::OkStatus();
  HitsLayout layout = HitsLayout::Build(options.rows, options.seed);
  FieldWriter writer(options.format, &out);
  HitsRowWriter rows(&layout);
  std::vector<RowKey> keys;
  for (const CounterPlan& counter : layout.counters()) {
    MakeKeys(layout, counter, &keys);
    rows.BeginCounter(counter);
    for (const RowKey& key : keys) rows.WriteRow(key, &writer);
    if (!writer.status().ok()) return writer.status();
  }
  return writer.Flush();
}

}  // namespace granite::tools
