#include "core/join/grace_hash_join.h"

#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "core/error.h"
#include "core/fragment_pipeline.h"
#include "core/functions/expr_builder.h"

namespace granite::core {
namespace {

using Kind = plan::BroadcastJoin::Kind;

std::string NewDir() {
  std::string dir = ::testing::TempDir() + "grace_testXXXXXX";
  EXPECT_NE(::mkdtemp(dir.data()), nullptr);
  return dir;
}

size_t FilesIn(const std::string& dir) {
  DIR* listing = ::opendir(dir.c_str());
  if (listing == nullptr) return 0;
  size_t files = 0;
  while (const dirent* entry = ::readdir(listing)) files += entry->d_name[0] != '.';
  ::closedir(listing);
  return files;
}

// Rows (key, key * 10) for the given keys.
Block KeyRows(const std::vector<uint64_t>& keys) {
  auto key = std::make_shared<Column>(TypeId::kUInt64);
  auto value = std::make_shared<Column>(TypeId::kUInt64);
  for (uint64_t k : keys) {
    key->Append<uint64_t>(k);
    value->Append<uint64_t>(k * 10);
  }
  Block block;
  block.columns = {key, value};
  return block;
}

Block Shape() { return KeyRows({}); }

std::vector<uint64_t> Range(uint64_t from, uint64_t to) {
  std::vector<uint64_t> out;
  for (uint64_t k = from; k < to; ++k) out.push_back(k);
  return out;
}

void AddKeys(const Block& block, std::multiset<uint64_t>* keys) {
  for (size_t r = 0; r < block.rows(); ++r) {
    keys->insert(block.columns[0]->Get<uint64_t>(r));
    EXPECT_EQ(block.columns[1]->Get<uint64_t>(r), block.columns[0]->Get<uint64_t>(r) * 10);
  }
}

GraceOptions Options(const std::string& dir, uint64_t max_rows, size_t max_buckets = 1024) {
  GraceOptions options;
  options.spill_dir = dir;
  options.max_rows = max_rows;
  options.initial_buckets = 2;
  options.max_buckets = max_buckets;
  return options;
}

TEST(GraceHashJoinTest, StaysInMemoryWithinItsBudget) {
  const std::string dir = NewDir();
  GraceHashJoin join(Options(dir, 1000), {0}, true, Shape());
  ASSERT_TRUE(join.AddBuild(KeyRows(Range(0, 600))).ok());
  ASSERT_TRUE(join.AddBuild(KeyRows(Range(600, 1000))).ok());
  EXPECT_FALSE(join.spilled());
  auto build = join.FinishBuild();
  ASSERT_TRUE(build.ok());
  EXPECT_EQ(build->rows(), 1000u);
  EXPECT_EQ(FilesIn(dir), 0u);
}

// Every build row comes back exactly once, in the bucket of its key on both sides, and no
// bucket in memory holds more than the budget.
TEST(GraceHashJoinTest, SplitsBuildAndProbeRowsByKeyIntoBucketsThatFit) {
  const std::string dir = NewDir();
  GraceHashJoin join(Options(dir, 1000), {0}, true, Shape());
  for (uint64_t from = 0; from < 10000; from += 500) {
    ASSERT_TRUE(join.AddBuild(KeyRows(Range(from, from + 500))).ok());
  }
  ASSERT_TRUE(join.spilled());
  EXPECT_GE(join.buckets(), 16u);
  auto bucket0 = join.FinishBuild();
  ASSERT_TRUE(bucket0.ok());
  EXPECT_LE(bucket0->rows(), 1000u);
  std::multiset<uint64_t> built;
  AddKeys(*bucket0, &built);
  const std::set<uint64_t> in_bucket0(built.begin(), built.end());
  // Probe keys 0 .. 19999: bucket 0's come back at once and are the ones bucket 0 may match.
  Block probe = KeyRows(Range(0, 20000));
  auto kept = join.PartitionProbe(probe, {probe.columns[0].get()});
  ASSERT_TRUE(kept.ok()) << kept.status();
  size_t matched = 0;
  for (uint32_t r : *kept) matched += in_bucket0.count(probe.columns[0]->Get<uint64_t>(r));
  EXPECT_EQ(matched, in_bucket0.size());
  EXPECT_GT(FilesIn(dir), 0u);
  for (size_t b = 1; b < join.buckets(); ++b) {
    auto build = join.LoadBuildBucket(b);
    ASSERT_TRUE(build.ok()) << build.status();
    EXPECT_LE(build->rows(), 1000u);
    std::multiset<uint64_t> keys;
    AddKeys(*build, &keys);
    size_t probe_rows = 0, bucket_matched = 0;
    while (true) {
      auto next = join.NextProbe(b);
      ASSERT_TRUE(next.ok()) << next.status();
      if (!next->has_value()) break;
      probe_rows += (**next).rows();
      for (size_t r = 0; r < (**next).rows(); ++r) {
        bucket_matched += keys.count((**next).columns[0]->Get<uint64_t>(r));
      }
    }
    EXPECT_EQ(bucket_matched, keys.size()) << "bucket " << b;
    EXPECT_GE(probe_rows, keys.size());
    built.insert(keys.begin(), keys.end());
    join.DropBucket(b);
  }
  const std::vector<uint64_t> all = Range(0, 10000);
  EXPECT_EQ(built, std::multiset<uint64_t>(all.begin(), all.end()));
  EXPECT_GT(join.spilled_bytes(), 0u);
}

// A bucket over the budget when its turn comes splits again: the buckets double and its rows
// that move, build and probe, are joined in their new bucket.
TEST(GraceHashJoinTest, ABucketTooLargeAtItsTurnSplitsAgain) {
  const std::string dir = NewDir();
  GraceHashJoin join(Options(dir, 1000), {0}, true, Shape());
  // 4000 keys of bucket 1 and 200 of bucket 0 (of 2): bucket 0 fits, bucket 1 does not.
  std::vector<uint64_t> odd, even;
  {
    Block all = KeyRows(Range(0, 40000));
    const std::vector<uint64_t> hashes = join.KeyHashes({all.columns[0].get()}, all.rows());
    for (uint64_t k = 0; k < 40000; ++k) {
      auto& side = (hashes[k] & 1) ? odd : even;
      if ((&side == &odd && odd.size() < 4000) || (&side == &even && even.size() < 200)) {
        side.push_back(k);
      }
    }
  }
  ASSERT_TRUE(join.AddBuild(KeyRows(odd)).ok());
  ASSERT_TRUE(join.AddBuild(KeyRows(even)).ok());
  EXPECT_EQ(join.buckets(), 2u);
  ASSERT_TRUE(join.FinishBuild().ok());
  std::vector<uint64_t> probe_keys = odd;
  probe_keys.insert(probe_keys.end(), even.begin(), even.end());
  Block probe = KeyRows(probe_keys);
  ASSERT_TRUE(join.PartitionProbe(probe, {probe.columns[0].get()}).ok());
  size_t joined = 0, built = 0;
  for (size_t b = 1; b < join.buckets(); ++b) {
    auto build = join.LoadBuildBucket(b);
    ASSERT_TRUE(build.ok()) << build.status();
    if (b == 1) EXPECT_GE(join.buckets(), 8u);
    EXPECT_LE(build->rows(), 1000u);
    built += build->rows();
    std::multiset<uint64_t> keys;
    AddKeys(*build, &keys);
    while (true) {
      auto next = join.NextProbe(b);
      ASSERT_TRUE(next.ok());
      if (!next->has_value()) break;
      for (size_t r = 0; r < (**next).rows(); ++r) {
        joined += keys.count((**next).columns[0]->Get<uint64_t>(r));
      }
    }
    join.DropBucket(b);
  }
  EXPECT_EQ(built, 4000u);
  EXPECT_EQ(joined, 4000u);
}

TEST(GraceHashJoinTest, OneKeyTooLargeForEveryBucketFailsWithMemoryLimitExceeded) {
  GraceHashJoin join(Options(NewDir(), 100, 8), {0}, true, Shape());
  // The key's rows fail where they are loaded: while building (bucket 0) or at their turn.
  absl::Status status = join.AddBuild(KeyRows(std::vector<uint64_t>(500, 42)));
  if (status.ok()) status = join.FinishBuild().status();
  for (size_t b = 1; status.ok() && b < join.buckets(); ++b) {
    status = join.LoadBuildBucket(b).status();
  }
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(CodeOf(status), ErrorCode::kMemoryLimitExceeded);
  EXPECT_NE(status.message().find("grace_hash_join_max_buckets = 8"), std::string::npos)
      << status.message();
}

TEST(GraceHashJoinTest, StringKeysSplitAlike) {
  auto names = [](uint64_t from, uint64_t to) {
    auto column = std::make_shared<Column>(TypeId::kString);
    for (uint64_t k = from; k < to; ++k) column->AppendString("k" + std::to_string(k));
    Block block;
    block.columns = {column};
    return block;
  };
  GraceHashJoin join(Options(NewDir(), 100), {0}, false, names(0, 0));
  ASSERT_TRUE(join.AddBuild(names(0, 1000)).ok());
  ASSERT_TRUE(join.spilled());
  std::set<std::string> bucket0;
  auto build = join.FinishBuild();
  ASSERT_TRUE(build.ok());
  for (size_t r = 0; r < build->rows(); ++r) {
    bucket0.insert(std::string(build->columns[0]->StringAt(r)));
  }
  Block probe = names(0, 1000);
  auto kept = join.PartitionProbe(probe, {probe.columns[0].get()});
  ASSERT_TRUE(kept.ok());
  std::set<std::string> probed;
  for (uint32_t r : *kept) probed.insert(std::string(probe.columns[0]->StringAt(r)));
  EXPECT_EQ(probed, bucket0);
}

// The worker's path: a fragment joining its rows with a build, run once in memory and once with
// max_bytes_in_join small enough to spill, gives the same rows for every join kind.
std::multiset<std::string> RunJoin(Kind kind, bool spill, const std::string& dir,
                                   bool cancel = false, absl::Status* failed = nullptr) {
  plan::Fragment fragment;
  fragment.scan.table = "t";
  fragment.scan.columns = {"k"};
  plan::BroadcastJoin join;
  join.kind = kind;
  join.probe_keys = {Col(0, TypeId::kUInt64)};
  join.build_keys = {0};
  // Build keys 0, 2, 4, ..., 7998, twice each for keys below 100.
  std::vector<uint64_t> build_keys;
  for (uint64_t k = 0; k < 8000; k += 2) build_keys.push_back(k);
  for (uint64_t k = 0; k < 100; k += 2) build_keys.push_back(k);
  join.build = KeyRows(build_keys);
  fragment.joins.push_back(join);
  fragment.projections = {Col(0, TypeId::kUInt64), Col(1, TypeId::kUInt64),
                          Col(2, TypeId::kUInt64)};
  std::map<std::string, std::string> settings = {{"join_algorithm", "grace_hash"}};
  if (spill) settings["max_bytes_in_join"] = "4000";
  EXPECT_TRUE(fragment.settings.Apply(settings).ok());
  auto pipeline = FragmentPipeline::Compile(fragment, {dir, {}});
  EXPECT_TRUE(pipeline.ok()) << pipeline.status();
  EXPECT_EQ((*pipeline)->spilled(), spill);
  auto state = (*pipeline)->NewLocalState();
  EXPECT_TRUE(state.ok());
  // Probe keys 0 .. 5999 in blocks of 1000 (the even ones match; build keys past 5999 do not).
  for (uint64_t from = 0; from < 6000; from += 1000) {
    Block probe;
    probe.columns = {KeyRows(Range(from, from + 1000)).columns[0]};
    EXPECT_TRUE((*pipeline)->Consume(**state, probe).ok());
  }
  const std::atomic<bool> cancelled{cancel};
  Block shape;
  shape.columns = {std::make_shared<Column>(TypeId::kUInt64)};
  absl::Status status = (*pipeline)->ConsumeSpilled(**state, &shape, cancelled, {});
  if (failed != nullptr) *failed = status;
  if (!status.ok()) return {};
  EXPECT_TRUE((*pipeline)->ConsumeUnmatched(**state, shape).ok());
  std::vector<std::unique_ptr<FragmentPipeline::LocalState>> states;
  states.push_back(*std::move(state));
  auto rows = (*pipeline)->FinishRows(std::move(states));
  EXPECT_TRUE(rows.ok());
  std::multiset<std::string> out;
  for (size_t i = 0; i < rows->rows(); ++i) {
    out.insert(std::to_string(rows->columns[0]->Get<uint64_t>(i)) + "|" +
               std::to_string(rows->columns[1]->Get<uint64_t>(i)) + "|" +
               std::to_string(rows->columns[2]->Get<uint64_t>(i)));
  }
  return out;
}

TEST(GraceHashJoinTest, PipelineGivesTheSameRowsSpilledForEveryKind) {
  const std::string dir = NewDir();
  const std::map<Kind, size_t> expected = {{Kind::kInner, 3050}, {Kind::kLeft, 6050},
                                           {Kind::kSemi, 3000},  {Kind::kAnti, 3000},
                                           {Kind::kRight, 4050}, {Kind::kFull, 7050}};
  for (const auto& [kind, rows] : expected) {
    const std::multiset<std::string> memory = RunJoin(kind, false, dir);
    EXPECT_EQ(memory.size(), rows) << static_cast<int>(kind);
    EXPECT_EQ(RunJoin(kind, true, dir), memory) << static_cast<int>(kind);
    EXPECT_EQ(FilesIn(dir), 0u);  // the pipeline removed its files
  }
}

TEST(GraceHashJoinTest, PipelineBucketPassesStopWhenCancelled) {
  const std::string dir = NewDir();
  absl::Status failed;
  RunJoin(Kind::kInner, true, dir, /*cancel=*/true, &failed);
  EXPECT_EQ(CodeOf(failed), ErrorCode::kQueryWasCancelled);
  EXPECT_EQ(FilesIn(dir), 0u);
}

}  // namespace
}  // namespace granite::core
