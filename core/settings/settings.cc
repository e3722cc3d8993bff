#include "core/settings/settings.h"

#include <algorithm>
#include <deque>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/absl_compat.h"
#include "core/error.h"

namespace granite::core {

std::string_view SettingTypeName(SettingType type) {
  switch (type) {
    case SettingType::kBool: return "Bool";
    case SettingType::kUInt64: return "UInt64";
    case SettingType::kString: return "String";
  }
  return "String";
}

namespace settings_internal {

namespace {

absl::Status BadValue(const SettingInfo& info, std::string_view text, std::string_view expected) {
  return Error(ErrorCode::kBadArguments,
               "Cannot parse '" + std::string(text) + "' as " +
                   std::string(SettingTypeName(info.type)) + " for setting " +
                   std::string(info.name) + ": expected " + std::string(expected));
}

// Returns the edit distance of a and b with adjacent transpositions (optimal string alignment),
// case-insensitive, as ClickHouse's name prompter measures it.
size_t Distance(std::string_view a, std::string_view b) {
  // Three rows of the table (i - 2, i - 1, i), one allocation.
  const size_t width = b.size() + 1;
  std::vector<size_t> rows(3 * width);
  size_t* before = rows.data();
  size_t* previous = before + width;
  size_t* current = previous + width;
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = absl::ascii_tolower(a[i - 1]) == absl::ascii_tolower(b[j - 1]) ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

}  // namespace

absl::Status Parse(const SettingInfo& info, std::string_view text, bool* out) {
  std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(ToAbsl(text)));
  if (lower == "1" || lower == "true") {
    *out = true;
  } else if (lower == "0" || lower == "false") {
    *out = false;
  } else {
    return BadValue(info, text, "0, 1, true or false");
  }
  return absl::OkStatus();
}

absl::Status Parse(const SettingInfo& info, std::string_view text, uint64_t* out) {
  uint64_t value = 0;
  absl::string_view trimmed = absl::StripAsciiWhitespace(ToAbsl(text));
  if (trimmed.empty() || trimmed[0] == '-' || !absl::SimpleAtoi(trimmed, &value)) {
    return BadValue(info, text, "an unsigned integer below 2^64");
  }
  *out = value;
  return absl::OkStatus();
}

absl::Status Parse(const SettingInfo& info, std::string_view text, std::string* out) {
  if (info.allowed.empty()) {
    *out = std::string(text);
    return absl::OkStatus();
  }
  std::string lower = absl::AsciiStrToLower(ToAbsl(text));
  for (absl::string_view allowed : absl::StrSplit(ToAbsl(info.allowed), '|')) {
    if (lower == allowed) {
      *out = std::move(lower);
      return absl::OkStatus();
    }
  }
  std::vector<std::string> quoted;
  for (absl::string_view allowed : absl::StrSplit(ToAbsl(info.allowed), '|')) {
    quoted.push_back(absl::StrCat("'", allowed, "'"));
  }
  return BadValue(info, text, "one of " + absl::StrJoin(quoted, ", "));
}

std::string Format(bool value) { return value ? "1" : "0"; }
std::string Format(uint64_t value) { return absl::StrCat(value); }
std::string Format(const std::string& value) { return value; }

bool IsUnknownSetting(const absl::Status& status) {
  return CodeOf(status) == ErrorCode::kUnknownSetting;
}

absl::Status Unknown(std::string_view name, std::string_view scope,
                     const std::vector<SettingInfo>& infos) {
  // Suggests the names within a third of the longer name's length, closest first (at most 3).
  std::vector<std::pair<size_t, std::string_view>> close;
  for (const SettingInfo& info : infos) {
    // The lengths' difference bounds the distance from below: names too long or too short to be
    // within a third are passed over without the quadratic table (a client may send thousands
    // of long unknown names).
    const size_t longer = std::max(name.size(), info.name.size());
    const size_t shorter = std::min(name.size(), info.name.size());
    if ((longer - shorter) * 3 > longer) continue;
    size_t distance = Distance(name, info.name);
    if (distance * 3 <= longer) {
      close.emplace_back(distance, info.name);
    }
  }
  std::sort(close.begin(), close.end());
  if (close.size() > 3) close.resize(3);
  std::string message =
      "Unknown " + std::string(scope) + " setting '" + std::string(name) + "'";
  if (!close.empty()) {
    std::vector<std::string> names;
    for (const auto& [distance, known] : close) names.push_back("'" + std::string(known) + "'");
    absl::StrAppend(&message, ". Maybe you meant [", absl::StrJoin(names, ", "), "]");
  } else {
    absl::StrAppend(&message, " (system.settings lists the known ones)");
  }
  return Error(ErrorCode::kUnknownSetting, message);
}

}  // namespace settings_internal

namespace {

constexpr SettingType TypeOf(bool) { return SettingType::kBool; }
constexpr SettingType TypeOf(uint64_t) { return SettingType::kUInt64; }
SettingType TypeOf(const std::string&) { return SettingType::kString; }

}  // namespace

#define GRANITE_SETTING_FIELD(OWNER, TYPE, NAME, DEFAULT, ALLOWED, DESCRIPTION)                  \
  settings_internal::Field<OWNER>{                                                              \
      SettingInfo{#NAME, TypeOf(settings_internal::TYPE{}),                                     \
                  defaults.emplace_back(settings_internal::Format(                              \
                      settings_internal::TYPE(DEFAULT))), ALLOWED, DESCRIPTION},                \
      &OWNER::NAME},
#define GRANITE_QUERY_FIELD(...) GRANITE_SETTING_FIELD(Settings, __VA_ARGS__)
#define GRANITE_TABLE_FIELD(...) GRANITE_SETTING_FIELD(TableSettings, __VA_ARGS__)

const std::vector<settings_internal::Field<Settings>>& Settings::Fields() {
  // The default texts live as long as the fields (a deque keeps their addresses).
  static std::deque<std::string> defaults;
  static const std::vector<settings_internal::Field<Settings>> fields = {
      GRANITE_QUERY_SETTINGS(GRANITE_QUERY_FIELD)};
  return fields;
}

const std::vector<settings_internal::Field<TableSettings>>& TableSettings::Fields() {
  static std::deque<std::string> defaults;
  static const std::vector<settings_internal::Field<TableSettings>> fields = {
      GRANITE_TABLE_SETTINGS(GRANITE_TABLE_FIELD)};
  return fields;
}

#undef GRANITE_QUERY_FIELD
#undef GRANITE_TABLE_FIELD
#undef GRANITE_SETTING_FIELD

}  // namespace granite::core
