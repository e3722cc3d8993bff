// The fast paths over LowCardinality columns read with dictionary codes (core/dictionary_codes.h):
// an expression of the column alone is evaluated per distinct value and must equal its row by
// row result; a GROUP BY of the column (Add, AddSelected, single- and two-level tables) must give
// the groups and states of the same strings without codes; errors only come from values the
// rows hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/aggregation/aggregator.h"
#include "core/dictionary_codes.h"
#include "core/expression.h"
#include "core/fragment_pipeline.h"
#include "core/functions/expr_builder.h"
#include "core/status_macros.h"
#include "core/value_text.h"

namespace granite::core {
namespace {

using T = TypeId;

// A String column of `rows` rows over `dictionary` (code r * 7 % used of row r, so a block uses
// `used` of its values), with its codes attached; `plain` gets the same strings without them.
ColumnPtr WithCodes(const std::vector<std::string>& dictionary, size_t rows, size_t used,
                    ColumnPtr* plain, uint64_t seed = 1) {
  auto values = std::make_shared<Column>(T::kString);
  for (const std::string& value : dictionary) values->AppendString(value);
  auto codes = std::make_shared<DictionaryCodes>();
  codes->dictionary = values;
  std::mt19937_64 rng(seed);
  auto column = std::make_shared<Column>(T::kString);
  for (size_t r = 0; r < rows; ++r) {
    const auto code = static_cast<uint32_t>(rng() % used);
    codes->codes.push_back(code);
    column->AppendString(dictionary[code]);
  }
  *plain = std::make_shared<Column>(*column);  // a copy: no codes
  column->AttachDictionaryCodes(std::move(codes));
  return column;
}

std::vector<std::string> Dictionary(size_t size) {
  std::vector<std::string> values;
  for (size_t i = 0; i < size; ++i) {
    values.push_back(i == 0 ? std::string() : "value " + std::to_string(i * 13));
  }
  return values;
}

std::string Text(const Column& column) {
  std::string text;
  for (size_t r = 0; r < column.size(); ++r) {
    AppendValueText(column, r, &text);
    text += '\n';
  }
  return text;
}

TEST(DictionaryCodesTest, ExpressionsOfTheColumnMatchRowByRow) {
  ColumnPtr plain;
  const ColumnPtr coded = WithCodes(Dictionary(50), 3000, 20, &plain);
  auto other = std::make_shared<Column>(T::kUInt32);
  for (size_t r = 0; r < 3000; ++r) other->Append<uint32_t>(static_cast<uint32_t>(r));
  const plan::Expr k = Col(1, T::kString);
  std::vector<plan::Expr> exprs = {
      *TypedCall("equals", {k, Lit(std::string("value 13"))}),
      *TypedCall("notEquals", {k, Lit(std::string(""))}),
      *TypedCall("like", {k, Lit(std::string("%1%"))}),
      *TypedCall("match", {k, Lit(std::string("^value [0-9]{2}$"))}),
      *TypedCall("in", {k, Call("tuple", T::kString, {Lit(std::string("value 26")),
                                                      Lit(std::string(""))})}),
      *TypedCall("length", {k}),
      *TypedCall("upper", {k}),
      // Reads another column too: evaluated row by row.
      *TypedCall("and", {*TypedCall("equals", {k, Lit(std::string(""))}),
                         *TypedCall("greater", {Col(0, T::kUInt32), Lit(uint64_t{100})})}),
  };
  for (const plan::Expr& expr : exprs) {
    absl::StatusOr<std::unique_ptr<Expression>> compiled = Expression::Compile(expr);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    absl::StatusOr<ColumnPtr> fast = (*compiled)->Evaluate(Block{{other, coded}});
    absl::StatusOr<ColumnPtr> slow = (*compiled)->Evaluate(Block{{other, plain}});
    ASSERT_TRUE(fast.ok() && slow.ok());
    EXPECT_EQ((*fast)->size(), 3000u);
    EXPECT_EQ(Text(**fast), Text(**slow));
  }
}

TEST(DictionaryCodesTest, ErrorsComeOnlyFromValuesTheRowsHold) {
  // The dictionary holds 'x', which toUInt32 refuses, but no row of the block uses it.
  std::vector<std::string> dictionary = {"1", "2", "x"};
  ColumnPtr plain;
  const ColumnPtr coded = WithCodes(dictionary, 100, 2, &plain);
  absl::StatusOr<std::unique_ptr<Expression>> compiled =
      Expression::Compile(*TypedCall("toUInt32", {Col(0, T::kString)}));
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  absl::StatusOr<ColumnPtr> fast = (*compiled)->Evaluate(Block{{coded}});
  ASSERT_TRUE(fast.ok()) << fast.status();
  EXPECT_EQ(Text(**fast), Text(**(*compiled)->Evaluate(Block{{plain}})));
}

// Returns the rows of `block` as sorted text lines.
std::vector<std::string> SortedRows(const Block& block) {
  std::vector<std::string> rows;
  for (size_t r = 0; r < block.rows(); ++r) {
    std::string line;
    for (const ColumnPtr& column : block.columns) {
      AppendValueText(*column, r, &line);
      line += '|';
    }
    rows.push_back(line);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::vector<std::string> Rows(Aggregator& aggregator) {
  absl::StatusOr<Block> block = aggregator.Finalize();
  EXPECT_TRUE(block.ok()) << block.status();
  return block.ok() ? SortedRows(*block) : std::vector<std::string>();
}

TEST(DictionaryCodesTest, GroupByCodesEqualsGroupByStrings) {
  const std::vector<AggregateSpec> specs = {{"count", {}}, {"sum", {T::kUInt32}}};
  AggregatorOptions two_level;
  two_level.two_level_threshold = 1;
  for (bool selected : {false, true}) {
    for (const AggregatorOptions& options : {AggregatorOptions(), two_level}) {
      SCOPED_TRACE(std::string(selected ? "AddSelected" : "Add") +
                   (options.two_level_threshold == 1 ? " two-level" : ""));
      auto fast = *Aggregator::Create({T::kString}, specs, options);
      auto slow = *Aggregator::Create({T::kString}, specs, options);
      // Each batch has its own dictionary (parts differ) and uses part of it.
      for (uint64_t batch = 0; batch < 4; ++batch) {
        ColumnPtr plain;
        const ColumnPtr coded =
            WithCodes(Dictionary(100 + batch * 50), 2000, 30 + batch * 40, &plain, batch + 1);
        auto x = std::make_shared<Column>(T::kUInt32);
        for (size_t r = 0; r < 2000; ++r) x->Append<uint32_t>(static_cast<uint32_t>(r % 9));
        std::vector<uint32_t> selection;
        for (uint32_t r = 0; r < 2000; r += 3) selection.push_back(r);
        if (selected) {
          const size_t n = selection.size();
          ASSERT_TRUE(fast->AddSelected({coded}, {{}, {x}}, selection.data(), n).ok());
          ASSERT_TRUE(slow->AddSelected({plain}, {{}, {x}}, selection.data(), n).ok());
        } else {
          ASSERT_TRUE(fast->Add({coded}, {{}, {x}}, 2000).ok());
          ASSERT_TRUE(slow->Add({plain}, {{}, {x}}, 2000).ok());
        }
      }
      EXPECT_EQ(fast->size(), slow->size());
      EXPECT_EQ(fast->two_level(), slow->two_level());
      // Partial states split into the same buckets as those of the strings.
      std::vector<Block> fast_buckets = fast->PartialByBucket();
      std::vector<Block> slow_buckets = slow->PartialByBucket();
      ASSERT_EQ(fast_buckets.size(), slow_buckets.size());
      for (size_t b = 0; b < fast_buckets.size(); ++b) {
        ASSERT_EQ(fast_buckets[b].rows(), slow_buckets[b].rows()) << b;
      }
      auto fast_merged = *Aggregator::Create({T::kString}, specs);
      auto slow_merged = *Aggregator::Create({T::kString}, specs);
      for (size_t b = 0; b < fast_buckets.size(); ++b) {
        ASSERT_TRUE(fast_merged->Merge(fast_buckets[b]).ok());
        ASSERT_TRUE(slow_merged->Merge(slow_buckets[b]).ok());
      }
      const std::vector<std::string> got = Rows(*fast_merged);
      EXPECT_FALSE(got.empty());
      EXPECT_EQ(got, Rows(*slow_merged));
    }
  }
}

// A block of (c0 UInt32, c1 String): c1 over Dictionary(60) with codes, as a scan reads it codes
// only (every string '') or whole.
Block PipelineInput(bool codes_only) {
  ColumnPtr plain;
  ColumnPtr coded = WithCodes(Dictionary(60), 5000, 40, &plain, 7);
  if (codes_only) {
    auto empty = std::make_shared<Column>(T::kString);
    empty->MutableOffsets().assign(5000, 0);
    empty->SetSize(5000);
    auto codes = std::make_shared<DictionaryCodes>(*coded->dictionary_codes());
    empty->AttachDictionaryCodes(std::move(codes));
    coded = empty;
  }
  auto c0 = std::make_shared<Column>(T::kUInt32);
  for (uint32_t r = 0; r < 5000; ++r) c0->Append<uint32_t>(r % 13);
  return Block{{c0, coded}};
}

absl::StatusOr<std::vector<std::string>> RunPipeline(const plan::Fragment& fragment,
                                                     bool codes_only) {
  ASSIGN_OR_RETURN(auto pipeline, FragmentPipeline::Compile(fragment));
  ASSIGN_OR_RETURN(auto state, pipeline->NewLocalState());
  RETURN_IF_ERROR(pipeline->Consume(*state, PipelineInput(codes_only)));
  std::vector<std::unique_ptr<FragmentPipeline::LocalState>> states;
  states.push_back(std::move(state));
  ASSIGN_OR_RETURN(Block block, pipeline->FinishFinalized(std::move(states), nullptr));
  return SortedRows(block);
}

TEST(DictionaryCodesTest, PipelinesThatNeedOnlyCodesSayWhich) {
  const plan::Expr k = Col(1, T::kString);
  const plan::Expr like = *TypedCall("like", {k, Lit(std::string("%1%"))});
  const plan::Expr small = *TypedCall("less", {Col(0, T::kUInt32), Lit(uint64_t{7})});
  auto fragment = [&](std::optional<plan::Expr> filter, std::vector<plan::Expr> keys,
                      std::vector<plan::AggregateCall> calls) {
    plan::Fragment f;
    f.worker_count = 1;
    f.filter = std::move(filter);
    plan::Aggregate& aggregate = f.aggregate.emplace();
    aggregate.keys = std::move(keys);
    aggregate.calls = std::move(calls);
    return f;
  };
  const plan::AggregateCall count{.name = "count"};
  const plan::AggregateCall sum{.name = "sum", .args = {Col(0, T::kUInt32)}};
  struct Case {
    const char* name;
    plan::Fragment fragment;
    bool codes_only;
  };
  const Case cases[] = {
      {"GROUP BY k", fragment(std::nullopt, {k}, {count, sum}), true},
      {"WHERE k LIKE GROUP BY k", fragment(like, {k}, {count, sum}), true},
      {"WHERE c0 < 7 GROUP BY k", fragment(small, {k}, {count}), true},
      {"WHERE k LIKE GROUP BY c0", fragment(like, {Col(0, T::kUInt32)}, {sum}), true},
      {"GROUP BY upper(k)", fragment(std::nullopt, {*TypedCall("upper", {k})}, {count}), true},
      {"count() WHERE k LIKE", fragment(like, {}, {count}), true},
      {"sum(c0) WHERE k LIKE", fragment(like, {}, {sum}), true},
      // The strings are needed: an argument, a second key, a filter of two columns.
      {"any(k)",
       fragment(std::nullopt, {k}, {{.name = "any", .args = {k}, .result_type = T::kString}}),
       false},
      {"GROUP BY k, c0", fragment(std::nullopt, {k, Col(0, T::kUInt32)}, {count}), false},
      {"WHERE k LIKE AND c0 < 7",
       fragment(*TypedCall("and", {like, small}), {Col(0, T::kUInt32)}, {count}), false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    absl::StatusOr<std::unique_ptr<FragmentPipeline>> pipeline =
        FragmentPipeline::Compile(c.fragment);
    ASSERT_TRUE(pipeline.ok()) << pipeline.status();
    const std::vector<bool>& codes_only = (*pipeline)->codes_only_columns();
    EXPECT_EQ(codes_only.size() > 1 && codes_only[1], c.codes_only);
    if (!codes_only.empty()) {
      EXPECT_FALSE(codes_only[0]);
    }
    absl::StatusOr<std::vector<std::string>> whole = RunPipeline(c.fragment, false);
    ASSERT_TRUE(whole.ok()) << whole.status();
    EXPECT_FALSE(whole->empty());
    if (!c.codes_only) continue;
    // Read as a scan hands such a column over: the codes, no strings.
    absl::StatusOr<std::vector<std::string>> coded = RunPipeline(c.fragment, true);
    ASSERT_TRUE(coded.ok()) << coded.status();
    EXPECT_EQ(*coded, *whole);
  }
}

}  // namespace
}  // namespace granite::core
