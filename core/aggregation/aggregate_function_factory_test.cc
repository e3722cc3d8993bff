#include "core/aggregation/aggregate_function_factory.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace granite::core {
namespace {

TypeId ResultOf(std::string_view name, std::vector<TypeId> args) {
  auto resolved = ResolveAggregate(name, args);
  EXPECT_TRUE(resolved.ok()) << resolved.status();
  return resolved.ok() ? resolved->result_type : TypeId::kUInt8;
}

TEST(AggregateFunctionFactoryTest, ResolvesResultTypes) {
  EXPECT_EQ(ResultOf("count", {}), TypeId::kUInt64);
  EXPECT_EQ(ResultOf("COUNT", {TypeId::kString}), TypeId::kUInt64);
  EXPECT_EQ(ResultOf("sum", {TypeId::kInt8}), TypeId::kInt64);
  EXPECT_EQ(ResultOf("Sum", {TypeId::kUInt32}), TypeId::kUInt64);
  EXPECT_EQ(ResultOf("sum", {TypeId::kFloat32}), TypeId::kFloat64);
  EXPECT_EQ(ResultOf("avg", {TypeId::kUInt64}), TypeId::kFloat64);
  EXPECT_EQ(ResultOf("min", {TypeId::kDate}), TypeId::kDate);
  EXPECT_EQ(ResultOf("MAX", {TypeId::kString}), TypeId::kString);
  EXPECT_EQ(ResultOf("any", {TypeId::kDateTime}), TypeId::kDateTime);
  EXPECT_EQ(ResultOf("uniqExact", {TypeId::kString}), TypeId::kUInt64);
  EXPECT_EQ(ResultOf("uniq", {TypeId::kFloat64}), TypeId::kUInt64);
}

TEST(AggregateFunctionFactoryTest, ReturnsCanonicalNames) {
  EXPECT_EQ(ResolveAggregate("AVG", {TypeId::kInt32})->name, "avg");
  EXPECT_EQ(ResolveAggregate("countDistinct", {TypeId::kInt32})->name, "uniqExact");
  EXPECT_EQ(ResolveAggregate("UNIQEXACT", {TypeId::kInt32})->name, "uniqExact");
  EXPECT_TRUE(IsAggregateFunction("Count"));
  EXPECT_TRUE(IsAggregateFunction("uniq"));
  EXPECT_FALSE(IsAggregateFunction("length"));
}

TEST(AggregateFunctionFactoryTest, ReportsErrorsNamingTheFunction) {
  auto unknown = ResolveAggregate("medianSpline", {TypeId::kInt32});
  EXPECT_EQ(CodeOf(unknown.status()), ErrorCode::kUnknownAggregateFunction);
  EXPECT_NE(unknown.status().message().find("medianSpline"), std::string::npos);

  auto bad_type = ResolveAggregate("sum", {TypeId::kString});
  EXPECT_EQ(CodeOf(bad_type.status()), ErrorCode::kIllegalTypeOfArgument);
  EXPECT_NE(bad_type.status().message().find("String"), std::string::npos);
  EXPECT_NE(bad_type.status().message().find("sum"), std::string::npos);
  EXPECT_EQ(CodeOf(ResolveAggregate("avg", {TypeId::kDate}).status()),
            ErrorCode::kIllegalTypeOfArgument);

  auto arity = ResolveAggregate("min", {});
  EXPECT_EQ(CodeOf(arity.status()), ErrorCode::kNumberOfArgumentsDoesntMatch);
  EXPECT_NE(arity.status().message().find("min"), std::string::npos);
  EXPECT_EQ(CodeOf(ResolveAggregate("count", {TypeId::kInt8, TypeId::kInt8}).status()),
            ErrorCode::kNumberOfArgumentsDoesntMatch);
}

TEST(AggregateFunctionFactoryTest, CreatedFunctionsReportTheirTypes) {
  auto avg = CreateAggregateFunction({"avg", {TypeId::kInt16}});
  ASSERT_TRUE(avg.ok());
  EXPECT_EQ((*avg)->ResultType(), TypeId::kFloat64);
  EXPECT_EQ((*avg)->StateTypes(),
            (std::vector<TypeId>{TypeId::kInt64, TypeId::kUInt64, TypeId::kUInt64}));
  auto min = CreateAggregateFunction({"min", {TypeId::kString}});
  ASSERT_TRUE(min.ok());
  EXPECT_EQ((*min)->StateTypes(), (std::vector<TypeId>{TypeId::kString, TypeId::kUInt8}));
  EXPECT_FALSE(CreateAggregateFunction({"sum", {TypeId::kDateTime}}).ok());
}

}  // namespace
}  // namespace granite::core
