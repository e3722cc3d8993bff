// Settings and TableSettings: the typed values of the settings declared in setting_list.h. A
// query's settings are built once on the coordinator (server defaults, then the session's SET, the
// request's QueryInfo.settings, the statement's SETTINGS clause), travel to the workers as the
// changed (name, value) pairs, and are parsed back once per fragment. Code reads typed fields
// (`settings.use_pruning`), never a setting's name.
//
// Errors follow ClickHouse: an unknown name is UNKNOWN_SETTING (115) naming the closest known
// names; a value that does not parse is BAD_ARGUMENTS (36) naming the setting and the value.
#pragma once

#include <bitset>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/settings/setting_list.h"

namespace granite::core {

enum class SettingType : uint8_t { kBool, kUInt64, kString };

// Describes one declared setting (a row of system.settings without its current value).
struct SettingInfo {
  std::string_view name;
  SettingType type;
  std::string_view default_text;  // the default as system.settings shows it
  std::string_view allowed;       // String only: accepted values separated by '|', "" = any
  std::string_view description;
};

// Returns the type as system.settings names it: "Bool", "UInt64" or "String".
std::string_view SettingTypeName(SettingType type);

namespace settings_internal {

using Bool = bool;
using UInt64 = uint64_t;
using String = std::string;

// Parses `text` as a value of `info`'s type into `*out`; BAD_ARGUMENTS naming the setting.
absl::Status Parse(const SettingInfo& info, std::string_view text, bool* out);
absl::Status Parse(const SettingInfo& info, std::string_view text, uint64_t* out);
absl::Status Parse(const SettingInfo& info, std::string_view text, std::string* out);
std::string Format(bool value);
std::string Format(uint64_t value);
std::string Format(const std::string& value);
// True for the status Unknown() returns.
bool IsUnknownSetting(const absl::Status& status);
// Returns UNKNOWN_SETTING for `name`, suggesting the closest of `infos`' names.
absl::Status Unknown(std::string_view name, std::string_view scope,
                     const std::vector<SettingInfo>& infos);

// One declared setting of `Owner` with the member that holds its value.
template <class Owner>
struct Field {
  SettingInfo info;
  std::variant<bool Owner::*, uint64_t Owner::*, std::string Owner::*> member;
};

}  // namespace settings_internal

// Implements lookup, parsing and change tracking for a struct of setting fields. `Derived`
// provides `static const std::vector<settings_internal::Field<Derived>>& Fields()` and
// `static constexpr std::string_view kScope`.
template <class Derived>
class SettingsBase {
 public:
  // Sets setting `name` from its text form and marks it changed. UNKNOWN_SETTING for a name
  // not declared in this scope, BAD_ARGUMENTS for a value of the wrong form; either leaves the
  // settings unchanged.
  absl::Status Set(std::string_view name, std::string_view value) {
    const std::vector<settings_internal::Field<Derived>>& fields = Derived::Fields();
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].info.name != name) continue;
      absl::Status status = std::visit(
          [&](auto member) {
            return settings_internal::Parse(fields[i].info, value, &(self()->*member));
          },
          fields[i].member);
      if (status.ok()) changed_.set(i);
      return status;
    }
    return settings_internal::Unknown(name, Derived::kScope, Infos());
  }

  // Sets the setting held in `member` to `value` and marks it changed (for code that decides a
  // setting itself, e.g. per worker).
  template <class T>
  void SetValue(T Derived::*member, T value) {
    changed_.set(IndexOf(member));
    self()->*member = std::move(value);
  }

  // Applies every (name, value) pair of `changes` in order; stops at the first error.
  template <class Map>
  absl::Status Apply(const Map& changes) {
    for (const auto& [name, value] : changes) {
      absl::Status status = Set(name, value);
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }

  // Applies the pairs of `changes` whose names this scope declares, skipping the others (what a
  // stored schema written by another version may hold); stops at the first bad value.
  template <class Map>
  absl::Status ApplyKnown(const Map& changes) {
    for (const auto& [name, value] : changes) {
      absl::Status status = Set(name, value);
      if (!status.ok() && !settings_internal::IsUnknownSetting(status)) return status;
    }
    return absl::OkStatus();
  }

  // Returns settings built from `changes` over the defaults.
  template <class Map>
  static absl::StatusOr<Derived> FromMap(const Map& changes) {
    Derived settings;
    absl::Status status = settings.Apply(changes);
    if (!status.ok()) return status;
    return settings;
  }

  // True if the setting held in `member` was set (even to its default).
  template <class T>
  bool IsChanged(T Derived::*member) const {
    return changed_.test(IndexOf(member));
  }

  // Returns the declared name of the setting held in `member`.
  template <class T>
  static std::string_view NameOf(T Derived::*member) {
    return Derived::Fields()[IndexOf(member)].info.name;
  }

  // Returns the changed settings as (name, value text): what goes over the wire.
  std::map<std::string, std::string> Changes() const {
    std::map<std::string, std::string> changes;
    const std::vector<settings_internal::Field<Derived>>& fields = Derived::Fields();
    for (size_t i = 0; i < fields.size(); ++i) {
      if (changed_.test(i)) changes.emplace(std::string(fields[i].info.name), ValueText(i));
    }
    return changes;
  }

  // Returns the current value of the i-th declared setting as text.
  std::string ValueText(size_t i) const {
    return std::visit(
        [&](auto member) { return settings_internal::Format(self()->*member); },
        Derived::Fields()[i].member);
  }
  bool changed(size_t i) const { return changed_.test(i); }

  // The declarations of this scope, in list order.
  static const std::vector<SettingInfo>& Infos() {
    static const std::vector<SettingInfo> infos = [] {
      std::vector<SettingInfo> out;
      for (const auto& field : Derived::Fields()) out.push_back(field.info);
      return out;
    }();
    return infos;
  }

 private:
  // Returns the list position of the setting held in `member`. Every field is in the list (both
  // come from the same macro), so the search always finds it.
  template <class T>
  static size_t IndexOf(T Derived::*member) {
    const std::vector<settings_internal::Field<Derived>>& fields = Derived::Fields();
    for (size_t i = 0; i < fields.size(); ++i) {
      const auto* held = std::get_if<T Derived::*>(&fields[i].member);
      if (held != nullptr && *held == member) return i;
    }
    return 0;  // not reached
  }

  const Derived* self() const { return static_cast<const Derived*>(this); }
  Derived* self() { return static_cast<Derived*>(this); }

  std::bitset<128> changed_;
};

#define GRANITE_SETTING_MEMBER(TYPE, NAME, DEFAULT, ALLOWED, DESCRIPTION) \
  settings_internal::TYPE NAME = DEFAULT;

// The query settings of GRANITE_QUERY_SETTINGS, one field each.
class Settings : public SettingsBase<Settings> {
 public:
  static constexpr std::string_view kScope = "query";
  static const std::vector<settings_internal::Field<Settings>>& Fields();

  GRANITE_QUERY_SETTINGS(GRANITE_SETTING_MEMBER)
};

// The table settings of GRANITE_TABLE_SETTINGS, one field each.
class TableSettings : public SettingsBase<TableSettings> {
 public:
  static constexpr std::string_view kScope = "table";
  static const std::vector<settings_internal::Field<TableSettings>>& Fields();

  GRANITE_TABLE_SETTINGS(GRANITE_SETTING_MEMBER)
};

#undef GRANITE_SETTING_MEMBER

#define GRANITE_SETTING_COUNT(...) +1
static_assert(0 GRANITE_QUERY_SETTINGS(GRANITE_SETTING_COUNT) <= 128, "SettingsBase tracks 128");
static_assert(0 GRANITE_TABLE_SETTINGS(GRANITE_SETTING_COUNT) <= 128, "SettingsBase tracks 128");
#undef GRANITE_SETTING_COUNT

}  // namespace granite::core
