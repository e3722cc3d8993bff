#include "coordinator/cluster/replica_monitor.h"

#include <gtest/gtest.h>

namespace granite::coordinator {
namespace {

ReplicaState Behind(size_t process, const std::string& table, uint64_t blocks_behind) {
  ReplicaState state;
  state.process = process;
  state.table = table;
  state.reachable = true;
  state.blocks_behind = blocks_behind;
  return state;
}

// One shard of three replicas (processes 0, 1, 2), no membership: all serving.
TEST(ReplicaMonitorTest, ALaggingReplicaIsReadAfterThoseWithinTheDelay) {
  ReplicaMonitor monitor({"a:1", "b:1", "c:1"}, 3);
  EXPECT_EQ(monitor.ReadOrder(0, LoadBalancing::kInOrder), (std::vector<size_t>{0, 1, 2}));
  // Its worst table counts.
  monitor.PublishStates({Behind(0, "t", 0), Behind(0, "u", 4), Behind(1, "t", 0)});
  EXPECT_EQ(monitor.Lag(0), 4u);
  EXPECT_EQ(monitor.ReadOrder(0, LoadBalancing::kInOrder), (std::vector<size_t>{1, 2, 0}));
  // Within max_delay it keeps its place.
  EXPECT_EQ(monitor.ReadOrder(0, LoadBalancing::kInOrder, 4), (std::vector<size_t>{0, 1, 2}));
  // Every replica lags: the least behind first (fallback to stale replicas).
  monitor.PublishStates({Behind(0, "t", 5), Behind(1, "t", 2), Behind(2, "t", 9)});
  EXPECT_EQ(monitor.ReadOrder(0, LoadBalancing::kInOrder), (std::vector<size_t>{1, 0, 2}));
  // Caught up: back to the policy's order.
  monitor.PublishStates({});
  EXPECT_EQ(monitor.ReadOrder(0, LoadBalancing::kInOrder), (std::vector<size_t>{0, 1, 2}));
}

TEST(ReplicaMonitorTest, ACopyInProgressShowsUntilTheNextPass) {
  ReplicaMonitor monitor({"a:1", "b:1"}, 2);
  monitor.PublishStates({Behind(0, "t", 3), Behind(1, "t", 0)});
  monitor.MarkState(0, "t", "cloning");
  monitor.MarkState(1, "u", "cloning");  // a table the last pass did not list
  std::vector<ReplicaState> states = monitor.States();
  ASSERT_EQ(states.size(), 3u);
  EXPECT_EQ(states[0].state, "cloning");
  EXPECT_EQ(states[0].blocks_behind, 3u);
  EXPECT_EQ(states[2].table, "u");
  EXPECT_EQ(states[2].state, "cloning");
  monitor.PublishStates({Behind(0, "t", 0)});
  EXPECT_EQ(monitor.States()[0].state, "");
}

}  // namespace
}  // namespace granite::coordinator
