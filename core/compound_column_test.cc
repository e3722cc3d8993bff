#include "core/compound_column.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

CompoundLayout Layout(std::string_view text) {
  absl::StatusOr<std::optional<CompoundLayout>> layout = ParseCompoundType(text);
  EXPECT_TRUE(layout.ok()) << layout.status();
  EXPECT_TRUE(layout.ok() && layout->has_value()) << text;
  return **layout;
}

std::vector<std::string> Texts(const Column& column) {
  std::vector<std::string> out;
  for (size_t row = 0; row < column.size(); ++row) {
    std::string text;
    AppendValueText(column, row, &text);
    out.push_back(text);
  }
  return out;
}

TEST(CompoundColumnTest, ParsesTupleAndMapDeclarations) {
  CompoundLayout named = Layout("tuple( a UInt8 , `b c` LowCardinality(String) )");
  EXPECT_FALSE(named.map);
  EXPECT_EQ(named.type_name, "Tuple(a UInt8, b c String)");
  EXPECT_EQ(named.pretty_name, "Tuple(\n    a UInt8,\n    b c String)");
  EXPECT_EQ(named.suffixes, (std::vector<std::string>{"a", "b c"}));
  EXPECT_EQ(named.types, (std::vector<TypeId>{TypeId::kUInt8, TypeId::kString}));

  CompoundLayout unnamed = Layout("Tuple(Nullable(String), DateTime('UTC'), Array(Int8))");
  EXPECT_TRUE(unnamed.element_names.empty());
  EXPECT_EQ(unnamed.suffixes, (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(unnamed.type_name, "Tuple(Nullable(String), DateTime('UTC'), Array(Int8))");

  CompoundLayout map = Layout("Map(String, Array(Decimal(10, 2)))");
  EXPECT_TRUE(map.map);
  EXPECT_EQ(map.suffixes, (std::vector<std::string>{"keys", "values"}));
  EXPECT_EQ(map.types[0], MakeArray(TypeId::kString));
  EXPECT_EQ(map.types[1], MakeArray(MakeArray(MakeDecimal(10, 2))));
  EXPECT_EQ(map.type_name, "Map(String, Array(Decimal(10, 2)))");

  absl::StatusOr<std::optional<CompoundLayout>> other = ParseCompoundType("Array(UInt8)");
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->has_value());
}

TEST(CompoundColumnTest, RefusesBadDeclarationsWithClickHouseCodes) {
  EXPECT_EQ(CodeOf(ParseCompoundType("Map(String)").status()),
            ErrorCode::kNumberOfArgumentsDoesntMatch);
  EXPECT_EQ(CodeOf(ParseCompoundType("Map(Nullable(String), UInt8)").status()),
            ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(ParseCompoundType("Map(Float64, UInt8)").status()), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(ParseCompoundType("Tuple(a UInt8, a String)").status()),
            ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(ParseCompoundType("Tuple(a UInt8, String)").status()),
            ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(ParseCompoundType("Tuple(a Nope)").status()), ErrorCode::kUnknownType);
  EXPECT_EQ(CodeOf(ParseCompoundType("Tuple()").status()), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(ParseCompoundType("Map(String, Tuple(UInt8))").status()),
            ErrorCode::kNotImplemented);
  EXPECT_EQ(CodeOf(ParseCompoundType("Tuple(e Enum8('a' = 1))").status()),
            ErrorCode::kNotImplemented);
}

TEST(CompoundColumnTest, ParsesValueTextInEveryQuoting) {
  const CompoundLayout tuple = Layout("Tuple(a UInt8, b Nullable(String))");
  Column text(TypeId::kString);
  for (const char* value : {"(1,'x')", " [2, \"y\"] ", "{\"b\": \"z\", \"a\": 3}", "(4,NULL)",
                            "", "(5,'a,b)''c')"}) {
    text.AppendString(value);
  }
  absl::StatusOr<std::vector<ColumnPtr>> parsed = ParseCompoundColumn(text, tuple, "t");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(Texts(*(*parsed)[0]), (std::vector<std::string>{"1", "2", "3", "4", "0", "5"}));
  EXPECT_EQ(Texts(*(*parsed)[1]), (std::vector<std::string>{"x", "y", "z", "", "", "a,b)'c"}));
  EXPECT_TRUE((*parsed)[1]->IsNullAt(3));
  EXPECT_TRUE((*parsed)[1]->IsNullAt(4));
  EXPECT_FALSE((*parsed)[1]->IsNullAt(5));

  const CompoundLayout map = Layout("Map(String, Array(UInt16))");
  Column maps(TypeId::kString);
  for (const char* value : {"{'a':[1,2],'b':[]}", "{}", "{\"k\": [3]}", ""}) maps.AppendString(value);
  parsed = ParseCompoundColumn(maps, map, "m");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(Texts(*(*parsed)[0]), (std::vector<std::string>{"['a','b']", "[]", "['k']", "[]"}));
  EXPECT_EQ(Texts(*(*parsed)[1]),
            (std::vector<std::string>{"[[1,2],[]]", "[]", "[[3]]", "[]"}));
}

TEST(CompoundColumnTest, MalformedTextFailsAndLeavesTheColumnsAsTheyWere) {
  const CompoundLayout tuple = Layout("Tuple(Array(UInt8), UInt8)");
  Column first(MakeArray(TypeId::kUInt8));
  Column second(TypeId::kUInt8);
  ASSERT_TRUE(ParseCompoundText("([1],2)", tuple, {&first, &second}).ok());
  // The array parses, then the second element fails: both columns keep their one row.
  const absl::Status status = ParseCompoundText("([3,4],300)", tuple, {&first, &second});
  EXPECT_EQ(CodeOf(status), ErrorCode::kValueIsOutOfRangeOfDataType) << status;
  EXPECT_EQ(Texts(first), (std::vector<std::string>{"[1]"}));
  EXPECT_EQ(first.Nested().size(), 1u);
  EXPECT_EQ(Texts(second), (std::vector<std::string>{"2"}));
  for (const char* bad : {"(1)", "1,2", "([1],2", "{\"a\":1}", "([1],2,3)"}) {
    EXPECT_EQ(CodeOf(ParseCompoundText(bad, tuple, {&first, &second})),
              ErrorCode::kCannotParseInputAssertionFailed)
        << bad;
  }
  const CompoundLayout map = Layout("Map(String, UInt8)");
  Column keys(MakeArray(TypeId::kString));
  Column values(MakeArray(TypeId::kUInt8));
  for (const char* bad : {"{'a'}", "{'a':1", "['a',1]", "{'a':1:2}"}) {
    EXPECT_EQ(CodeOf(ParseCompoundText(bad, map, {&keys, &values})),
              ErrorCode::kCannotParseInputAssertionFailed)
        << bad;
  }
  // The second value fails after the first entry went in: nothing stays.
  EXPECT_FALSE(ParseCompoundText("{'a':1,'b':x}", map, {&keys, &values}).ok());
  EXPECT_EQ(keys.size(), 0u);
  EXPECT_EQ(keys.Nested().size(), 0u);
  EXPECT_EQ(values.Nested().size(), 0u);
  // A whole column's error names the row and the column.
  Column text(TypeId::kString);
  text.AppendString("{'a':1}");
  text.AppendString("{'a'}");
  absl::StatusOr<std::vector<ColumnPtr>> parsed = ParseCompoundColumn(text, map, "m");
  EXPECT_EQ(CodeOf(parsed.status()), ErrorCode::kCannotParseInputAssertionFailed);
  EXPECT_NE(parsed.status().message().find("row 2, column m"), std::string_view::npos)
      << parsed.status();
}

}  // namespace
}  // namespace granite::core
