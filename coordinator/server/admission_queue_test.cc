#include "coordinator/server/admission_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/thread_priority.h"

namespace granite::coordinator {
namespace {

using std::chrono::milliseconds;

// Waits (bounded) until `condition` holds.
template <typename F>
bool Eventually(F condition) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return true;
}

TEST(AdmissionQueueTest, AdmitsUpToTheLimitAtOnce) {
  AdmissionQueue queue(2, 10);
  QueryContext a("a"), b("b");
  auto slot_a = queue.Admit(&a);
  auto slot_b = queue.Admit(&b);
  ASSERT_TRUE(slot_a.ok());
  ASSERT_TRUE(slot_b.ok());
  EXPECT_EQ(queue.running(), 2u);
  EXPECT_EQ(queue.queued(), 0u);
  slot_a->Release();
  EXPECT_EQ(queue.running(), 1u);
}

TEST(AdmissionQueueTest, ZeroMeansNoLimit) {
  AdmissionQueue queue(0, 0);
  std::vector<AdmissionQueue::Slot> slots;
  for (int i = 0; i < 100; ++i) {
    QueryContext query("q");
    auto slot = queue.Admit(&query);
    ASSERT_TRUE(slot.ok());
    slots.push_back(std::move(*slot));
  }
  EXPECT_EQ(queue.running(), 100u);
}

TEST(AdmissionQueueTest, WaitersRunInArrivalOrderWhenSlotsFree) {
  AdmissionQueue queue(1, 10);
  QueryContext first("first");
  auto held = queue.Admit(&first);
  ASSERT_TRUE(held.ok());
  std::mutex order_mu;
  std::vector<int> order;
  std::vector<std::unique_ptr<QueryContext>> queries;
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) {
    queries.push_back(std::make_unique<QueryContext>("w" + std::to_string(i)));
    QueryContext* query = queries.back().get();
    threads.emplace_back([&, i, query] {
      auto slot = queue.Admit(query);
      ASSERT_TRUE(slot.ok());
      std::lock_guard<std::mutex> lock(order_mu);
      order.push_back(i);
    });
    // Queue them one after the other so the arrival order is known.
    ASSERT_TRUE(Eventually([&] { return queue.queued() == static_cast<size_t>(i + 1); }));
    EXPECT_TRUE(query->queued.load());
  }
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_TRUE(order.empty());  // nobody runs while the only slot is held
  held->Release();
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(queue.running(), 0u);
  EXPECT_EQ(queue.queued(), 0u);
  EXPECT_GE(queries[0]->queue_wait_us.load(), 20000u);
  EXPECT_FALSE(queries[0]->queued.load());
}

TEST(AdmissionQueueTest, FullQueueFailsWithTooManySimultaneousQueries) {
  AdmissionQueue queue(1, 1);
  QueryContext running("running"), waiting("waiting"), rejected("rejected");
  auto held = queue.Admit(&running);
  ASSERT_TRUE(held.ok());
  std::thread waiter([&] { EXPECT_TRUE(queue.Admit(&waiting).ok()); });
  ASSERT_TRUE(Eventually([&] { return queue.queued() == 1; }));
  auto refused = queue.Admit(&rejected);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(static_cast<int>(core::CodeOf(refused.status())), 202);
  EXPECT_NE(refused.status().message().find("1 SELECTs already wait"), std::string::npos)
      << refused.status().message();
  held->Release();
  waiter.join();
}

TEST(AdmissionQueueTest, CancelledWaiterLeavesTheQueue) {
  AdmissionQueue queue(1, 10);
  QueryContext running("running"), killed("killed"), next("next");
  auto held = queue.Admit(&running);
  ASSERT_TRUE(held.ok());
  absl::Status killed_status;
  std::thread killed_thread([&] { killed_status = queue.Admit(&killed).status(); });
  ASSERT_TRUE(Eventually([&] { return queue.queued() == 1; }));
  std::atomic<bool> next_admitted{false};
  std::thread next_thread([&] {
    auto slot = queue.Admit(&next);
    EXPECT_TRUE(slot.ok());
    next_admitted = true;
  });
  ASSERT_TRUE(Eventually([&] { return queue.queued() == 2; }));
  killed.Cancel();  // what KILL QUERY and a vanished client do
  killed_thread.join();
  EXPECT_EQ(core::CodeOf(killed_status), core::ErrorCode::kQueryWasCancelled);
  EXPECT_EQ(queue.queued(), 1u);
  EXPECT_EQ(queue.running(), 1u);
  EXPECT_FALSE(next_admitted.load());
  held->Release();  // the slot goes to `next`, not to the cancelled query
  next_thread.join();
  EXPECT_TRUE(next_admitted.load());
  EXPECT_EQ(queue.running(), 0u);
}

TEST(AdmissionQueueTest, AlreadyCancelledQueryIsNotQueued) {
  AdmissionQueue queue(1, 10);
  QueryContext running("running"), cancelled("cancelled");
  auto held = queue.Admit(&running);
  ASSERT_TRUE(held.ok());
  cancelled.Cancel();
  auto refused = queue.Admit(&cancelled);
  EXPECT_EQ(core::CodeOf(refused.status()), core::ErrorCode::kQueryWasCancelled);
  EXPECT_EQ(queue.queued(), 0u);
}

TEST(AdmissionQueueTest, MaxWaitExpires) {
  AdmissionQueue queue(1, 10);
  QueryContext running("running"), impatient("impatient");
  auto held = queue.Admit(&running);
  ASSERT_TRUE(held.ok());
  auto refused = queue.Admit(&impatient, milliseconds(30));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(static_cast<int>(core::CodeOf(refused.status())), 202);
  EXPECT_NE(refused.status().message().find("queue_max_wait_ms = 30"), std::string::npos);
  EXPECT_GE(impatient.queue_wait_us.load(), 30000u);
  EXPECT_EQ(queue.queued(), 0u);
  EXPECT_EQ(queue.running(), 1u);
}

TEST(AdmissionQueueTest, RaisingTheLimitAdmitsWaiters) {
  AdmissionQueue queue(1, 10);
  QueryContext running("running"), waiting("waiting");
  auto held = queue.Admit(&running);
  ASSERT_TRUE(held.ok());
  std::thread waiter([&] { EXPECT_TRUE(queue.Admit(&waiting).ok()); });
  ASSERT_TRUE(Eventually([&] { return queue.queued() == 1; }));
  queue.SetMaxRunning(2);
  waiter.join();
  EXPECT_EQ(queue.queued(), 0u);
}

TEST(AdmissionQueueTest, ManyThreadsNeverExceedTheLimit) {
  AdmissionQueue queue(3, 1000);
  std::atomic<int> inside{0};
  std::atomic<int> peak{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        QueryContext query("q");
        auto slot = queue.Admit(&query);
        ASSERT_TRUE(slot.ok());
        int now = ++inside;
        int seen = peak.load();
        while (now > seen && !peak.compare_exchange_weak(seen, now)) {
        }
        --inside;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_LE(peak.load(), 3);
  EXPECT_EQ(queue.running(), 0u);
  EXPECT_EQ(queue.queued(), 0u);
}

// SetLimitDuringSmallWrites: fewer SELECTs start while small writes arrive, the full limit
// applies again once they stop.
TEST(AdmissionQueueTest, LimitDuringSmallWritesAppliesOnlyWhileTheyArrive) {
  while (core::RecentSmallWrites()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  AdmissionQueue admission(3, 100);
  admission.SetLimitDuringSmallWrites(1);
  QueryContext a("a"), b("b"), c("c"), d("d");
  auto first = admission.Admit(&a);
  auto second = admission.Admit(&b);  // no writes: the limit is 3
  ASSERT_TRUE(first.ok() && second.ok());
  first->Release();
  second->Release();
  core::MarkSmallWrite();
  auto third = admission.Admit(&c);
  ASSERT_TRUE(third.ok());
  auto fourth = admission.Admit(&d, std::chrono::milliseconds(50));  // one at a time now
  EXPECT_EQ(core::CodeOf(fourth.status()), core::ErrorCode::kTooManySimultaneousQueries);
  third->Release();
  std::this_thread::sleep_for(core::kSmallWriteWindow + std::chrono::milliseconds(50));
  QueryContext e("e"), f("f");
  auto fifth = admission.Admit(&e);
  auto sixth = admission.Admit(&f, std::chrono::milliseconds(50));
  EXPECT_TRUE(fifth.ok() && sixth.ok());
}

}  // namespace
}  // namespace granite::coordinator
