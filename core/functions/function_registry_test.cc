#include "core/functions/function_registry.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace granite::core {
namespace {

using T = TypeId;

ArgumentInfo Arg(TypeId type) { return {type, std::nullopt}; }
ArgumentInfo Const(TypeId type, Value v) { return {type, std::move(v)}; }

TypeId ResultOf(std::string_view name, std::vector<ArgumentInfo> args) {
  auto resolved = ResolveFunction(name, args);
  EXPECT_TRUE(resolved.ok()) << name << ": " << resolved.status();
  return resolved.ok() ? resolved->result_type : T::kString;
}

ErrorCode ErrorOf(std::string_view name, std::vector<ArgumentInfo> args) {
  auto resolved = ResolveFunction(name, args);
  EXPECT_FALSE(resolved.ok()) << name;
  return CodeOf(resolved.status());
}

TEST(FunctionRegistryTest, UnknownFunction) {
  auto resolved = ResolveFunction("frobnicate", {Arg(T::kUInt8)});
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(CodeOf(resolved.status()), ErrorCode::kUnknownFunction);
  EXPECT_EQ(resolved.status().message(), "Unknown function frobnicate");
  EXPECT_FALSE(IsScalarFunction("frobnicate"));
  EXPECT_FALSE(IsScalarFunction("sum"));
}

TEST(FunctionRegistryTest, CaseSensitivityAndAliases) {
  EXPECT_TRUE(IsScalarFunction("lower"));
  EXPECT_TRUE(IsScalarFunction("LOWER"));
  EXPECT_TRUE(IsScalarFunction("Substring"));
  EXPECT_TRUE(IsScalarFunction("intDiv"));
  EXPECT_FALSE(IsScalarFunction("INTDIV"));  // ClickHouse's own names are case-sensitive
  EXPECT_FALSE(IsScalarFunction("tostartofminute"));
  auto trunc = ResolveFunction("DATE_TRUNC", {Const(T::kString, "minute"), Arg(T::kDateTime)});
  ASSERT_TRUE(trunc.ok()) << trunc.status();
  EXPECT_EQ(trunc->name, "dateTrunc");
  EXPECT_EQ(ResolveFunction("date_trunc", {Const(T::kString, "day"), Arg(T::kDate)})->name,
            "dateTrunc");
  auto replace = ResolveFunction("regexp_replace", {Arg(T::kString), Const(T::kString, "a"),
                                                    Const(T::kString, "b")});
  ASSERT_TRUE(replace.ok());
  EXPECT_EQ(replace->name, "replaceRegexpAll");
  EXPECT_EQ(ResolveFunction("cast", {Arg(T::kUInt8), Const(T::kString, "String")})->name, "CAST");
  EXPECT_EQ(ResolveFunction("IF", {Arg(T::kUInt8), Arg(T::kUInt8), Arg(T::kUInt8)})->name, "if");
  EXPECT_EQ(ResolveFunction("mod", {Arg(T::kUInt8), Arg(T::kUInt8)})->name, "modulo");
}

TEST(FunctionRegistryTest, ArgumentCount) {
  EXPECT_EQ(ErrorOf("plus", {Arg(T::kUInt8)}), ErrorCode::kNumberOfArgumentsDoesntMatch);
  EXPECT_EQ(ErrorOf("substring", {Arg(T::kString)}), ErrorCode::kNumberOfArgumentsDoesntMatch);
  EXPECT_EQ(ErrorOf("multiIf", {Arg(T::kUInt8), Arg(T::kUInt8), Arg(T::kUInt8), Arg(T::kUInt8)}),
            ErrorCode::kNumberOfArgumentsDoesntMatch);
  auto resolved = ResolveFunction("plus", {Arg(T::kUInt8)});
  EXPECT_EQ(resolved.status().message(),
            "Number of arguments for function plus doesn't match: passed 1, should be 2");
  EXPECT_EQ(ResultOf("version", {}), T::kString);
}

TEST(FunctionRegistryTest, IllegalArgumentTypeNamesPositionAndType) {
  auto resolved = ResolveFunction("plus", {Arg(T::kUInt8), Arg(T::kString)});
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(CodeOf(resolved.status()), ErrorCode::kIllegalTypeOfArgument);
  EXPECT_EQ(resolved.status().message(), "Illegal type String of argument 2 of function plus");
  EXPECT_EQ(ErrorOf("length", {Arg(T::kUInt64)}), ErrorCode::kIllegalTypeOfArgument);
  EXPECT_EQ(ErrorOf("toHour", {Arg(T::kDate)}), ErrorCode::kIllegalTypeOfArgument);
  EXPECT_EQ(ErrorOf("multiply", {Arg(T::kDate), Arg(T::kUInt8)}),
            ErrorCode::kIllegalTypeOfArgument);
  EXPECT_EQ(ErrorOf("and", {Arg(T::kUInt8), Arg(T::kString)}), ErrorCode::kIllegalTypeOfArgument);
  EXPECT_EQ(ErrorOf("if", {Arg(T::kUInt8), Arg(T::kString), Arg(T::kUInt8)}),
            ErrorCode::kIllegalTypeOfArgument);
  EXPECT_EQ(ErrorOf("equals", {Arg(T::kString), Arg(T::kUInt8)}),
            ErrorCode::kIllegalTypeOfArgument);
  EXPECT_EQ(ErrorOf("in", {Arg(T::kString), Const(T::kUInt8, uint64_t{1})}),
            ErrorCode::kIllegalTypeOfArgument);
}

TEST(FunctionRegistryTest, ConstantArgumentsRequired) {
  EXPECT_EQ(ErrorOf("like", {Arg(T::kString), Arg(T::kString)}), ErrorCode::kIllegalColumn);
  EXPECT_EQ(ErrorOf("CAST", {Arg(T::kUInt8), Arg(T::kString)}), ErrorCode::kIllegalColumn);
  EXPECT_EQ(ErrorOf("in", {Arg(T::kUInt8), Arg(T::kUInt8)}), ErrorCode::kIllegalColumn);
  EXPECT_EQ(ErrorOf("dateTrunc", {Const(T::kString, "fortnight"), Arg(T::kDate)}),
            ErrorCode::kBadArguments);
  EXPECT_EQ(ErrorOf("CAST", {Arg(T::kUInt8), Const(T::kString, "Blob(10)")}),
            ErrorCode::kUnknownType);
  EXPECT_EQ(ErrorOf("tuple", {Arg(T::kUInt8)}), ErrorCode::kNotImplemented);
}

TEST(FunctionRegistryTest, ArithmeticResultTypes) {
  EXPECT_EQ(ResultOf("plus", {Arg(T::kUInt8), Arg(T::kUInt8)}), T::kUInt16);
  EXPECT_EQ(ResultOf("plus", {Arg(T::kUInt16), Arg(T::kUInt16)}), T::kUInt32);
  EXPECT_EQ(ResultOf("plus", {Arg(T::kUInt32), Arg(T::kUInt32)}), T::kUInt64);
  EXPECT_EQ(ResultOf("plus", {Arg(T::kUInt64), Arg(T::kUInt64)}), T::kUInt64);
  EXPECT_EQ(ResultOf("plus", {Arg(T::kUInt8), Arg(T::kInt8)}), T::kInt16);
  EXPECT_EQ(ResultOf("plus", {Arg(T::kUInt64), Arg(T::kInt64)}), T::kInt64);
  EXPECT_EQ(ResultOf("plus", {Arg(T::kInt32), Arg(T::kFloat32)}), T::kFloat64);
  EXPECT_EQ(ResultOf("multiply", {Arg(T::kInt16), Arg(T::kUInt8)}), T::kInt32);
  EXPECT_EQ(ResultOf("minus", {Arg(T::kUInt8), Arg(T::kUInt8)}), T::kInt16);
  EXPECT_EQ(ResultOf("minus", {Arg(T::kUInt64), Arg(T::kUInt64)}), T::kInt64);
  EXPECT_EQ(ResultOf("divide", {Arg(T::kUInt8), Arg(T::kUInt8)}), T::kFloat64);
  EXPECT_EQ(ResultOf("intDiv", {Arg(T::kUInt32), Arg(T::kUInt8)}), T::kUInt32);
  EXPECT_EQ(ResultOf("intDiv", {Arg(T::kUInt32), Arg(T::kInt8)}), T::kInt32);
  EXPECT_EQ(ResultOf("modulo", {Arg(T::kUInt64), Arg(T::kUInt16)}), T::kUInt16);
  EXPECT_EQ(ResultOf("modulo", {Arg(T::kInt32), Arg(T::kUInt8)}), T::kInt16);
  EXPECT_EQ(ResultOf("modulo", {Arg(T::kInt32), Arg(T::kFloat64)}), T::kFloat64);
  EXPECT_EQ(ResultOf("negate", {Arg(T::kUInt8)}), T::kInt16);
  EXPECT_EQ(ResultOf("negate", {Arg(T::kInt64)}), T::kInt64);
  EXPECT_EQ(ResultOf("abs", {Arg(T::kInt8)}), T::kUInt8);
  EXPECT_EQ(ResultOf("abs", {Arg(T::kFloat32)}), T::kFloat32);
  EXPECT_EQ(ResultOf("plus", {Arg(T::kDate), Arg(T::kUInt8)}), T::kDate);
  EXPECT_EQ(ResultOf("plus", {Arg(T::kInt32), Arg(T::kDate)}), T::kDate);
  EXPECT_EQ(ResultOf("minus", {Arg(T::kDateTime), Arg(T::kUInt16)}), T::kDateTime);
  EXPECT_EQ(ResultOf("minus", {Arg(T::kDate), Arg(T::kDate)}), T::kInt32);
  EXPECT_EQ(ErrorOf("minus", {Arg(T::kUInt8), Arg(T::kDate)}), ErrorCode::kIllegalTypeOfArgument);
  EXPECT_EQ(ErrorOf("plus", {Arg(T::kDate), Arg(T::kDate)}), ErrorCode::kIllegalTypeOfArgument);
}

TEST(FunctionRegistryTest, OtherResultTypes) {
  EXPECT_EQ(ResultOf("equals", {Arg(T::kUInt64), Arg(T::kInt8)}), T::kUInt8);
  EXPECT_EQ(ResultOf("less", {Arg(T::kDate), Const(T::kString, "2013-07-01")}), T::kUInt8);
  EXPECT_EQ(ResultOf("if", {Arg(T::kUInt8), Arg(T::kUInt8), Arg(T::kInt8)}), T::kInt16);
  EXPECT_EQ(ResultOf("if", {Arg(T::kUInt8), Arg(T::kUInt64), Arg(T::kInt8)}), T::kFloat64);
  EXPECT_EQ(ResultOf("if", {Arg(T::kUInt8), Arg(T::kDate), Arg(T::kDateTime)}), T::kDateTime);
  EXPECT_EQ(ResultOf("multiIf", {Arg(T::kUInt8), Arg(T::kUInt16), Arg(T::kUInt8), Arg(T::kUInt32),
                                 Arg(T::kUInt8)}),
            T::kUInt32);
  EXPECT_EQ(ResultOf("caseWithExpression", {Arg(T::kString), Const(T::kString, "a"),
                                            Arg(T::kInt8), Arg(T::kFloat32)}),
            T::kFloat32);
  EXPECT_EQ(ResultOf("CAST", {Arg(T::kString), Const(T::kString, "BIGINT")}), T::kInt64);
  EXPECT_EQ(ResultOf("toYYYYMM", {Arg(T::kDate)}), T::kUInt32);
  EXPECT_EQ(ResultOf("toYear", {Arg(T::kDateTime)}), T::kUInt16);
  EXPECT_EQ(ResultOf("toStartOfMinute", {Arg(T::kDateTime)}), T::kDateTime);
  EXPECT_EQ(ResultOf("dateTrunc", {Const(T::kString, "month"), Arg(T::kDate)}), T::kDate);
  EXPECT_EQ(ResultOf("dateTrunc", {Const(T::kString, "Hour"), Arg(T::kDate)}), T::kDateTime);
  EXPECT_EQ(ResultOf("dateTrunc", {Const(T::kString, "year"), Arg(T::kDateTime)}), T::kDateTime);
  EXPECT_EQ(ResultOf("length", {Arg(T::kString)}), T::kUInt64);
  EXPECT_EQ(ResultOf("concat", {Arg(T::kString), Arg(T::kUInt8)}), T::kString);
  EXPECT_EQ(ResultOf("in", {Arg(T::kUInt8), Const(T::kUInt16, uint64_t{300})}), T::kUInt8);
  EXPECT_EQ(ResultOf("isNull", {Arg(T::kString)}), T::kUInt8);
  EXPECT_EQ(ResultOf("round", {Arg(T::kFloat32), Const(T::kUInt8, uint64_t{2})}), T::kFloat32);
  EXPECT_EQ(ResultOf("greatest", {Arg(T::kUInt8), Arg(T::kInt32)}), T::kInt32);
}

TEST(FunctionRegistryTest, ConstantsInAnyValueAlternative) {
  // A Date constant given as int64_t, a String constant given as a number.
  EXPECT_EQ(ResultOf("in", {Arg(T::kDateTime), Const(T::kDate, int64_t{15887})}), T::kUInt8);
  EXPECT_EQ(ResultOf("like", {Arg(T::kString), Const(T::kString, uint64_t{5})}), T::kUInt8);
  EXPECT_EQ(ResultOf("round", {Arg(T::kFloat64), Const(T::kInt8, uint64_t{2})}), T::kFloat64);
  EXPECT_EQ(ErrorOf("plus", {Arg(T::kUInt8), Const(T::kUInt8, uint64_t{300})}),
            ErrorCode::kValueIsOutOfRangeOfDataType);
}

TEST(FunctionRegistryTest, ParseErrorOfConstantSurfacesAtResolve) {
  auto resolved = ResolveFunction("equals", {Arg(T::kDate), Const(T::kString, "yesterday")});
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(CodeOf(resolved.status()), ErrorCode::kCannotParseText);
  EXPECT_NE(resolved.status().message().find("yesterday"), std::string_view::npos);
}

}  // namespace
}  // namespace granite::core
