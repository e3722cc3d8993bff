#include "core/settings/settings.h"

#include <set>

#include "core/error.h"
#include "gtest/gtest.h"

namespace granite::core {
namespace {

TEST(SettingsTest, DefaultsComeFromTheList) {
  Settings settings;
  EXPECT_TRUE(settings.use_pruning);
  EXPECT_EQ(settings.late_materialization_max_limit, 1000u);
  EXPECT_EQ(settings.group_by_worker_merge, "auto");
  EXPECT_TRUE(settings.Changes().empty());
  EXPECT_EQ(TableSettings().index_granularity, 8192u);
}

TEST(SettingsTest, BooleansAcceptClickHouseSpellings) {
  for (const char* off : {"0", "false", "FALSE", "False", " 0 "}) {
    Settings settings;
    ASSERT_TRUE(settings.Set("use_pruning", off).ok()) << off;
    EXPECT_FALSE(settings.use_pruning) << off;
  }
  for (const char* on : {"1", "true", "TRUE"}) {
    Settings settings;
    settings.use_pruning = false;
    ASSERT_TRUE(settings.Set("use_pruning", on).ok()) << on;
    EXPECT_TRUE(settings.use_pruning) << on;
  }
}

TEST(SettingsTest, BadValueIsBadArgumentsNamingSettingAndValue) {
  Settings settings;
  absl::Status status = settings.Set("use_pruning", "maybe");
  EXPECT_EQ(CodeOf(status), ErrorCode::kBadArguments);
  EXPECT_NE(status.message().find("use_pruning"), std::string_view::npos) << status;
  EXPECT_NE(status.message().find("'maybe'"), std::string_view::npos) << status;
  EXPECT_TRUE(settings.use_pruning);  // unchanged
  EXPECT_FALSE(settings.IsChanged(&Settings::use_pruning));

  EXPECT_EQ(CodeOf(settings.Set("queue_max_wait_ms", "-5")), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(settings.Set("queue_max_wait_ms", "12x")), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(settings.Set("network_compression_method", "zstd")),
            ErrorCode::kBadArguments);
  EXPECT_EQ(settings.network_compression_method, "lz4");
}

TEST(SettingsTest, UnknownNameSuggestsTheClosest) {
  Settings settings;
  absl::Status status = settings.Set("use_prunning", "0");
  EXPECT_EQ(CodeOf(status), ErrorCode::kUnknownSetting);
  EXPECT_NE(status.message().find("'use_pruning'"), std::string_view::npos) << status;
  status = settings.Set("completely_unrelated_thing", "0");
  EXPECT_EQ(CodeOf(status), ErrorCode::kUnknownSetting);
  EXPECT_NE(status.message().find("completely_unrelated_thing"), std::string_view::npos);
  // A table setting is not a query setting, and the other way round.
  EXPECT_EQ(CodeOf(settings.Set("index_granularity", "10")), ErrorCode::kUnknownSetting);
  TableSettings table;
  EXPECT_EQ(CodeOf(table.Set("use_pruning", "0")), ErrorCode::kUnknownSetting);
  // A transposition, a letter missing and one too many each count as one edit.
  for (const char* typo : {"use_purning", "use_pruing", "use_prunningg"}) {
    status = settings.Set(typo, "0");
    EXPECT_NE(status.message().find("Maybe you meant ['use_pruning'"), std::string_view::npos)
        << typo << ": " << status;
  }
  // A name far longer than any setting is no setting's typo (and costs no edit-distance table).
  status = settings.Set(std::string(1 << 20, 'x'), "0");
  EXPECT_EQ(CodeOf(status), ErrorCode::kUnknownSetting);
  EXPECT_EQ(status.message().find("Maybe you meant"), std::string_view::npos);
}

TEST(SettingsTest, ChangesRoundTripThroughTheWireForm) {
  Settings settings;
  ASSERT_TRUE(settings.Set("use_pruning", "false").ok());
  ASSERT_TRUE(settings.Set("group_by_worker_merge", "ALWAYS").ok());
  ASSERT_TRUE(settings.Set("late_materialization_max_limit", "1000").ok());  // = default
  std::map<std::string, std::string> changes = settings.Changes();
  EXPECT_EQ(changes, (std::map<std::string, std::string>{
                         {"group_by_worker_merge", "always"},
                         {"late_materialization_max_limit", "1000"},
                         {"use_pruning", "0"}}));
  absl::StatusOr<Settings> back = Settings::FromMap(changes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_FALSE(back->use_pruning);
  EXPECT_EQ(back->group_by_worker_merge, "always");
  EXPECT_TRUE(back->IsChanged(&Settings::late_materialization_max_limit));
  EXPECT_FALSE(back->IsChanged(&Settings::use_value_ranges));
  EXPECT_EQ(back->Changes(), changes);
}

TEST(SettingsTest, EveryDeclarationIsWellFormed) {
  std::set<std::string_view> names;
  for (const SettingInfo& info : Settings::Infos()) {
    EXPECT_TRUE(names.insert(info.name).second) << "declared twice: " << info.name;
    EXPECT_FALSE(info.description.empty()) << info.name;
  }
  for (const SettingInfo& info : TableSettings::Infos()) {
    EXPECT_TRUE(names.insert(info.name).second) << "declared twice: " << info.name;
  }
  // Each default text parses back to the default value.
  Settings defaults;
  for (size_t i = 0; i < Settings::Infos().size(); ++i) {
    Settings parsed;
    ASSERT_TRUE(parsed.Set(Settings::Infos()[i].name, Settings::Infos()[i].default_text).ok());
    EXPECT_EQ(parsed.ValueText(i), defaults.ValueText(i)) << Settings::Infos()[i].name;
  }
}

}  // namespace
}  // namespace granite::core
