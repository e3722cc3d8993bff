#include "core/thread_name.h"

#include <pthread.h>

#include <atomic>
#include <string>
#include <thread>

#include "core/thread_pool.h"
#include "gtest/gtest.h"

namespace granite::core {
namespace {

std::string CurrentThreadName() {
  char name[16] = {};
  EXPECT_EQ(pthread_getname_np(pthread_self(), name, sizeof(name)), 0);
  return name;
}

TEST(ThreadNameTest, NamesTheCallingThreadOnly) {
  std::string before = CurrentThreadName();
  std::string seen;
  std::thread([&] {
    SetCurrentThreadName("part_merge");
    seen = CurrentThreadName();
  }).join();
  EXPECT_EQ(seen, "part_merge");
  EXPECT_EQ(CurrentThreadName(), before);
}

TEST(ThreadNameTest, KeepsTheFirstFifteenBytesOfALongName) {
  std::string seen;
  std::thread([&] {
    SetCurrentThreadName("a_name_longer_than_the_kernel_keeps");
    seen = CurrentThreadName();
  }).join();
  EXPECT_EQ(seen, "a_name_longer_t");
}

TEST(ThreadNameTest, PoolThreadsCarryThePoolsName) {
  ThreadPool pool(2, nullptr, ThreadPool::kDefaultYieldsBeforeSleep, "query_pool");
  std::string seen;
  std::atomic<bool> done{false};
  pool.Submit([&] {
    seen = CurrentThreadName();
    done = true;
  });
  while (!done) std::this_thread::yield();
  EXPECT_EQ(seen, "query_pool");
}

}  // namespace
}  // namespace granite::core
