// Reading String columns as sizes: which uses qualify, how the fragment is rewritten, and that
// the planner rule records the rewrite in the Scan (the worker's side, Part::ReadStringSizes
// through MorselSource, is tested in worker/string_size_scan_test.cc).
#include "coordinator/planner/rules/string_size_reads.h"

#include <gtest/gtest.h>

#include <string>

#include "core/functions/expr_builder.h"

namespace granite::coordinator {
namespace {

namespace plan = granite::core::plan;
using core::Col;
using core::Lit;
using core::TypeId;

plan::Expr Url() { return Col(0, TypeId::kString); }
plan::Expr Title() { return Col(1, TypeId::kString); }

// FROM hits(URL, Title) WHERE URL <> '' with `projections`.
plan::Fragment Fragment(std::vector<plan::Expr> projections) {
  plan::Fragment fragment;
  fragment.scan.table = "hits";
  fragment.scan.columns.push_back("URL");
  fragment.scan.columns.push_back("Title");
  fragment.filter = core::Call("notEquals", TypeId::kUInt8, {Url(), Lit(std::string(""))});
  for (plan::Expr& projection : projections) fragment.projections.push_back(std::move(projection));
  return fragment;
}

TEST(StringSizeReadsTest, RewritesColumnsUsedOnlyThroughTheirSize) {
  plan::Fragment fragment =
      Fragment({core::Call("length", TypeId::kUInt64, {Url()}),
                core::Call("equals", TypeId::kUInt8, {Lit(std::string("")), Title()}),
                core::Call("notEmpty", TypeId::kUInt8, {Title()})});
  EXPECT_EQ(ReadStringsAsSizes(&fragment), (std::vector<bool>{true, true}));
  ASSERT_TRUE(fragment.filter.has_value());
  const plan::Expr& filter = *fragment.filter;
  EXPECT_EQ(filter.function, "notEquals");
  EXPECT_EQ(filter.args[0].type, TypeId::kUInt64);
  EXPECT_EQ(filter.args[0].column, 0u);
  EXPECT_EQ(filter.args[1].literal, core::Value(uint64_t{0}));
  EXPECT_TRUE(fragment.projections[0].is_column());
  EXPECT_EQ(fragment.projections[0].type, TypeId::kUInt64);
  EXPECT_EQ(fragment.projections[1].function, "equals");
  EXPECT_EQ(fragment.projections[1].args[0].column, 1u);
  EXPECT_EQ(fragment.projections[2].function, "notEquals");
  EXPECT_EQ(fragment.projections[2].type, TypeId::kUInt8);
}

TEST(StringSizeReadsTest, AnyOtherUseKeepsTheCharacters) {
  // URL is also projected as itself; Title is compared with a non-empty string.
  plan::Fragment fragment =
      Fragment({Url(), core::Call("equals", TypeId::kUInt8, {Title(), Lit(std::string("a"))})});
  plan::Fragment before = fragment;
  EXPECT_EQ(ReadStringsAsSizes(&fragment), (std::vector<bool>{false, false}));
  EXPECT_EQ(fragment.filter, before.filter);
  EXPECT_EQ(fragment.projections, before.projections);
  // Aggregate arguments count too: avg(length(URL)) qualifies, min(URL) does not.
  plan::Fragment aggregate = Fragment({});
  aggregate.aggregate.emplace();
  aggregate.aggregate->calls.push_back(
      {.name = "avg", .args = {core::Call("length", TypeId::kUInt64, {Url()})}});
  EXPECT_EQ(ReadStringsAsSizes(&aggregate), (std::vector<bool>{true, false}));
  // A group key is another use: URL is read whole.
  plan::Fragment mixed = Fragment({});
  mixed.aggregate.emplace();
  mixed.aggregate->keys.push_back(Url());
  mixed.projections.push_back(core::Call("length", TypeId::kUInt64, {Url()}));
  EXPECT_EQ(ReadStringsAsSizes(&mixed), (std::vector<bool>{false, false}));
}

// The planner rule keeps the bound filter for pruning and marks the columns read as sizes.
TEST(StringSizeReadsTest, RuleRecordsTheRewriteInTheScan) {
  QueryPlan query;
  query.fragment = Fragment({core::Call("length", TypeId::kUInt64, {Url()})});
  const std::optional<plan::Expr> bound_filter = query.fragment.filter;
  EXPECT_TRUE(ApplyStringSizeReads(&query, RuleContext{}));
  EXPECT_EQ(query.fragment.scan.string_sizes, (std::vector<bool>{true, false}));
  EXPECT_EQ(query.fragment.scan.prune_filter, bound_filter);
  EXPECT_NE(query.fragment.filter, bound_filter);  // compares sizes now

  QueryPlan off;
  off.fragment = Fragment({core::Call("length", TypeId::kUInt64, {Url()})});
  ASSERT_TRUE(off.settings.Set("optimize_functions_to_subcolumns", "0").ok());
  EXPECT_FALSE(ApplyStringSizeReads(&off, RuleContext{}));
  EXPECT_TRUE(off.fragment.scan.string_sizes.empty());
  EXPECT_FALSE(off.fragment.scan.prune_filter.has_value());

  QueryPlan whole;
  whole.fragment = Fragment({Url()});
  EXPECT_FALSE(ApplyStringSizeReads(&whole, RuleContext{}));
  EXPECT_TRUE(whole.fragment.scan.string_sizes.empty());
}

}  // namespace
}  // namespace granite::coordinator
