// CODEC(...) parsing: the normalized text ClickHouse prints, and its validation errors with
// ClickHouse's codes (checked against chdb 4.4).
#include "core/codec_spec.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace granite::core {
namespace {

std::string Normalized(std::string_view text, TypeId type) {
  absl::StatusOr<CodecSpec> spec = ParseCodecSpec(text, type, "c");
  return spec.ok() ? spec->ToString() : std::string(spec.status().message());
}

ErrorCode CodeFor(std::string_view text, TypeId type) {
  return CodeOf(ParseCodecSpec(text, type, "c").status());
}

TEST(CodecSpecTest, PrintsAsClickHouse) {
  EXPECT_EQ(Normalized("Delta, ZSTD", TypeId::kUInt64), "Delta(8), ZSTD(1)");
  EXPECT_EQ(Normalized("DoubleDelta,LZ4", TypeId::kInt32), "DoubleDelta, LZ4");
  EXPECT_EQ(Normalized("Gorilla, ZSTD(3)", TypeId::kFloat64), "Gorilla(8), ZSTD(3)");
  EXPECT_EQ(Normalized("Gorilla", TypeId::kFloat32), "Gorilla(4)");
  EXPECT_EQ(Normalized("T64, LZ4HC", TypeId::kUInt32), "T64, LZ4HC(0)");
  EXPECT_EQ(Normalized("LZ4HC(5)", TypeId::kString), "LZ4HC(5)");
  EXPECT_EQ(Normalized("Delta(2), ZSTD(1)", MakeNullable(TypeId::kUInt16)), "Delta(2), ZSTD(1)");
  EXPECT_EQ(Normalized(" NONE ", TypeId::kString), "NONE");
  EXPECT_EQ(Normalized("DoubleDelta(8)", TypeId::kUInt64), "DoubleDelta");
  EXPECT_EQ(Normalized("Delta, Delta, LZ4", TypeId::kUInt64), "Delta(8), Delta(8), LZ4");
  EXPECT_EQ(Normalized("Delta, LZ4", MakeDecimal(10, 2)), "Delta(8), LZ4");
  EXPECT_EQ(Normalized("T64, ZSTD", TypeId::kDateTime), "T64, ZSTD(1)");
  EXPECT_EQ(Normalized("ZSTD(-1)", TypeId::kUInt64), "ZSTD(-1)");
  // The printed form parses back to itself.
  EXPECT_EQ(Normalized("Delta(8), ZSTD(1)", TypeId::kUInt64), "Delta(8), ZSTD(1)");
}

TEST(CodecSpecTest, RejectsAsClickHouse) {
  EXPECT_EQ(CodeFor("Foo", TypeId::kUInt64), ErrorCode::kUnknownCodec);
  EXPECT_EQ(CodeFor("zstd", TypeId::kUInt64), ErrorCode::kUnknownCodec);
  EXPECT_EQ(CodeFor("ZSTD(23)", TypeId::kUInt64), ErrorCode::kIllegalCodecParameter);
  EXPECT_EQ(CodeFor("Delta(3), LZ4", TypeId::kUInt64), ErrorCode::kIllegalCodecParameter);
  EXPECT_EQ(CodeFor("LZ4(1)", TypeId::kUInt64), ErrorCode::kDataTypeCannotHaveArguments);
  EXPECT_EQ(CodeFor("Delta, ZSTD", TypeId::kString), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeFor("DoubleDelta, LZ4", TypeId::kString), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeFor("Gorilla, LZ4", TypeId::kString), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeFor("T64, LZ4", TypeId::kString), ErrorCode::kIllegalSyntaxForCodecType);
  EXPECT_EQ(CodeFor("T64, LZ4", TypeId::kFloat64), ErrorCode::kIllegalSyntaxForCodecType);
  EXPECT_EQ(CodeFor("Delta, LZ4", MakeDecimal(30, 2)), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeFor("Delta", TypeId::kUInt64), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeFor("ZSTD, Delta", TypeId::kUInt64), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeFor("LZ4, ZSTD", TypeId::kUInt64), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeFor("NONE, LZ4", TypeId::kUInt64), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeFor("Gorilla, LZ4", TypeId::kUInt64), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeFor("", TypeId::kUInt64), ErrorCode::kSyntaxError);
  EXPECT_EQ(CodeFor("ZSTD(", TypeId::kUInt64), ErrorCode::kSyntaxError);
  EXPECT_EQ(CodeFor("ZSTD(1) LZ4", TypeId::kUInt64), ErrorCode::kSyntaxError);
  // Messages name the value and the column.
  EXPECT_EQ(Normalized("ZSTD(23)", TypeId::kUInt64),
            "ZSTD codec can't have level more than 22, given 23 (column c)");
  EXPECT_EQ(Normalized("Delta, ZSTD", TypeId::kString),
            "Codec Delta is not applicable for String because the data type is not of fixed size "
            "(column c)");
}

}  // namespace
}  // namespace granite::core
