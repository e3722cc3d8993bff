// Tests of a shuffle join's exchange (worker/exchange.h): rows partitioned by key so that equal
// keys of comparable types meet, NULLs kept; an inbox that hands over the build once every sender
// ended it, holds senders back when its probe queue is full, and wakes everyone when closed; a
// registry that lets a peer's rows arrive first and refuses them once the fragment ended.
#include "worker/exchange.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>

#include "core/error.h"

namespace granite::worker {
namespace {

using core::TypeId;

core::ColumnPtr Ints(TypeId type, const std::vector<int64_t>& values) {
  auto column = std::make_shared<core::Column>(type);
  for (int64_t v : values) {
    if (type == TypeId::kUInt32) {
      column->Append<uint32_t>(static_cast<uint32_t>(v));
    } else {
      column->Append<int64_t>(v);
    }
  }
  return column;
}

core::plan::EncodedBlock Encoded(uint64_t rows, size_t bytes) {
  core::plan::EncodedBlock block;
  block.rows = rows;
  block.data.assign(bytes, 'x');
  block.raw_size = bytes;
  return block;
}

// The partition each value lands in.
std::map<int64_t, size_t> Places(const std::vector<core::Block>& parts) {
  std::map<int64_t, size_t> places;
  for (size_t p = 0; p < parts.size(); ++p) {
    const core::Block& part = parts[p];
    for (size_t r = 0; r < part.rows(); ++r) {
      const core::Column& c = *part.columns[0];
      const int64_t v = c.type() == TypeId::kUInt32 ? c.Get<uint32_t>(r) : c.Get<int64_t>(r);
      EXPECT_TRUE(places.emplace(v, p).second || places[v] == p) << "value " << v << " split";
    }
  }
  return places;
}

TEST(PartitionRowsTest, EqualKeysOfComparableTypesMeetInOnePartition) {
  std::vector<int64_t> values;
  for (int64_t i = 0; i < 1000; ++i) values.push_back(i % 300);
  for (bool words : {true, false}) {
    core::Block narrow, wide;
    narrow.columns = {Ints(TypeId::kUInt32, values)};
    wide.columns = {Ints(TypeId::kInt64, values)};
    std::vector<core::Block> a = PartitionRows(narrow, {narrow.columns[0].get()}, words, 3);
    std::vector<core::Block> b = PartitionRows(wide, {wide.columns[0].get()}, words, 3);
    size_t rows = 0;
    for (const core::Block& part : a) rows += part.rows();
    EXPECT_EQ(rows, values.size());
    std::map<int64_t, size_t> pa = Places(a), pb = Places(b);
    EXPECT_EQ(pa, pb);
    std::set<size_t> used;
    for (const auto& [value, part] : pa) used.insert(part);
    EXPECT_EQ(used.size(), 3u) << "300 keys should spread over every partition";
  }
}

TEST(PartitionRowsTest, KeepsNullsAndEveryColumn) {
  auto keys = std::make_shared<core::Column>(core::WithNullable(TypeId::kInt64, true));
  auto payload = std::make_shared<core::Column>(TypeId::kInt64);
  for (int64_t i = 0; i < 100; ++i) {
    if (i % 10 == 0) {
      keys->AppendNull();
    } else {
      keys->Append<int64_t>(i);
    }
    payload->Append<int64_t>(i * 2);
  }
  core::Block block;
  block.columns = {keys, payload};
  std::vector<core::Block> parts = PartitionRows(block, {keys.get()}, false, 4);
  size_t nulls = 0, rows = 0;
  for (const core::Block& part : parts) {
    ASSERT_EQ(part.columns.size(), 2u);
    ASSERT_TRUE(part.columns[0]->nullable());
    for (size_t r = 0; r < part.rows(); ++r) {
      ++rows;
      if (part.columns[0]->IsNullAt(r)) {
        ++nulls;
        EXPECT_EQ(part.columns[1]->Get<int64_t>(r) % 20, 0);
      } else {
        EXPECT_EQ(part.columns[1]->Get<int64_t>(r), part.columns[0]->Get<int64_t>(r) * 2);
      }
    }
  }
  EXPECT_EQ(rows, 100u);
  EXPECT_EQ(nulls, 10u);
}

TEST(ExchangeInboxTest, HandsOverTheBuildOnceEverySenderEndedIt) {
  ExchangeInbox inbox(2, 1 << 20);
  std::atomic<bool> cancelled{false};
  ASSERT_TRUE(inbox.AddBuild(0, Encoded(3, 10)).ok());
  ASSERT_TRUE(inbox.EndBuild(0).ok());
  std::atomic<bool> taken{false};
  std::thread taker([&] {
    auto build = inbox.TakeBuild(cancelled);
    ASSERT_TRUE(build.ok());
    EXPECT_EQ(build->size(), 2u);
    taken = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(taken.load()) << "sender 1 has not ended its build";
  ASSERT_TRUE(inbox.AddBuild(1, Encoded(2, 10)).ok());
  ASSERT_TRUE(inbox.EndBuild(1).ok());
  taker.join();
  EXPECT_TRUE(taken.load());
  EXPECT_EQ(core::CodeOf(inbox.AddBuild(1, Encoded(1, 1))), core::ErrorCode::kLogicalError);
  EXPECT_EQ(core::CodeOf(inbox.AddBuild(2, Encoded(1, 1))), core::ErrorCode::kLogicalError);
}

TEST(ExchangeInboxTest, AFullProbeQueueHoldsItsSenderUntilDrained) {
  ExchangeInbox inbox(1, 100);
  std::atomic<bool> cancelled{false};
  ASSERT_TRUE(inbox.AddProbe(0, Encoded(1, 80), {}).ok());
  std::atomic<bool> added{false};
  std::thread sender([&] {
    EXPECT_TRUE(inbox.AddProbe(0, Encoded(1, 80), {}).ok());
    added = true;
    EXPECT_TRUE(inbox.EndProbe(0).ok());
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(added.load()) << "the queue holds 80 of 100 bytes";
  int blocks = 0;
  while (true) {
    auto next = inbox.NextProbe(cancelled);
    ASSERT_TRUE(next.ok());
    if (!next->has_value()) break;
    ++blocks;
  }
  sender.join();
  EXPECT_EQ(blocks, 2);
}

TEST(ExchangeInboxTest, CloseAndCancelWakeEveryWait) {
  ExchangeInbox inbox(2, 10);
  std::atomic<bool> cancelled{false};
  ASSERT_TRUE(inbox.AddProbe(0, Encoded(1, 10), {}).ok());
  absl::Status sent, taken;
  std::thread sender([&] { sent = inbox.AddProbe(1, Encoded(1, 10), {}); });
  std::thread taker([&] { taken = inbox.TakeBuild(cancelled).status(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  inbox.Close(core::Error(core::ErrorCode::kMemoryLimitExceeded, "over"));
  sender.join();
  taker.join();
  EXPECT_EQ(core::CodeOf(sent), core::ErrorCode::kMemoryLimitExceeded);
  EXPECT_EQ(core::CodeOf(taken), core::ErrorCode::kMemoryLimitExceeded);

  ExchangeInbox waiting(1, 10);
  std::thread waiter([&] {
    EXPECT_EQ(core::CodeOf(waiting.NextProbe(cancelled).status()),
              core::ErrorCode::kQueryWasCancelled);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  cancelled = true;
  waiter.join();
  std::atomic<bool> gone{false};
  ExchangeInbox full(1, 10);
  ASSERT_TRUE(full.AddProbe(0, Encoded(1, 10), {}).ok());
  std::thread held([&] {
    EXPECT_EQ(core::CodeOf(full.AddProbe(0, Encoded(1, 10), [&] { return gone.load(); })),
              core::ErrorCode::kQueryWasCancelled);
  });
  gone = true;
  held.join();
}

TEST(ExchangeRegistryTest, PeersMayComeFirstAndNotAfterTheEnd) {
  ExchangeRegistry registry;
  auto early = registry.Find(5, 3);
  ASSERT_TRUE(early.ok());
  auto opened = registry.Open(5, 3);
  ASSERT_TRUE(opened.ok());
  EXPECT_EQ(early->get(), opened->get());
  EXPECT_EQ(core::CodeOf(registry.Find(5, 2).status()), core::ErrorCode::kLogicalError);
  EXPECT_EQ(core::CodeOf(registry.Find(6, 0).status()), core::ErrorCode::kLogicalError);
  registry.Finish(5, absl::OkStatus());
  EXPECT_EQ(core::CodeOf(registry.Find(5, 3).status()), core::ErrorCode::kQueryWasCancelled);
  EXPECT_EQ(core::CodeOf((*opened)->AddBuild(0, Encoded(1, 1))),
            core::ErrorCode::kQueryWasCancelled);
}

}  // namespace
}  // namespace granite::worker
