// PartsRegistry: one shared snapshot between changes, version-checked publication (the race of
// DESIGN.md §5.9 reproduced deterministically), block numbers in flight, deferred deletion.
#include "storage/parts_registry.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

namespace granite::storage {
namespace {

// Returns an in-memory part (never read) named `name`.
std::shared_ptr<const Part> FakePart(const std::string& name, uint64_t rows = 10) {
  std::optional<PartName> parsed = PartName::Parse(name);
  EXPECT_TRUE(parsed.has_value()) << name;
  auto schema = std::make_shared<const TableSchema>();
  PartContents contents;
  contents.granule_rows = {static_cast<uint32_t>(rows)};
  contents.size_on_disk = 100;
  if (parsed->partition_id != "all") {
    contents.partition = {true, core::TypeId::kUInt32, uint64_t{std::stoull(parsed->partition_id)}};
  }
  return std::make_shared<const Part>(nullptr, schema, "/nonexistent/" + name, *parsed,
                                      std::move(contents));
}

std::vector<std::string> Names(const PartsSnapshot& snapshot) {
  std::vector<std::string> names;
  for (const auto& part : snapshot.parts) names.push_back(part->name());
  return names;
}

TEST(PartsRegistryTest, EveryReaderSharesOneSnapshotUntilAChange) {
  PartsRegistry registry;
  registry.Reset({FakePart("all_1_1_0"), FakePart("all_2_2_0")}, 2);
  std::shared_ptr<const PartsSnapshot> first = registry.Snapshot();
  EXPECT_EQ(registry.Snapshot(), first);  // the same object, not a copy
  EXPECT_EQ(first->rows, 20u);
  EXPECT_EQ(first->granules, 2u);

  uint64_t block = registry.AllocateBlock("all");
  EXPECT_EQ(block, 3u);
  registry.Add({FakePart("all_3_3_0")});
  std::shared_ptr<const PartsSnapshot> second = registry.Snapshot();
  EXPECT_NE(second, first);
  EXPECT_GT(second->version, first->version);
  EXPECT_EQ(Names(*second), (std::vector<std::string>{"all_1_1_0", "all_2_2_0", "all_3_3_0"}));
  EXPECT_EQ(Names(*first), (std::vector<std::string>{"all_1_1_0", "all_2_2_0"}));  // immutable
  EXPECT_EQ(registry.Snapshot(), second);
}

TEST(PartsRegistryTest, PartsAreOrderedByPartitionThenBlockWithAPartitionIndex) {
  PartsRegistry registry;
  registry.Reset({FakePart("202402_3_3_0"), FakePart("202401_5_5_0"), FakePart("202401_1_1_0"),
                  FakePart("202403_2_2_0")},
                 5);
  auto snapshot = registry.Snapshot();
  EXPECT_EQ(Names(*snapshot), (std::vector<std::string>{"202401_1_1_0", "202401_5_5_0",
                                                         "202402_3_3_0", "202403_2_2_0"}));
  std::vector<PartsSnapshot::Partition> partitions = snapshot->Partitions();
  ASSERT_EQ(partitions.size(), 3u);
  EXPECT_EQ(partitions[0].value.value, core::Value(uint64_t{202401}));
  EXPECT_EQ(partitions[0].begin, 0u);
  EXPECT_EQ(partitions[0].end, 2u);
  EXPECT_EQ(partitions[2].begin, 3u);
}

// The race of DESIGN.md §5.9, forced step by step with two threads:
//   1. reader R finds no shared snapshot (as after open), copies the set {A} at version v and
//      builds a snapshot from it, then stalls;
//   2. writer W adds B: it publishes {A, B} at version v + 1;
//   3. R resumes and tries to install {A}: the version check refuses.
// Without the check R would install {A} over W's snapshot, and every later query would miss B
// until the next change.
TEST(PartsRegistryTest, AReaderCannotPublishASnapshotAWriterMadeStale) {
  PartsRegistry registry;
  registry.Reset({FakePart("all_1_1_0")}, 1);  // no shared snapshot yet

  std::mutex mu;
  std::condition_variable cv;
  int step = 0;  // 1: R built its snapshot; 2: W published
  auto wait_for = [&](int s) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return step >= s; });
  };
  auto advance = [&](int s) {
    {
      std::lock_guard<std::mutex> lock(mu);
      step = s;
    }
    cv.notify_all();
  };
  int hook_calls = 0;
  registry.SetBeforeInstallHookForTest([&] {
    int call;
    {
      std::lock_guard<std::mutex> lock(mu);
      call = ++hook_calls;
    }
    if (call == 1) {  // R, holding {A}: stall until W has published
      advance(1);
      wait_for(2);
    }
  });

  std::shared_ptr<const PartsSnapshot> seen_by_reader;
  std::thread reader([&] { seen_by_reader = registry.Snapshot(); });
  wait_for(1);
  registry.AllocateBlock("all");
  registry.Add({FakePart("all_2_2_0")});
  EXPECT_EQ(Names(*registry.Snapshot()), (std::vector<std::string>{"all_1_1_0", "all_2_2_0"}));
  advance(2);
  reader.join();
  registry.SetBeforeInstallHookForTest(nullptr);

  // The reader's own query sees the consistent set of the moment it copied it...
  EXPECT_EQ(Names(*seen_by_reader), std::vector<std::string>{"all_1_1_0"});
  // ...but the shared snapshot every later query takes still has the writer's part.
  EXPECT_EQ(Names(*registry.Snapshot()), (std::vector<std::string>{"all_1_1_0", "all_2_2_0"}));
  EXPECT_GE(hook_calls, 1);
}

TEST(PartsRegistryTest, AMergeNeverCoversABlockStillInFlight) {
  PartsRegistry registry;
  auto a = FakePart("all_1_1_0");
  auto c = FakePart("all_3_3_0");
  registry.Reset({a, c}, 3);
  // Block 4 of another partition does not matter; block 2 would have to lie in [1, 3].
  uint64_t other = registry.AllocateBlock("202401");
  EXPECT_EQ(other, 4u);
  EXPECT_TRUE(registry.Replace({a, c}, FakePart("all_1_3_1")));

  auto d = FakePart("all_5_5_0");
  registry.Reset({d}, 5);
  uint64_t pending = registry.AllocateBlock("all");  // 6, an insert still committing
  registry.AllocateBlock("all");                     // 7
  auto h = FakePart("all_8_8_0");
  registry.Add({h});
  EXPECT_TRUE(registry.InFlight("all", 5, 8));
  EXPECT_FALSE(registry.Replace({d, h}, FakePart("all_5_8_1")));
  EXPECT_EQ(Names(*registry.Snapshot()), (std::vector<std::string>{"all_5_5_0", "all_8_8_0"}));
  registry.ReleaseBlock("all", pending);
  registry.ReleaseBlock("all", 7);
  EXPECT_FALSE(registry.InFlight("all", 5, 8));
}

TEST(PartsRegistryTest, ReportsThePartitionsEachChangeTouched) {
  PartsRegistry registry;
  bool all = false;
  EXPECT_TRUE(registry.TakeChangedPartitions(&all).empty());
  EXPECT_TRUE(all);  // before the first call anything may have changed
  auto one = FakePart("1_1_1_0");
  registry.Reset({one, FakePart("2_2_2_0")}, 2);
  EXPECT_TRUE(registry.TakeChangedPartitions(&all).empty());
  EXPECT_TRUE(all);  // a reset changes everything
  EXPECT_TRUE(registry.TakeChangedPartitions(&all).empty());
  EXPECT_FALSE(all);

  auto three = FakePart("1_3_3_0");
  auto four = FakePart("3_4_4_0");
  registry.Add({three, four});
  EXPECT_EQ(registry.TakeChangedPartitions(&all),
            (std::vector<core::Value>{uint64_t{1}, uint64_t{3}}));
  EXPECT_FALSE(all);
  EXPECT_TRUE(registry.TakeChangedPartitions(&all).empty());  // taken once

  ASSERT_TRUE(registry.Replace({one, three}, FakePart("1_1_3_1")));
  ASSERT_TRUE(registry.Remove(four));
  EXPECT_EQ(registry.TakeChangedPartitions(&all),
            (std::vector<core::Value>{uint64_t{1}, uint64_t{3}}));
  EXPECT_FALSE(registry.Replace({one}, FakePart("1_1_1_1")));  // refused: changes nothing
  EXPECT_TRUE(registry.TakeChangedPartitions(&all).empty());
  EXPECT_FALSE(all);
}

TEST(PartsRegistryTest, ReplacedPartsAreDeletedOnlyWhenNoQueryHoldsThem) {
  PartsRegistry registry;
  auto a = FakePart("all_1_1_0");
  auto b = FakePart("all_2_2_0");
  registry.Reset({a, b}, 2);
  std::shared_ptr<const PartsSnapshot> running_query = registry.Snapshot();
  a.reset();
  b.reset();
  ASSERT_TRUE(registry.Replace({running_query->parts[0], running_query->parts[1]},
                               FakePart("all_1_2_1")));
  EXPECT_EQ(registry.Outdated().size(), 2u);
  EXPECT_TRUE(registry.TakeUnused().empty());  // the query still reads them
  running_query.reset();
  EXPECT_EQ(registry.TakeUnused().size(), 2u);
  EXPECT_TRUE(registry.Outdated().empty());

  // A source that is no longer active makes the replacement fail.
  auto stale = FakePart("all_1_1_0");
  EXPECT_FALSE(registry.Replace({stale}, FakePart("all_1_1_2")));
}

}  // namespace
}  // namespace granite::storage
