// The per-user attributes of the synthetic `hits` table: region, IP, browser, screen, phone model,
// language and demographics. They are pure functions of the user (UserID and pool index), so a
// user keeps them on every row, which gives realistic conditional cardinalities (distinct users
// per region or per phone model).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tools/weighted_picker.h"

namespace granite::tools {

struct UserTraits {
  int32_t region = 0;
  int32_t client_ip = 0;
  int32_t ip_network = 0;
  int16_t os = 0, user_agent = 0, user_agent_major = 0;
  std::string_view user_agent_minor;
  int16_t resolution_width = 0, resolution_height = 0, resolution_depth = 0;
  int16_t flash_major = 0, flash_minor = 0;
  std::string_view flash_minor2;
  int16_t net_major = 0, net_minor = 0;
  int16_t java_enable = 0, cookie_enable = 0, javascript_enable = 0;
  int16_t is_mobile = 0, mobile_phone = 0;
  std::string mobile_phone_model;
  int16_t silverlight1 = 0, silverlight2 = 0, silverlight4 = 0;
  int32_t silverlight3 = 0;
  int16_t client_time_zone = 0;  // minutes east of UTC
  std::string_view browser_language, browser_country;
  int16_t age = 0, sex = 0, income = 0, interests = 0;
  int64_t funiq_id = 0;
};

// Computes UserTraits. Thread-safety: immutable after construction; Traits() is const.
class HitsUserModel {
 public:
  explicit HitsUserModel(uint64_t seed);

  // Returns the traits of the user with `user_id`; `ip_index` picks the client IP (consecutive
  // ordinary users share some IPs). REQUIRES: out != nullptr.
  void Traits(int64_t user_id, uint64_t ip_index, UserTraits* out) const;

 private:
  uint64_t seed_;
  std::vector<int32_t> region_ids_;
  WeightedPicker region_picker_;
  WeightedPicker resolution_picker_;
  WeightedPicker os_picker_;
  WeightedPicker user_agent_picker_;
  WeightedPicker model_picker_;
  std::vector<std::string> models_;
};

}  // namespace granite::tools
