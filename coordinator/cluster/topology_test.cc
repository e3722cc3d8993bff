#include "coordinator/cluster/topology.h"

#include <gtest/gtest.h>

#include "coordinator/exec/replicated_insert.h"
#include "core/error.h"

namespace granite::coordinator {
namespace {

using core::CodeOf;
using core::ErrorCode;

TEST(TopologyTest, ShardsSpecListsReplicasShardMajor) {
  absl::StatusOr<Topology> t = ParseTopology("h1:9200,h2:9200;h3:9200,h4:9200", "", 1);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->replicas, 2u);
  EXPECT_EQ(t->shards(), 2u);
  EXPECT_EQ(t->addresses,
            (std::vector<std::string>{"h1:9200", "h2:9200", "h3:9200", "h4:9200"}));
}

TEST(TopologyTest, WorkersWithReplicasGroupConsecutiveWorkers) {
  absl::StatusOr<Topology> t = ParseTopology("", "w-{0..5}.svc:9200", 2);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->shards(), 3u);
  EXPECT_EQ(t->addresses[3], "w-3.svc:9200");
  absl::StatusOr<Topology> plain = ParseTopology("", "a:1,b:2", 1);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->replicas, 1u);
  EXPECT_EQ(plain->shards(), 2u);
}

TEST(TopologyTest, RefusesUnevenOrAmbiguousSpecs) {
  EXPECT_EQ(CodeOf(ParseTopology("a:1,b:1;c:1", "", 1).status()), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(ParseTopology("a:1", "b:1", 1).status()), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(ParseTopology("", "a:1,b:1,c:1", 2).status()), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(ParseTopology("a:1,a:1", "", 1).status()), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(ParseTopology("a:1;b:1", "", 2).status()), ErrorCode::kBadArguments);
  EXPECT_EQ(CodeOf(ParseTopology("", "a:1", 0).status()), ErrorCode::kBadArguments);
}

TEST(TopologyTest, InsertQuorumDefaultsToAMajority) {
  EXPECT_EQ(*QuorumOf("auto", 2), 2u);
  EXPECT_EQ(*QuorumOf("auto", 3), 2u);
  EXPECT_EQ(*QuorumOf("0", 3), 1u);
  EXPECT_EQ(*QuorumOf("1", 2), 1u);
  EXPECT_EQ(CodeOf(QuorumOf("3", 2).status()), ErrorCode::kTooFewLiveReplicas);
  EXPECT_EQ(CodeOf(QuorumOf("many", 2).status()), ErrorCode::kBadArguments);
}

}  // namespace
}  // namespace granite::coordinator
