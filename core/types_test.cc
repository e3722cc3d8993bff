#include "core/types.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/time_zone.h"

namespace granite::core {
namespace {

TEST(TypesTest, ParsesClickHouseAndSqlSpellings) {
  EXPECT_EQ(*ParseType("UInt64"), TypeId::kUInt64);
  EXPECT_EQ(*ParseType("BIGINT"), TypeId::kInt64);
  EXPECT_EQ(*ParseType("INTEGER"), TypeId::kInt32);
  EXPECT_EQ(*ParseType("SMALLINT"), TypeId::kInt16);
  EXPECT_EQ(*ParseType("VARCHAR(255)"), TypeId::kString);
  EXPECT_EQ(*ParseType("TEXT"), TypeId::kString);
  EXPECT_EQ(*ParseType("CHAR"), TypeId::kString);
  EXPECT_EQ(*ParseType("TIMESTAMP"), TypeId::kDateTime);
  EXPECT_EQ(*ParseType("Date"), TypeId::kDate);
  EXPECT_FALSE(ParseType("Blob").ok());
}

TEST(TypesTest, NamesRoundTrip) {
  for (int i = 0; i < kTypeCount; ++i) {
    TypeId type = static_cast<TypeId>(i);
    EXPECT_EQ(*ParseType(TypeName(type)), type);
  }
}

TEST(TypesTest, PacksDecimalPrecisionAndScale) {
  const TypeId d = MakeDecimal(15, 2);
  EXPECT_EQ(BaseOf(d), TypeId::kDecimal64);
  EXPECT_EQ(PrecisionOf(d), 15);
  EXPECT_EQ(ScaleOf(d), 2);
  EXPECT_TRUE(IsDecimal(d));
  EXPECT_FALSE(IsNumeric(d));
  EXPECT_EQ(BaseOf(MakeDecimal(9, 9)), TypeId::kDecimal32);
  EXPECT_EQ(BaseOf(MakeDecimal(19, 0)), TypeId::kDecimal128);
  EXPECT_EQ(ValueSize(MakeDecimal(38, 10)), 16u);
  EXPECT_NE(MakeDecimal(15, 2), MakeDecimal(15, 4));
  // Parameterless ids keep their values: they are on disk and on the wire.
  EXPECT_EQ(BaseOf(TypeId::kDateTime), TypeId::kDateTime);
  EXPECT_EQ(PrecisionOf(TypeId::kInt64), 0);
}

TEST(TypesTest, ParsesAndNamesDecimals) {
  EXPECT_EQ(*ParseType("Decimal(15,2)"), MakeDecimal(15, 2));
  EXPECT_EQ(*ParseType("Decimal(15, 2)"), MakeDecimal(15, 2));
  EXPECT_EQ(*ParseType("DECIMAL(15,2)"), MakeDecimal(15, 2));
  EXPECT_EQ(*ParseType("numeric(5)"), MakeDecimal(5, 0));
  EXPECT_EQ(*ParseType("Decimal"), MakeDecimal(10, 0));
  EXPECT_EQ(*ParseType("Decimal32(3)"), MakeDecimal(9, 3));
  EXPECT_EQ(*ParseType("Decimal64(4)"), MakeDecimal(18, 4));
  EXPECT_EQ(*ParseType("Decimal128(0)"), MakeDecimal(38, 0));
  EXPECT_EQ(TypeName(MakeDecimal(15, 2)), "Decimal(15, 2)");
  EXPECT_EQ(TypeName(MakeDecimal(38, 38)), "Decimal(38, 38)");
  for (int p = 1; p <= kMaxDecimalPrecision; ++p) {
    for (int s = 0; s <= p; ++s) EXPECT_EQ(*ParseType(TypeName(MakeDecimal(p, s))), MakeDecimal(p, s));
  }
  EXPECT_EQ(CodeOf(ParseType("Decimal(39, 2)").status()), ErrorCode::kArgumentOutOfBound);
  EXPECT_EQ(CodeOf(ParseType("Decimal(0, 0)").status()), ErrorCode::kArgumentOutOfBound);
  EXPECT_EQ(CodeOf(ParseType("Decimal(5, 6)").status()), ErrorCode::kArgumentOutOfBound);
  EXPECT_EQ(CodeOf(ParseType("Decimal32(10)").status()), ErrorCode::kArgumentOutOfBound);
  EXPECT_EQ(CodeOf(ParseType("Decimal32").status()), ErrorCode::kNumberOfArgumentsDoesntMatch);
  EXPECT_FALSE(ParseType("Decimal(1,2,3)").ok());
  EXPECT_FALSE(ParseType("Decimal(a)").ok());
}

TEST(TypesTest, TypeBytesRoundTripAndRejectBadIds) {
  for (TypeId type : {TypeId::kUInt8, TypeId::kString, TypeId::kDateTime, MakeDecimal(15, 2),
                      MakeDecimal(38, 38), MakeDecimal(1, 0)}) {
    std::string bytes;
    AppendTypeBytes(type, &bytes);
    EXPECT_EQ(bytes.size(), IsDecimal(type) ? 3u : 1u);
    bytes.push_back('x');
    std::string_view view = bytes;
    TypeId read;
    ASSERT_TRUE(ReadTypeBytes(&view, &read));
    EXPECT_EQ(read, type);
    EXPECT_EQ(view, "x");
  }
  std::string_view truncated("\x0e\x0f", 2);  // Decimal64 without its scale byte
  TypeId read;
  EXPECT_FALSE(ReadTypeBytes(&truncated, &read));
  std::string_view wrong_width("\x0d\x0f\x02", 3);  // Decimal32 base with precision 15
  EXPECT_FALSE(ReadTypeBytes(&wrong_width, &read));
  EXPECT_FALSE(IsValidType(16));
  EXPECT_FALSE(IsValidType(static_cast<uint32_t>(TypeId::kDecimal64)));  // no precision
  EXPECT_TRUE(IsValidType(static_cast<uint32_t>(MakeDecimal(18, 18))));
  // Bit 24 is Nullable; the bits above it are still reserved.
  EXPECT_TRUE(IsValidType(static_cast<uint32_t>(MakeDecimal(18, 2)) | (1u << 24)));
  EXPECT_FALSE(IsValidType(static_cast<uint32_t>(MakeDecimal(18, 2)) | (1u << 28)));
}

TEST(TypesTest, BoolUuidDateTime64AndFixedString) {
  EXPECT_EQ(*ParseType("Bool"), TypeId::kBool);
  EXPECT_EQ(*ParseType("BOOLEAN"), TypeId::kBool);
  EXPECT_EQ(*ParseType("UUID"), TypeId::kUUID);
  EXPECT_EQ(*ParseType("DateTime64"), MakeDateTime64(3));
  EXPECT_EQ(*ParseType("DateTime64(6)"), MakeDateTime64(6));
  EXPECT_EQ(*ParseType("DateTime64(9, 'UTC')"), MakeDateTime64(9, kUtcTimeZone));
  EXPECT_EQ(*ParseType("FixedString(16)"), MakeFixedString(16));
  EXPECT_EQ(*ParseType("Nullable(FixedString(2))"), MakeNullable(MakeFixedString(2)));
  EXPECT_EQ(TypeName(TypeId::kBool), "Bool");
  EXPECT_EQ(TypeName(MakeDateTime64(3)), "DateTime64(3)");
  EXPECT_EQ(TypeName(MakeDateTime64(0, kUtcTimeZone)), "DateTime64(0, 'UTC')");
  EXPECT_EQ(TypeName(MakeNullable(MakeFixedString(7))), "Nullable(FixedString(7))");
  EXPECT_EQ(TypeName(MakeNullable(TypeId::kUUID)), "Nullable(UUID)");
  EXPECT_EQ(ValueSize(TypeId::kUUID), 16u);
  EXPECT_EQ(ValueSize(MakeDateTime64(9)), 8u);
  EXPECT_EQ(FixedStringSizeOf(MakeFixedString(65535)), 65535u);
  EXPECT_TRUE(HasStringLayout(MakeFixedString(1)));
  EXPECT_FALSE(IsString(MakeFixedString(1)));
  EXPECT_EQ(CodeOf(ParseType("DateTime64(10)").status()), ErrorCode::kArgumentOutOfBound);
  EXPECT_EQ(CodeOf(ParseType("DateTime64(3, 'Europe/Nowhere')").status()),
            ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(ParseType("FixedString(0)").status()), ErrorCode::kArgumentOutOfBound);
  EXPECT_EQ(CodeOf(ParseType("FixedString").status()), ErrorCode::kNumberOfArgumentsDoesntMatch);
  for (TypeId type : {TypeId::kBool, TypeId::kUUID, MakeDateTime64(0), MakeDateTime64(9, kUtcTimeZone),
                      MakeFixedString(1), MakeFixedString(300), MakeNullable(MakeFixedString(3))}) {
    EXPECT_EQ(*ParseType(TypeName(type)), type) << TypeName(type);
    std::string bytes;
    AppendTypeBytes(type, &bytes);
    std::string_view view = bytes;
    TypeId read;
    ASSERT_TRUE(ReadTypeBytes(&view, &read));
    EXPECT_EQ(read, type);
    EXPECT_TRUE(view.empty());
  }
  EXPECT_FALSE(IsValidType(static_cast<uint32_t>(TypeId::kFixedString)));  // N = 0
  EXPECT_FALSE(IsValidType(static_cast<uint32_t>(TypeId::kDateTime64) | (10u << 8)));
  EXPECT_FALSE(IsValidType(21));
}

}  // namespace
}  // namespace granite::core
