// QueryConditionCache: keys (what is cached and what never is), per-part granule flags, eviction,
// and MorselSource leaving out the granules a previous fragment found without a match.
#include "worker/query_condition_cache.h"

#include <gtest/gtest.h>

#include "core/functions/expr_builder.h"
#include "storage/store.h"
#include "worker/store_test_base.h"
#include "worker/morsel_source.h"

namespace granite::worker {
namespace {

namespace plan = granite::core::plan;
using core::Col;
using core::Lit;
using core::TypeId;

// SELECT ... FROM hits WHERE `filter`, reading (CounterID, URL).
plan::Fragment Fragment(const plan::Expr& filter) {
  plan::Fragment fragment;
  fragment.scan.table = "hits";
  fragment.scan.columns.push_back("CounterID");
  fragment.scan.columns.push_back("URL");
  fragment.filter = filter;
  return fragment;
}

// CounterID % 2000 = value: a filter granule ranges cannot prune.
plan::Expr CounterIs(uint64_t value) {
  absl::StatusOr<plan::Expr> modulo =
      core::TypedCall("modulo", {Col(0, TypeId::kUInt32), Lit(uint64_t{2000})});
  EXPECT_TRUE(modulo.ok()) << modulo.status();
  absl::StatusOr<plan::Expr> call = core::TypedCall("equals", {*modulo, Lit(value)});
  EXPECT_TRUE(call.ok()) << call.status();
  return *call;
}

class QueryConditionCacheTest : public StoreTestBase {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(
        CreateTable("hits", {{"CounterID", TypeId::kUInt32}, {"URL", TypeId::kString}}, 100));
    // One part of 2000 rows (20 granules); CounterID = row.
    auto counter = std::make_shared<core::Column>(TypeId::kUInt32);
    auto url = std::make_shared<core::Column>(TypeId::kString);
    for (uint32_t row = 0; row < 2000; ++row) {
      counter->Append<uint32_t>(row);
      url->AppendString("u");
    }
    ASSERT_NO_FATAL_FAILURE(Insert("hits", {counter, url}));
  }
};

TEST(QueryConditionCacheKeyTest, CachesOnlyStableFilters) {
  const std::string key = QueryConditionCache::KeyOf(Fragment(CounterIs(5)));
  EXPECT_FALSE(key.empty());
  EXPECT_EQ(QueryConditionCache::KeyOf(Fragment(CounterIs(5))), key);
  EXPECT_NE(QueryConditionCache::KeyOf(Fragment(CounterIs(6))), key);
  // The same filter over other source columns is another filter.
  plan::Fragment other = Fragment(CounterIs(5));
  other.scan.columns[0] = "RegionID";
  EXPECT_NE(QueryConditionCache::KeyOf(other), key);

  plan::Fragment off = Fragment(CounterIs(5));
  ASSERT_TRUE(off.settings.Set("use_query_condition_cache", "0").ok());
  EXPECT_EQ(QueryConditionCache::KeyOf(off), "");
  plan::Fragment none = Fragment(CounterIs(5));
  none.filter.reset();
  EXPECT_EQ(QueryConditionCache::KeyOf(none), "");
  // rand() anywhere in the filter: never cached.
  plan::Expr random = CounterIs(5);
  plan::Expr& call = random.args[1];
  call = plan::Expr();
  call.kind = plan::Expr::Kind::kCall;
  call.function = "rand";
  EXPECT_EQ(QueryConditionCache::KeyOf(Fragment(random)), "");
}

TEST_F(QueryConditionCacheTest, MarksGranulesOfOnePartAndFilter) {
  QueryConditionCache cache(4);
  std::shared_ptr<const storage::Part> part = store_->GetTable("hits")->Snapshot()->parts[0];
  ASSERT_EQ(part->granule_count(), 20u);
  EXPECT_TRUE(cache.EmptyGranules(part, "a").empty());
  cache.MarkEmpty(part, "a", 2, 5);
  cache.MarkEmpty(part, "a", 19, 20);
  std::vector<bool> empty = cache.EmptyGranules(part, "a");
  ASSERT_EQ(empty.size(), 20u);
  for (size_t g = 0; g < 20; ++g) EXPECT_EQ(empty[g], (g >= 2 && g < 5) || g == 19) << g;
  EXPECT_TRUE(cache.EmptyGranules(part, "b").empty());
  // Past max_entries the live entries are dropped all at once.
  for (const char* key : {"b", "c", "d"}) cache.MarkEmpty(part, key, 0, 1);
  EXPECT_EQ(cache.size(), 4u);
  cache.MarkEmpty(part, "e", 0, 1);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_TRUE(cache.EmptyGranules(part, "a").empty());
}

TEST_F(QueryConditionCacheTest, MorselSourceSkipsGranulesWithoutAMatch) {
  // CounterID % 2000 = 1234 matches one row, in granule 12.
  plan::Fragment fragment = Fragment(CounterIs(1234));
  std::unique_ptr<MorselSource> first = Open(fragment);
  size_t granules = 0;
  for (const Morsel& morsel : first->table_morsels()) granules += morsel.end - morsel.begin;
  ASSERT_EQ(granules, 20u);
  for (const Morsel& morsel : first->table_morsels()) {
    if (morsel.begin > 12 || morsel.end <= 12) first->NoteNoMatch(morsel);
  }
  std::unique_ptr<MorselSource> second = Open(fragment);
  granules = 0;
  for (const Morsel& morsel : second->table_morsels()) {
    EXPECT_LE(morsel.begin, 12u);
    EXPECT_GT(morsel.end, 12u);
    granules += morsel.end - morsel.begin;
  }
  EXPECT_GE(granules, 1u);
  EXPECT_LE(granules, 8u);
  // Another filter, or the cache turned off, reads everything.
  granules = 0;
  std::unique_ptr<MorselSource> other = Open(Fragment(CounterIs(1235)));
  for (const Morsel& morsel : other->table_morsels()) granules += morsel.end - morsel.begin;
  EXPECT_EQ(granules, 20u);
  plan::Fragment off = fragment;
  ASSERT_TRUE(off.settings.Set("use_query_condition_cache", "0").ok());
  granules = 0;
  std::unique_ptr<MorselSource> uncached = Open(off);
  for (const Morsel& morsel : uncached->table_morsels()) granules += morsel.end - morsel.begin;
  EXPECT_EQ(granules, 20u);
  // use_pruning = 0 reads every granule, those the cache would skip too.
  plan::Fragment unpruned = fragment;
  ASSERT_TRUE(unpruned.settings.Set("use_pruning", "0").ok());
  granules = 0;
  std::unique_ptr<MorselSource> all = Open(unpruned);
  for (const Morsel& morsel : all->table_morsels()) granules += morsel.end - morsel.begin;
  EXPECT_EQ(granules, 20u);
}

}  // namespace
}  // namespace granite::worker
