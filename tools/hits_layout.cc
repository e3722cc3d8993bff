#include "tools/hits_layout.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "tools/split_mix_rng.h"

namespace granite::tools {
namespace {

struct BigCounter {
  int32_t id;
  double percent;      // share of all rows, in percent
  double top_page;     // share of the counter's rows on its top page
  bool long_urls;
};

// The largest counters of the real table (ids and order from the published answers of the
// per-counter query), with shares chosen so that 25 counters exceed 1% of the rows (the
// `HAVING COUNT(*) > 100000` query returns 25 rows from 10M rows on) and the largest exceeds 10%
// (it returns rows from 1M rows on). Counter 62 is inflated from the real 0.74% to 4% so that the
// OFFSET queries over it return rows at 1M rows.
constexpr BigCounter kBigCounters[] = {
    {3922, 12.0, 0.27, false},   {199550, 10.0, 0.10, true},  {122612, 5.0, 0.08, false},
    {233773, 4.5, 0.06, true},   {245438, 4.0, 0.05, false},  {62, 4.0, 0.35, false},
    {256004, 2.5, 0.05, false},  {186300, 2.3, 0.04, false},  {146891, 2.0, 0.06, false},
    {38, 1.8, 0.05, true},       {220992, 1.7, 0.04, false},  {64469, 1.6, 0.05, false},
    {63217, 1.57, 0.07, false},  {35534, 1.54, 0.04, false},  {5822, 1.51, 0.05, false},
    {3035, 1.48, 0.03, false},   {11254, 1.45, 0.05, false},  {90471, 1.42, 0.06, false},
    {131052, 1.39, 0.04, false}, {17811, 1.36, 0.05, false},  {204167, 1.33, 0.03, false},
    {72043, 1.30, 0.05, false},  {158839, 1.27, 0.04, false}, {9988, 1.24, 0.06, false},
    {48176, 1.21, 0.05, false},
};

// Rows per 99,997,497 of the ten heaviest UserIDs of the real table; the first two ids are real.
constexpr double kRobotRows[] = {29097, 25333, 10597, 7584, 6678, 6411, 6197, 6019, 5211, 4906};
constexpr int64_t kRobotIds[] = {1313338681122956954LL, 1907779576417363396LL};
constexpr double kRealRows = 99997497;

// Moscow hour-of-day profile of page views (relative).
constexpr double kHourWeights[24] = {0.42, 0.30, 0.22, 0.17, 0.14, 0.15, 0.22, 0.38,
                                     0.62, 0.85, 1.00, 1.05, 1.06, 1.06, 1.05, 1.02,
                                     1.00, 0.98, 0.95, 0.97, 1.00, 0.95, 0.80, 0.60};

// Splits `total` rows over `shares` by largest remainder, so the counts add up exactly.
std::vector<uint64_t> Apportion(uint64_t total, const std::vector<double>& shares) {
  double sum = 0;
  for (double s : shares) sum += s;
  std::vector<uint64_t> counts(shares.size());
  std::vector<std::pair<double, size_t>> remainders(shares.size());
  uint64_t assigned = 0;
  for (size_t i = 0; i < shares.size(); ++i) {
    double exact = static_cast<double>(total) * shares[i] / sum;
    counts[i] = static_cast<uint64_t>(exact);
    assigned += counts[i];
    remainders[i] = {exact - static_cast<double>(counts[i]), i};
  }
  std::sort(remainders.begin(), remainders.end(),
            [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
  for (size_t i = 0; assigned < total; ++i, ++assigned) ++counts[remainders[i % remainders.size()].second];
  return counts;
}

}  // namespace

int64_t HitsLayout::UserIdOf(uint64_t index) const {
  uint64_t v = Mix64(index, seed_ ^ 0x55e5);
  int64_t magnitude = static_cast<int64_t>(v >> 1);
  // 23% negative: the mean is then about 0.27 * 2^63, like the real AVG(UserID).
  bool negative = Mix64(v) % 100 < 23;
  int64_t id = negative ? -magnitude : magnitude;
  bool taken = id == kSpecialUserId;
  for (const RobotPlan& robot : robots_) taken = taken || id == robot.user_id;
  return taken ? id ^ 1 : id;
}

HitsLayout HitsLayout::Build(uint64_t rows, uint64_t seed) {
  HitsLayout layout;
  layout.rows_ = rows;
  layout.seed_ = seed;
  double n = static_cast<double>(rows);
  layout.user_pool_ = std::max<uint64_t>(16, static_cast<uint64_t>(n / 5.3));
  layout.phrase_pool_ = std::max<uint64_t>(1000, static_cast<uint64_t>(n * 0.16));
  layout.referer_host_pool_ = std::max<uint64_t>(100, rows / 400);

  SplitMixRng rng(Mix64(seed, 0x1a7));
  for (size_t k = 0; k < std::size(kRobotRows); ++k) {
    RobotPlan robot;
    robot.user_id = k < std::size(kRobotIds) ? kRobotIds[k]
                                             : static_cast<int64_t>(Mix64(k, 0x40b0) >> 2);
    robot.client_ip = static_cast<int32_t>(Mix64(k, 0x1b) >> 33);
    robot.share = kRobotRows[k] / kRealRows;
    layout.robots_.push_back(robot);
  }

  // Counters: the big ones, then a long tail sharing the remaining rows with weights 1/(r + 20).
  std::vector<CounterPlan> plans;
  std::vector<double> shares;
  std::unordered_set<int32_t> used;
  double big_total = 0;
  for (const BigCounter& big : kBigCounters) {
    CounterPlan plan;
    plan.id = big.id;
    plan.top_page_share = big.top_page;
    plan.long_urls = big.long_urls;
    plans.push_back(plan);
    shares.push_back(big.percent);
    used.insert(big.id);
    big_total += big.percent;
  }
  uint64_t tail = std::clamp<uint64_t>(rows / 400, 20, 250000);
  double harmonic = 0;
  for (uint64_t r = 0; r < tail; ++r) harmonic += 1.0 / static_cast<double>(r + 20);
  for (uint64_t r = 0; r < tail; ++r) {
    CounterPlan plan;
    do {
      plan.id = static_cast<int32_t>(100 + rng.Below(400000));
    } while (!used.insert(plan.id).second);
    plan.top_page_share = 0.02 + static_cast<double>(Mix64(plan.id) % 13) / 100;
    plan.long_urls = Mix64(plan.id, 7) % 6 == 0;
    plans.push_back(plan);
    shares.push_back((100 - big_total) / harmonic / static_cast<double>(r + 20));
  }
  std::vector<uint64_t> counts = Apportion(rows, shares);
  for (size_t i = 0; i < plans.size(); ++i) plans[i].rows = counts[i];

  // Robots live on the five largest counters; the special user's rows go to the third largest
  // (or the largest when it is too small).
  for (size_t k = 0; k < layout.robots_.size(); ++k) {
    size_t home = k % 5;
    double p = layout.robots_[k].share * 100 / kBigCounters[home].percent;
    plans[home].robots.push_back({static_cast<int>(k), p});
  }
  size_t special_home = plans[2].rows >= 10 ? 2 : 0;
  for (int k = 1; k <= kSpecialUserRows; ++k) {
    uint64_t row = plans[special_home].rows * k / (kSpecialUserRows + 1);
    if (plans[special_home].rows > static_cast<uint64_t>(kSpecialUserRows)) {
      plans[special_home].special_user_rows.push_back(row);
    }
  }

  for (CounterPlan& plan : plans) {
    uint64_t h = Mix64(static_cast<uint64_t>(plan.id), 0xc0);
    plan.pages = std::max<uint64_t>(60, plan.rows / 3);
    plan.counter_class = static_cast<int>(h % 3);
    plan.url_category = static_cast<int>(h / 3 % 20);
    plan.code_version = static_cast<int>(h / 60 % 600);
    plan.is_link_rate = plan.id == kSpecialCounterId ? 0.3 : 0.1;
  }
  plans.erase(std::remove_if(plans.begin(), plans.end(), [](const CounterPlan& p) { return p.rows == 0; }),
              plans.end());
  std::sort(plans.begin(), plans.end(),
            [](const CounterPlan& a, const CounterPlan& b) { return a.id < b.id; });
  uint64_t first = 0;
  for (CounterPlan& plan : plans) {
    plan.first_row = first;
    first += plan.rows;
  }
  layout.counters_ = std::move(plans);

  // Days: weekdays 1.0, Saturdays 0.7, Sundays 0.8, and a peak on Monday 2013-07-15 (x4, ~13% of
  // the rows). 2013-07-02 is a Tuesday.
  std::vector<double> days, special_days;
  for (int d = 0; d < kDays; ++d) {
    int weekday = (d + 1) % 7;  // 0 = Monday
    double w = weekday == 5 ? 0.7 : weekday == 6 ? 0.8 : 1.0;
    if (d == 13) w *= 4;       // 2013-07-15
    days.push_back(w);
    special_days.push_back(d == 12 ? 0.0 : w);  // counter 62 has no rows on 2013-07-14
  }
  layout.day_picker_ = WeightedPicker(days);
  layout.special_day_picker_ = WeightedPicker(special_days);
  layout.hour_picker_ = WeightedPicker(std::vector<double>(std::begin(kHourWeights), std::end(kHourWeights)));
  return layout;
}

}  // namespace granite::tools
