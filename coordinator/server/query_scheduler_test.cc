#include "coordinator/server/query_scheduler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/mutex.h"

namespace granite::coordinator {
namespace {

using std::chrono::milliseconds;

template <typename F>
bool Eventually(F condition) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return true;
}

// Returns this process's thread count (Linux /proc/self/status).
// Returns the process's threads, leaving out jemalloc's background purging threads
// ("jemalloc_bg_thd"), which jemalloc starts on its own schedule.
int ThreadCount() {
  int count = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    if (name.rfind("jemalloc_bg_thd", 0) != 0) ++count;
  }
  return count;
}

// A latch the SELECT tasks of a test block on until it opens.
class Gate {
 public:
  void Open() {
    core::MutexLock lock(mu_);
    open_ = true;
    opened_.notify_all();
  }
  void Wait() {
    core::MutexLock lock(mu_);
    while (!open_) opened_.wait(mu_);
  }

 private:
  core::Mutex mu_{"test_gate"};
  std::condition_variable_any opened_;
  bool open_ GUARDED_BY(mu_) = false;
};

// Which queries are admitted, short or lowered is decided from their parse tree:
// statement_kind_test.cc.

// A short query runs on the calling thread when no other-executor query is in flight and none
// runs inline; otherwise, and without may_run_inline, on the executor.
TEST(QuerySchedulerTest, ShortQueryRunsInlineOnlyWhenNothingElseRuns) {
  AdmissionQueue admission(2, 100);
  QueryScheduler scheduler(&admission, 1, 2);
  const std::thread::id caller = std::this_thread::get_id();
  std::thread::id ran;
  scheduler.ScheduleOther([&] { ran = std::this_thread::get_id(); }, /*may_run_inline=*/true);
  EXPECT_EQ(ran, caller);

  std::atomic<bool> plain_done{false};
  std::thread::id plain;
  scheduler.ScheduleOther([&] {
    plain = std::this_thread::get_id();
    plain_done = true;
  });
  ASSERT_TRUE(Eventually([&] { return plain_done.load(); }));
  EXPECT_NE(plain, caller);

  // One query blocks on the executor: a short one arriving now goes to the executor too.
  Gate gate;
  std::atomic<bool> blocked_done{false};
  scheduler.ScheduleOther([&] {
    gate.Wait();
    blocked_done = true;
  });
  std::atomic<bool> second_done{false};
  std::thread::id second;
  scheduler.ScheduleOther(
      [&] {
        second = std::this_thread::get_id();
        second_done = true;
      },
      /*may_run_inline=*/true);
  ASSERT_TRUE(Eventually([&] { return second_done.load(); }));
  EXPECT_NE(second, caller);
  gate.Open();
  ASSERT_TRUE(Eventually([&] { return blocked_done.load(); }));

  // Inside an inline query, another short one (another caller) goes to the executor.
  std::atomic<bool> nested_done{false};
  std::thread::id outer, nested;
  scheduler.ScheduleOther(
      [&] {
        outer = std::this_thread::get_id();
        std::thread other([&] {
          scheduler.ScheduleOther(
              [&] {
                nested = std::this_thread::get_id();
                nested_done = true;
              },
              /*may_run_inline=*/true);
        });
        other.join();
        EXPECT_TRUE(Eventually([&] { return nested_done.load(); }));
      },
      /*may_run_inline=*/true);
  EXPECT_EQ(outer, caller);
  EXPECT_TRUE(nested_done.load());
  EXPECT_NE(nested, caller);
  EXPECT_NE(nested, std::thread::id());
}

// An INSERT completes while every SELECT slot is held by a blocked SELECT and more SELECTs queue.
TEST(QuerySchedulerTest, InsertRunsWhileAllSelectSlotsAreBlocked) {
  AdmissionQueue admission(2, 100);
  QueryScheduler scheduler(&admission, 2, 2);
  Gate gate;
  std::vector<std::unique_ptr<QueryContext>> queries;
  std::atomic<int> selects_done{0};
  for (int i = 0; i < 6; ++i) {
    queries.push_back(std::make_unique<QueryContext>("s" + std::to_string(i)));
    scheduler.ScheduleSelect(queries.back().get(), [&](absl::StatusOr<AdmissionQueue::Slot> s) {
      ASSERT_TRUE(s.ok());
      gate.Wait();
      ++selects_done;
    });
  }
  ASSERT_TRUE(Eventually([&] { return admission.running() == 2 && admission.queued() == 4; }));
  std::atomic<bool> inserted{false};
  scheduler.ScheduleOther([&] { inserted = true; });
  EXPECT_TRUE(Eventually([&] { return inserted.load(); }));
  EXPECT_EQ(selects_done.load(), 0);
  gate.Open();
  EXPECT_TRUE(Eventually([&] { return selects_done.load() == 6; }));
  EXPECT_TRUE(Eventually([&] { return admission.running() == 0; }));
}

// 300 concurrent SELECTs complete on a 2-thread executor; queued ones hold no thread.
TEST(QuerySchedulerTest, ManyQueriesCompleteWithBoundedThreads) {
  AdmissionQueue admission(2, 1000);
  Gate gate;
  int before = ThreadCount();
  QueryScheduler scheduler(&admission, 2, 2);
  constexpr int kQueries = 300;
  std::vector<std::unique_ptr<QueryContext>> queries;
  std::atomic<int> done{0};
  for (int i = 0; i < kQueries; ++i) {
    queries.push_back(std::make_unique<QueryContext>("q" + std::to_string(i)));
    scheduler.ScheduleSelect(queries.back().get(), [&](absl::StatusOr<AdmissionQueue::Slot> s) {
      EXPECT_TRUE(s.ok());
      gate.Wait();
      ++done;
    });
  }
  EXPECT_EQ(admission.queued(), static_cast<size_t>(kQueries - 2));
  EXPECT_LE(ThreadCount(), before + 4);  // the two executors' threads, nothing per query
  gate.Open();
  EXPECT_TRUE(Eventually([&] { return done.load() == kQueries; }));
  EXPECT_TRUE(Eventually([&] { return admission.running() == 0 && admission.queued() == 0; }));
}

// A queued SELECT that is cancelled (KILL QUERY, client gone) gets QUERY_WAS_CANCELLED at once,
// without waiting for a slot, and takes none: the next queued query gets the freed slot.
TEST(QuerySchedulerTest, CancelledQueuedQueryEndsAndTakesNoSlot) {
  AdmissionQueue admission(1, 100);
  QueryScheduler scheduler(&admission, 1, 1);
  Gate gate;
  QueryContext running("running"), victim("victim"), next("next");
  std::atomic<bool> next_ran{false};
  std::atomic<int> victim_code{-1};
  scheduler.ScheduleSelect(&running, [&](absl::StatusOr<AdmissionQueue::Slot> s) {
    ASSERT_TRUE(s.ok());
    gate.Wait();
  });
  scheduler.ScheduleSelect(&victim, [&](absl::StatusOr<AdmissionQueue::Slot> s) {
    victim_code = s.ok() ? 0 : static_cast<int>(core::CodeOf(s.status()));
  });
  scheduler.ScheduleSelect(&next, [&](absl::StatusOr<AdmissionQueue::Slot> s) {
    next_ran = s.ok();
  });
  ASSERT_TRUE(Eventually([&] { return admission.queued() == 2; }));
  EXPECT_TRUE(victim.queued.load());
  victim.Cancel();
  EXPECT_TRUE(Eventually([&] { return victim_code.load() != -1; }));
  EXPECT_EQ(victim_code.load(), static_cast<int>(core::ErrorCode::kQueryWasCancelled));
  EXPECT_FALSE(victim.queued.load());
  EXPECT_EQ(admission.queued(), 1u);
  victim.Cancel();  // a second KILL finds nothing to do
  gate.Open();
  EXPECT_TRUE(Eventually([&] { return next_ran.load(); }));
  EXPECT_TRUE(Eventually([&] { return admission.running() == 0; }));
}

// A query cancelled before it asks for admission is refused at once.
TEST(QuerySchedulerTest, QueryCancelledBeforeAdmissionIsRefused) {
  AdmissionQueue admission(1, 100);
  QueryScheduler scheduler(&admission, 1, 1);
  QueryContext holder("holder"), late("late");
  auto slot = admission.Admit(&holder);
  ASSERT_TRUE(slot.ok());
  late.Cancel();
  std::atomic<int> code{-1};
  scheduler.ScheduleSelect(&late, [&](absl::StatusOr<AdmissionQueue::Slot> s) {
    code = s.ok() ? 0 : static_cast<int>(core::CodeOf(s.status()));
  });
  EXPECT_TRUE(Eventually([&] { return code.load() != -1; }));
  EXPECT_EQ(code.load(), static_cast<int>(core::ErrorCode::kQueryWasCancelled));
  EXPECT_EQ(admission.queued(), 0u);
}

// A full queue refuses with TOO_MANY_SIMULTANEOUS_QUERIES.
TEST(QuerySchedulerTest, FullQueueRefuses) {
  AdmissionQueue admission(1, 1);
  QueryScheduler scheduler(&admission, 1, 1);
  QueryContext holder("holder"), waiting("waiting"), refused("refused");
  auto slot = admission.Admit(&holder);
  ASSERT_TRUE(slot.ok());
  std::atomic<int> waiting_code{-1}, refused_code{-1};
  scheduler.ScheduleSelect(&waiting, [&](absl::StatusOr<AdmissionQueue::Slot> s) {
    waiting_code = s.ok() ? 0 : static_cast<int>(core::CodeOf(s.status()));
  });
  scheduler.ScheduleSelect(&refused, [&](absl::StatusOr<AdmissionQueue::Slot> s) {
    refused_code = s.ok() ? 0 : static_cast<int>(core::CodeOf(s.status()));
  });
  EXPECT_TRUE(Eventually([&] { return refused_code.load() != -1; }));
  EXPECT_EQ(refused_code.load(), static_cast<int>(core::ErrorCode::kTooManySimultaneousQueries));
  slot->Release();
  EXPECT_TRUE(Eventually([&] { return waiting_code.load() == 0; }));
}

// run_alone_inline: a lone SELECT with a free slot runs on the scheduling thread, holding its slot;
// a SELECT scheduled while it runs goes to the executor; a queued one never runs on the thread
// that frees the slot (AdmitAsync's callback may run under a lock there).
TEST(QuerySchedulerTest, LoneSelectRunsInlineOthersOnTheExecutor) {
  AdmissionQueue admission(2, 100);
  QueryScheduler scheduler(&admission, 2, 2, /*run_alone_inline=*/true);
  const std::thread::id caller = std::this_thread::get_id();
  QueryContext lone("lone"), second("second");
  std::thread::id lone_thread, second_thread;
  std::atomic<bool> second_done{false};
  scheduler.ScheduleSelect(&lone, [&](absl::StatusOr<AdmissionQueue::Slot> s) {
    ASSERT_TRUE(s.ok());
    lone_thread = std::this_thread::get_id();
    EXPECT_EQ(admission.running(), 1u);
    // Another SELECT arrives while this one runs: two in flight, so it goes to the executor.
    std::thread other([&] {
      scheduler.ScheduleSelect(&second, [&](absl::StatusOr<AdmissionQueue::Slot> t) {
        EXPECT_TRUE(t.ok());
        second_thread = std::this_thread::get_id();
        second_done = true;
      });
    });
    other.join();
    EXPECT_TRUE(Eventually([&] { return second_done.load(); }));
  });
  // The lone SELECT ran before ScheduleSelect returned, on this thread.
  EXPECT_EQ(lone_thread, caller);
  EXPECT_TRUE(second_done.load());
  EXPECT_NE(second_thread, caller);
  EXPECT_NE(second_thread, std::thread::id());
  EXPECT_TRUE(Eventually([&] { return admission.running() == 0; }));

  // No free slot: the lone SELECT queues, and runs on the executor once the slot is released
  // here, not on this (releasing) thread.
  QueryContext holder("holder"), queued("queued");
  auto slot = admission.Admit(&holder);
  AdmissionQueue::Slot other_slot;
  {
    QueryContext holder2("holder2");
    auto held = admission.Admit(&holder2);
    ASSERT_TRUE(held.ok());
    other_slot = std::move(*held);
  }
  ASSERT_TRUE(slot.ok());
  std::atomic<bool> queued_done{false};
  std::thread::id queued_thread;
  scheduler.ScheduleSelect(&queued, [&](absl::StatusOr<AdmissionQueue::Slot> s) {
    EXPECT_TRUE(s.ok());
    queued_thread = std::this_thread::get_id();
    queued_done = true;
  });
  EXPECT_FALSE(queued_done.load());
  EXPECT_EQ(admission.queued(), 1u);
  slot->Release();
  EXPECT_TRUE(Eventually([&] { return queued_done.load(); }));
  EXPECT_NE(queued_thread, caller);
  other_slot.Release();
  EXPECT_TRUE(Eventually([&] { return admission.running() == 0; }));
}

// run_alone_inline: after SELECTs overlapped, the first lone SELECT still goes to the executor (it
// ends the overlap period), the next lone ones run on the calling thread.
TEST(QuerySchedulerTest, InlineOnlyAfterAPeriodWithoutOverlap) {
  AdmissionQueue admission(1, 100);
  QueryScheduler scheduler(&admission, 1, 1, /*run_alone_inline=*/true);
  const std::thread::id caller = std::this_thread::get_id();
  QueryContext holder("holder"), queued("queued"), first("first"), second("second");
  auto slot = admission.Admit(&holder);
  ASSERT_TRUE(slot.ok());
  std::atomic<bool> queued_done{false};
  scheduler.ScheduleSelect(&queued, [&](absl::StatusOr<AdmissionQueue::Slot> s) {
    EXPECT_TRUE(s.ok());
    queued_done = true;
  });
  slot->Release();
  ASSERT_TRUE(Eventually([&] { return queued_done.load() && admission.Idle(); }));
  std::atomic<bool> first_done{false};
  std::thread::id first_thread;
  scheduler.ScheduleSelect(&first, [&](absl::StatusOr<AdmissionQueue::Slot> s) {
    EXPECT_TRUE(s.ok());
    first_thread = std::this_thread::get_id();
    first_done = true;
  });
  ASSERT_TRUE(Eventually([&] { return first_done.load() && admission.Idle(); }));
  EXPECT_NE(first_thread, caller);
  bool second_here = false;
  scheduler.ScheduleSelect(&second, [&](absl::StatusOr<AdmissionQueue::Slot> s) {
    second_here = s.ok() && std::this_thread::get_id() == caller;
  });
  EXPECT_TRUE(second_here);
  EXPECT_TRUE(admission.Idle());
  // A lowered SELECT (may_run_inline false) goes to the executor even then.
  QueryContext lowered("lowered");
  std::atomic<bool> lowered_done{false};
  std::thread::id lowered_thread;
  scheduler.ScheduleSelect(
      &lowered,
      [&](absl::StatusOr<AdmissionQueue::Slot> s) {
        EXPECT_TRUE(s.ok());
        lowered_thread = std::this_thread::get_id();
        lowered_done = true;
      },
      /*may_run_inline=*/false);
  ASSERT_TRUE(Eventually([&] { return lowered_done.load() && admission.Idle(); }));
  EXPECT_NE(lowered_thread, caller);
  // A cancelled lone query is admitted at once (its run sees the cancellation, as on the
  // executor) and runs here too.
  QueryContext cancelled("cancelled");
  cancelled.Cancel();
  bool ran_here = false;
  scheduler.ScheduleSelect(&cancelled, [&](absl::StatusOr<AdmissionQueue::Slot> s) {
    ran_here = s.ok() && std::this_thread::get_id() == caller;
  });
  EXPECT_TRUE(ran_here);
}

}  // namespace
}  // namespace granite::coordinator
