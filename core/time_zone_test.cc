#include "core/time_zone.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "absl/time/time.h"
#include "core/error.h"
#include "core/time_zone_names.h"
#include "core/types.h"

namespace granite::core {
namespace {

TEST(TimeZoneTest, IdsAreStable) {
  // Ids are stored in part files and travel between processes: these must never change.
  EXPECT_EQ(*TimeZoneId("UTC"), 1u);
  EXPECT_EQ(*TimeZoneId("America/New_York"), 172u);
  EXPECT_EQ(*TimeZoneId("Asia/Kolkata"), 286u);
  EXPECT_EQ(*TimeZoneId("Europe/Berlin"), 435u);
  EXPECT_EQ(*TimeZoneId("Zulu"), 597u);
  EXPECT_EQ(TimeZoneName(435), "Europe/Berlin");
  EXPECT_EQ(TimeZoneName(kNoTimeZone), "");
}

TEST(TimeZoneTest, TableHoldsUniqueLoadableNames) {
  ASSERT_LE(kTimeZoneNameCount, kMaxTimeZoneId + 1);
  std::set<std::string> seen;
  for (size_t id = 1; id < kTimeZoneNameCount; ++id) {
    const std::string name(kTimeZoneNames[id]);
    EXPECT_TRUE(seen.insert(name).second) << name;
    absl::StatusOr<uint32_t> loaded = TimeZoneId(name);
    ASSERT_TRUE(loaded.ok()) << name << ": " << loaded.status();
    EXPECT_EQ(*loaded, id);
  }
}

TEST(TimeZoneTest, UnknownZoneIsBadArguments) {
  for (const char* name : {"No/Such", "europe/berlin", "", "../etc/passwd"}) {
    absl::StatusOr<uint32_t> id = TimeZoneId(name);
    ASSERT_FALSE(id.ok()) << name;
    EXPECT_EQ(CodeOf(id.status()), ErrorCode::kBadArguments);
    EXPECT_EQ(id.status().message(), std::string("Cannot load time zone ") + name);
  }
}

TEST(TimeZoneTest, ConvertsFixedOffsets) {
  const TimeZone& kolkata = TimeZone::Get(*TimeZoneId("Asia/Kolkata"));
  EXPECT_FALSE(kolkata.IsUtc());
  EXPECT_EQ(kolkata.OffsetAt(1710052200), 19800);
  EXPECT_EQ(kolkata.ToLocal(1710052200), 1710072000);  // 2024-03-10 12:00:00 local
  EXPECT_EQ(kolkata.ToUtc(1710072000), 1710052200);
  EXPECT_TRUE(TimeZone::Get(*TimeZoneId("Etc/UTC")).IsUtc());
  EXPECT_TRUE(TimeZone::Get(kNoTimeZone).IsUtc());
  EXPECT_EQ(TimeZone::Get(kUtcTimeZone).ToUtc(42), 42);
}

TEST(TimeZoneTest, ResolvesGapsAndRepeatedTimesAsClickHouse) {
  const TimeZone& berlin = TimeZone::Get(*TimeZoneId("Europe/Berlin"));
  // 2024-03-31 02:30 does not exist: read with the offset after the transition (+02:00).
  EXPECT_EQ(berlin.ToUtc(1711852200), 1711845000);
  // 2024-10-27 02:30 happens twice: the first occurrence (+02:00).
  EXPECT_EQ(berlin.ToUtc(1729996200), 1729989000);
  // The start of the hour of the second 02:30 (+01:00) stays in the second occurrence.
  EXPECT_EQ(berlin.TruncatedToUtc(1729992600, 1729994400), 1729990800);
  EXPECT_EQ(berlin.TruncatedToUtc(1729989000, 1729994400), 1729987200);
  // The start of that day is before the transition: its own offset (+02:00).
  EXPECT_EQ(berlin.TruncatedToUtc(1729992600, 1729987200), 1729980000);
}

TEST(TimeZoneTest, ReadsOffsetsOfFarAndEarlyDates) {
  const TimeZone& new_york = TimeZone::Get(*TimeZoneId("America/New_York"));
  EXPECT_EQ(new_york.OffsetAt(-2208970800), -18000);  // 1900-01-01: EST
  EXPECT_EQ(new_york.OffsetAt(10413809999), -18000);   // 2299-12-31: rules carried forward
  EXPECT_EQ(new_york.OffsetAt(1720000000), -14400);    // July 2024: EDT
}

TEST(TimeZoneTest, OffsetTableAgreesWithAbseil) {
  // OffsetAt reads a table of transitions built once per zone; abseil is the reference.
  for (const char* name : {"Europe/Berlin", "America/New_York", "Asia/Kolkata",
                           "Australia/Lord_Howe", "Asia/Kathmandu", "America/Sao_Paulo",
                           "Pacific/Kiritimati", "Africa/Casablanca"}) {
    SCOPED_TRACE(name);
    const TimeZone& zone = TimeZone::Get(*TimeZoneId(name));
    absl::TimeZone reference;
    ASSERT_TRUE(absl::LoadTimeZone(name, &reference));
    // Every 7 hours and 13 seconds from 1890 to 2310 (past both ends of the table).
    for (int64_t t = -2524521600; t < 10729324800; t += 7 * 3600 + 13) {
      ASSERT_EQ(zone.OffsetAt(t), reference.At(absl::FromUnixSeconds(t)).offset) << t;
    }
  }
}

TEST(TimeZoneTest, TypesCarryZones) {
  const uint32_t berlin = *TimeZoneId("Europe/Berlin");
  const TypeId date_time = *ParseType("DateTime('Europe/Berlin')");
  EXPECT_TRUE(IsDateTime(date_time));
  EXPECT_EQ(TimeZoneOf(date_time), berlin);
  EXPECT_EQ(RemoveTimeZone(date_time), TypeId::kDateTime);
  EXPECT_EQ(TypeName(date_time), "DateTime('Europe/Berlin')");
  EXPECT_TRUE(IsUnsignedInteger(date_time));
  EXPECT_TRUE(IsDateOrDateTime(date_time));
  EXPECT_EQ(ValueSize(date_time), 4u);

  const TypeId precise = *ParseType("Nullable(DateTime64(6, 'Zulu'))");
  EXPECT_TRUE(IsNullable(precise));
  EXPECT_EQ(PrecisionOf(RemoveNullable(precise)), 6);
  EXPECT_EQ(TimeZoneOf(precise), 597u);  // above 255: the high bits 28..31 hold the rest
  EXPECT_EQ(TypeName(precise), "Nullable(DateTime64(6, 'Zulu'))");
  EXPECT_EQ(*ParseType(TypeName(precise)), precise);

  EXPECT_EQ(*ParseType("DateTime()"), TypeId::kDateTime);
  EXPECT_EQ(*ParseType("DateTime64(3, 'UTC')"), MakeDateTime64(3, kUtcTimeZone));
  absl::StatusOr<TypeId> bad = ParseType("DateTime('Europe/Nowhere')");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(CodeOf(bad.status()), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(ParseType("DateTime(Europe/Berlin)").status()),
            ErrorCode::kIllegalTypeOfArgument);
}

TEST(TimeZoneTest, TypeBytesRoundTripAndKeepOldForms) {
  for (const char* text : {"DateTime('Asia/Kolkata')", "Nullable(DateTime('America/New_York'))",
                           "Array(DateTime64(3, 'Zulu'))", "DateTime64(9, 'Asia/Kolkata')",
                           "Array(Nullable(DateTime('UTC')))", "DateTime", "DateTime64(3, 'UTC')"}) {
    const TypeId type = *ParseType(text);
    std::string bytes;
    AppendTypeBytes(type, &bytes);
    std::string_view view = bytes;
    TypeId read;
    ASSERT_TRUE(ReadTypeBytes(&view, &read)) << text;
    EXPECT_EQ(read, type) << text;
    EXPECT_TRUE(view.empty()) << text;
    EXPECT_TRUE(IsValidType(static_cast<uint32_t>(type))) << text;
  }
  // Forms written before zones existed read as they did.
  std::string plain;
  AppendTypeBytes(TypeId::kDateTime, &plain);
  EXPECT_EQ(plain, std::string(1, '\x0c'));
  std::string utc64;
  AppendTypeBytes(MakeDateTime64(3, kUtcTimeZone), &utc64);
  EXPECT_EQ(utc64, std::string("\x13\x03\x01", 3));
  // A zone id past the table is no type.
  EXPECT_FALSE(IsValidType(static_cast<uint32_t>(WithTimeZone(TypeId::kDateTime, 4000))));
  std::string_view unknown("\x42\xa0\x0f\x0c", 4);
  TypeId read;
  EXPECT_FALSE(ReadTypeBytes(&unknown, &read));
}

}  // namespace
}  // namespace granite::core
