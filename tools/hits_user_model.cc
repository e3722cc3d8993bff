#include "tools/hits_user_model.h"

#include <iterator>

#include "tools/hits_text.h"
#include "tools/split_mix_rng.h"

namespace granite::tools {
namespace {

// The ten largest regions of the real table and their share of rows in percent; the remaining
// ~57.5% go to 2000 smaller regions with weights 1/(rank + 10).
constexpr std::pair<int32_t, double> kTopRegions[] = {
    {229, 18.3}, {2, 6.69}, {208, 4.26}, {169, 3.32}, {32, 1.84},
    {34, 1.79},  {184, 1.76}, {42, 1.54}, {107, 1.52}, {51, 1.44},
};
constexpr int kTailRegions = 2000;

struct Resolution {
  int16_t width, height;
  double weight;
};
constexpr Resolution kResolutions[] = {
    {1366, 768, 22}, {1920, 1080, 26}, {1280, 1024, 10}, {1600, 900, 7}, {1440, 900, 7},
    {1024, 768, 3},  {1680, 1050, 6},  {1536, 864, 4},   {2560, 1440, 3}, {1280, 800, 4},
    {800, 600, 0.5}, {1360, 768, 2},   {0, 0, 5},        {-1, -1, 2},  // -1: random size
};

constexpr std::pair<int16_t, double> kOs[] = {{2, 30}, {1, 12}, {44, 10}, {3, 8}, {86, 5}, {56, 5},
                                              {106, 4}, {0, 5}, {4, 4}, {35, 3}, {126, 3},
                                              {118, 3}, {49, 2}, {93, 2}, {71, 2}};
constexpr std::pair<int16_t, double> kUserAgents[] = {{7, 35}, {2, 15}, {3, 12}, {5, 10}, {4, 8},
                                                      {1, 5}, {0, 3}, {42, 3}, {47, 2}, {56, 2},
                                                      {10, 2}, {15, 1}, {22, 1}, {60, 1}};

// Phone models and their weight among users with a phone model (iPad dominates, as in the real
// data), then 200 generated models sharing weight 22.
constexpr std::pair<std::string_view, double> kModels[] = {
    {"iPad", 55},          {"iPhone", 8},     {"A500", 4},     {"N8-00", 3},
    {"iPho", 2},           {"ONE TOUCH 6030A", 1.5}, {"GT-P7300B", 1.2}, {"3110000", 1.1},
    {"GT-I9500", 1},       {"eagle75", 0.9},
};
constexpr int kTailModels = 200;
constexpr int16_t kModelPhones[] = {1, 6, 7, 118, 26, 10, 32, 13, 5, 22};

constexpr std::string_view kUserAgentMinors[] = {"0", "D0", "5", "a", "ao", "Z\x27", "8l", "00",
                                                 "1", "2", "b", "W2", "16", "9"};
constexpr std::string_view kFlashMinor2[] = {"", "", "700", "700.224", "115", "0", "221", "3"};
constexpr std::string_view kLanguages[] = {"ru", "ru", "ru", "ru", "ru", "ru", "ru", "ru", "ru",
                                           "ru", "ru", "ru", "ru", "ru", "ru", "en", "en", "uk",
                                           "be", "kk", "de", "tr", "", ""};
constexpr std::string_view kCountries[] = {"ru", "ru", "ru", "ru", "ru", "ru", "ru", "ru", "ru",
                                           "ru", "ru", "ru", "ru", "ru", "ua", "ua", "by", "kz",
                                           "us", "de", "tr", "", "", ""};
constexpr int16_t kTimeZones[] = {240, 240, 240, 240, 240, 240, 180, 300, 360, 420, 480, 120,
                                  0, -180, 540, 600};
constexpr int16_t kAges[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 17, 17, 22, 22, 22, 28, 28, 28, 39, 39, 55};

template <typename Pairs>
std::vector<double> WeightsOf(const Pairs& pairs) {
  std::vector<double> w;
  for (const auto& p : pairs) w.push_back(p.second);
  return w;
}

}  // namespace

HitsUserModel::HitsUserModel(uint64_t seed) : seed_(seed) {
  std::vector<double> weights;
  for (const auto& [id, percent] : kTopRegions) {
    region_ids_.push_back(id);
    weights.push_back(percent);
  }
  double tail_sum = 0;
  for (int r = 0; r < kTailRegions; ++r) tail_sum += 1.0 / (r + 10);
  for (int r = 0; r < kTailRegions; ++r) {
    // Region ids up to 11579, as in the sample rows; distinct from the top ten.
    region_ids_.push_back(static_cast<int32_t>(300 + (Mix64(r, 0x2e9) % 11280)));
    weights.push_back(57.5 / tail_sum / (r + 10));
  }
  region_picker_ = WeightedPicker(weights);
  std::vector<double> res;
  for (const Resolution& r : kResolutions) res.push_back(r.weight);
  resolution_picker_ = WeightedPicker(res);
  os_picker_ = WeightedPicker(WeightsOf(kOs));
  user_agent_picker_ = WeightedPicker(WeightsOf(kUserAgents));
  std::vector<double> models = WeightsOf(kModels);
  for (const auto& m : kModels) models_.emplace_back(m.first);
  for (int i = 0; i < kTailModels; ++i) {
    std::string name;
    HitsText::AppendToken(Mix64(i, 0x30d), &name);
    for (char& c : name) c = static_cast<char>(c - 'a' + 'A');
    name += "-" + std::to_string(100 + Mix64(i, 0x30e) % 9000);
    models_.push_back(name);
    models.push_back(22.0 / kTailModels);
  }
  model_picker_ = WeightedPicker(models);
}

void HitsUserModel::Traits(int64_t user_id, uint64_t ip_index, UserTraits* out) const {
  SplitMixRng rng(Mix64(static_cast<uint64_t>(user_id), seed_ ^ 0x75e7));
  UserTraits& t = *out;
  t.region = region_ids_[region_picker_.Pick(rng)];
  t.client_ip = static_cast<int32_t>(Mix64(ip_index, seed_ ^ 0x1f) >> 32);
  t.ip_network = static_cast<int32_t>(Mix64(static_cast<uint64_t>(t.client_ip) >> 8) % 300000);
  t.os = kOs[os_picker_.Pick(rng)].first;
  t.user_agent = kUserAgents[user_agent_picker_.Pick(rng)].first;
  t.user_agent_major = static_cast<int16_t>(rng.Below(40));
  t.user_agent_minor = kUserAgentMinors[rng.Below(std::size(kUserAgentMinors))];
  const Resolution& r = kResolutions[resolution_picker_.Pick(rng)];
  if (r.width < 0) {
    t.resolution_width = static_cast<int16_t>(rng.Between(300, 2600));
    t.resolution_height = static_cast<int16_t>(rng.Between(200, 1600));
  } else {
    t.resolution_width = r.width;
    t.resolution_height = r.height;
  }
  uint64_t depth = rng.Below(100);
  t.resolution_depth = t.resolution_width == 0 ? 0 : depth < 85 ? 24 : depth < 98 ? 32 : 16;
  uint64_t flash = rng.Below(100);
  t.flash_major = flash < 25 ? 0 : flash < 75 ? 11 : flash < 90 ? 10 : static_cast<int16_t>(rng.Below(10));
  t.flash_minor = t.flash_major == 0 ? 0 : static_cast<int16_t>(rng.Below(10));
  t.flash_minor2 = t.flash_major == 0 ? "" : kFlashMinor2[rng.Below(std::size(kFlashMinor2))];
  t.net_major = rng.Chance(0.8) ? 0 : static_cast<int16_t>(rng.Between(1, 4));
  t.net_minor = t.net_major == 0 ? 0 : static_cast<int16_t>(rng.Below(6));
  t.java_enable = rng.Chance(0.45) ? 1 : 0;
  t.cookie_enable = rng.Chance(0.98) ? 1 : 0;
  t.javascript_enable = rng.Chance(0.96) ? 1 : 0;
  t.mobile_phone_model.clear();
  t.mobile_phone = 0;
  t.is_mobile = 0;
  if (rng.Chance(0.02)) {
    size_t model = model_picker_.Pick(rng);
    t.mobile_phone_model = models_[model];
    t.is_mobile = 1;
    if (model == 0) {
      t.mobile_phone = rng.Chance(0.7) ? 1 : 5;
    } else if (model < std::size(kModelPhones)) {
      t.mobile_phone = kModelPhones[model];
    } else {
      t.mobile_phone = static_cast<int16_t>(1 + Mix64(model) % 130);
    }
  } else if (rng.Chance(0.01)) {
    t.is_mobile = 1;
  }
  bool silverlight = rng.Chance(0.3);
  t.silverlight1 = silverlight ? 5 : 0;
  t.silverlight2 = silverlight ? 1 : 0;
  t.silverlight3 = silverlight ? static_cast<int32_t>(20000 + rng.Below(40000)) : 0;
  t.silverlight4 = 0;
  t.client_time_zone = kTimeZones[rng.Below(std::size(kTimeZones))];
  t.browser_language = kLanguages[rng.Below(std::size(kLanguages))];
  t.browser_country = kCountries[rng.Below(std::size(kCountries))];
  t.age = kAges[rng.Below(std::size(kAges))];
  t.sex = static_cast<int16_t>(t.age == 0 ? 0 : 1 + rng.Below(2));
  t.income = static_cast<int16_t>(rng.Chance(0.5) ? 0 : 1 + rng.Below(4));
  t.interests = static_cast<int16_t>(rng.Chance(0.4) ? 0 : 1 + rng.Below(16383));
  t.funiq_id = rng.Chance(0.25) ? 0 : static_cast<int64_t>(rng.Next() >> 1);
}

}  // namespace granite::tools
