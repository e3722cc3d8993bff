#include "coordinator/coord/etcd_client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "coordinator/coord/etcd_fixture.h"
#include "coordinator/coord/etcd_session.h"
#include "coordinator/coord/etcd_watch.h"
#include "core/error.h"
#include "core/keeper_error_codes.h"

namespace granite::coordinator {
namespace {

using EtcdClientTest = EtcdFixture;

TEST_F(EtcdClientTest, PutGetPrefixDelete) {
  auto first = client_->Put("/g/a", "1");
  ASSERT_TRUE(first.ok()) << first.status();
  auto revision = client_->Put("/g/b", "2");
  ASSERT_TRUE(revision.ok()) << revision.status();
  ASSERT_TRUE(client_->Put("/h/c", "3").ok());
  auto a = client_->Get("/g/a");
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ((*a)->value, "1");
  EXPECT_EQ((*a)->version, 1);
  auto missing = client_->Get("/g/zz");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
  auto range = client_->GetPrefix("/g/");
  ASSERT_TRUE(range.ok());
  ASSERT_EQ(range->kvs.size(), 2u);
  EXPECT_EQ(range->kvs[0].key, "/g/a");
  EXPECT_EQ(range->kvs[1].key, "/g/b");
  EXPECT_EQ(range->kvs[1].mod_revision, *revision);
  EXPECT_GE(range->revision, *revision + 1);
  auto deleted = client_->Delete("/g/a");
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, 1);
  EXPECT_EQ(client_->GetPrefix("/g/")->kvs.size(), 1u);
  auto current = client_->Revision("/anything");
  ASSERT_TRUE(current.ok());
  EXPECT_EQ(*current, range->revision + 1);
}

TEST_F(EtcdClientTest, CompareAndSwapCreatesOnce) {
  auto create = [&](const std::string& value) {
    return client_->Txn({EtcdCompare::Missing("/g/t")}, {EtcdOp::Put("/g/t", value)},
                        {EtcdOp::GetPrefix("/g/t")});
  };
  auto first = create("one");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(first->succeeded);
  auto second = create("two");
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->succeeded);
  ASSERT_EQ(second->gets.size(), 1u);
  ASSERT_EQ(second->gets[0].size(), 1u);
  EXPECT_EQ(second->gets[0][0].value, "one");
  // A swap conditioned on the last revision.
  int64_t seen = second->gets[0][0].mod_revision;
  auto swap = client_->Txn({EtcdCompare::ModRevisionIs("/g/t", seen)}, {EtcdOp::Put("/g/t", "3")});
  ASSERT_TRUE(swap.ok());
  EXPECT_TRUE(swap->succeeded);
  auto stale = client_->Txn({EtcdCompare::ModRevisionIs("/g/t", seen)}, {EtcdOp::Put("/g/t", "4")});
  ASSERT_TRUE(stale.ok());
  EXPECT_FALSE(stale->succeeded);
  EXPECT_EQ((*client_->Get("/g/t"))->value, "3");
  auto by_value = client_->Txn({EtcdCompare::ValueIs("/g/t", "3")}, {EtcdOp::DeletePrefix("/g/")});
  ASSERT_TRUE(by_value.ok());
  EXPECT_TRUE(by_value->succeeded);
  EXPECT_TRUE(client_->GetPrefix("/g/")->kvs.empty());
}

TEST_F(EtcdClientTest, LeaseKeepsKeysAliveUntilRevoked) {
  auto lease = client_->GrantLease(std::chrono::seconds(5));
  ASSERT_TRUE(lease.ok()) << lease.status();
  ASSERT_TRUE(client_->Put("/g/member", "me", *lease).ok());
  auto ttl = client_->KeepAlive(*lease);
  ASSERT_TRUE(ttl.ok()) << ttl.status();
  EXPECT_GT(*ttl, 0);
  EXPECT_EQ((*client_->Get("/g/member"))->lease, *lease);
  ASSERT_TRUE(client_->RevokeLease(*lease).ok());
  EXPECT_FALSE(client_->Get("/g/member")->has_value());
  auto expired = client_->KeepAlive(*lease);
  ASSERT_TRUE(expired.ok());
  EXPECT_EQ(*expired, 0);
}

TEST_F(EtcdClientTest, SessionKeepsItsKeysAndRevokesThemOnStop) {
  auto session = std::make_unique<EtcdSession>(client_.get(), std::chrono::seconds(2));
  session->Start();
  ASSERT_TRUE(session->Keep("/g/coordinators/a", "addr").ok());
  // Three TTLs: the key lives on only because the session renews the lease.
  std::this_thread::sleep_for(std::chrono::seconds(6));
  EXPECT_TRUE(client_->Get("/g/coordinators/a")->has_value());
  session->Stop();
  EXPECT_FALSE(client_->Get("/g/coordinators/a")->has_value());
}

TEST_F(EtcdClientTest, SessionWritesItsKeysAgainUnderANewLease) {
  EtcdSession session(client_.get(), std::chrono::seconds(3));
  session.Start();
  ASSERT_TRUE(session.Keep("/g/coordinators/a", "1").ok());
  ASSERT_TRUE(session.Keep("/g/coordinators/a", "2").ok());  // a new value, kept as well
  auto first = session.Lease();
  ASSERT_TRUE(first.ok());
  // The lease disappears as if etcd had been away longer than its TTL.
  ASSERT_TRUE(client_->RevokeLease(*first).ok());
  EXPECT_FALSE(client_->Get("/g/coordinators/a")->has_value());
  std::optional<EtcdKeyValue> back;
  for (int i = 0; i < 300 && !back.has_value(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    back = *client_->Get("/g/coordinators/a");
  }
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->value, "2");
  EXPECT_NE(back->lease, *first);
  session.Stop();
}

// Collects what a watch delivers.
struct Seen {
  std::mutex mu;
  std::vector<EtcdEvent> events;
  std::vector<int64_t> revisions;
  EtcdWatch::Handler Handler() {
    return [this](const std::vector<EtcdEvent>& batch, int64_t revision) {
      std::lock_guard<std::mutex> lock(mu);
      events.insert(events.end(), batch.begin(), batch.end());
      revisions.push_back(revision);
    };
  }
  std::vector<std::string> Keys() {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<std::string> keys;
    for (const EtcdEvent& event : events) keys.push_back((event.deleted ? "-" : "+") + event.kv.key);
    return keys;
  }
};

TEST_F(EtcdClientTest, WatchDeliversEventsInOrderAndResumesAfterRestart) {
  ASSERT_TRUE(client_->Put("/w/before", "x").ok());
  auto start = client_->Revision("/w/");
  ASSERT_TRUE(start.ok());
  Seen seen;
  std::atomic<int> resyncs{0};
  EtcdWatch watch(client_.get(), "/w/", *start, seen.Handler(), [&]() -> absl::StatusOr<int64_t> {
    ++resyncs;
    return client_->Revision("/w/");
  });
  watch.Start();
  auto put = client_->Put("/w/a", "1");
  ASSERT_TRUE(put.ok());
  ASSERT_TRUE(client_->Put("/other", "ignored").ok());
  auto removed = client_->Delete("/w/a");
  ASSERT_TRUE(removed.ok());
  auto last = client_->Revision("/w/");
  ASSERT_TRUE(last.ok());
  // WaitFor returns at once while the stream is not connected yet: poll (bounded).
  auto wait_until = [&](int64_t revision) {
    for (int i = 0; i < 600 && !watch.WaitFor(revision, std::chrono::milliseconds(50)); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return watch.revision() >= revision;
  };
  ASSERT_TRUE(wait_until(*last - 1));
  EXPECT_TRUE(watch.connected());
  EXPECT_EQ(seen.Keys(), (std::vector<std::string>{"+/w/a", "-/w/a"}));
  EXPECT_EQ(seen.events[0].kv.mod_revision, *put);

  // etcd killed and restarted: changes made while the watch was disconnected and after it
  // reconnected arrive once each, in order.
  etcd_->Kill();
  EXPECT_FALSE(watch.WaitFor(*last + 100, std::chrono::milliseconds(100)));
  ASSERT_TRUE(etcd_->Restart().ok());
  ASSERT_TRUE(client_->Put("/w/b", "2").ok());
  auto after = client_->Put("/w/c", "3");
  ASSERT_TRUE(after.ok());
  ASSERT_TRUE(wait_until(*after));
  EXPECT_EQ(seen.Keys(), (std::vector<std::string>{"+/w/a", "-/w/a", "+/w/b", "+/w/c"}));
  EXPECT_EQ(watch.revision(), *after);
  EXPECT_EQ(resyncs.load(), 0);
  watch.Stop();
}

TEST_F(EtcdClientTest, DownEtcdFailsWithKeeperExceptionNamingIt) {
  etcd_->Kill();
  auto start = std::chrono::steady_clock::now();
  auto got = client_->Get("/g/a");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(core::CodeOf(got.status()), core::kKeeperException);
  EXPECT_NE(got.status().message().find(etcd_->endpoint()), std::string::npos) << got.status();
  EXPECT_EQ(core::ErrorName(core::kKeeperException), "KEEPER_EXCEPTION");
  auto txn = client_->Txn({EtcdCompare::Missing("/g/t")}, {EtcdOp::Put("/g/t", "v")});
  EXPECT_EQ(core::CodeOf(txn.status()), core::kKeeperException);
  // Bounded by the calls' deadlines, never a hang.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  ASSERT_TRUE(etcd_->Restart().ok());
  bool back = false;
  for (int i = 0; i < 100 && !back; ++i) {
    back = client_->Put("/g/a", "again").ok();
    if (!back) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(back);
}

TEST(EtcdEndpointsTest, RejectsMalformedLists) {
  EXPECT_EQ(core::CodeOf(EtcdClient::Create("").status()), core::ErrorCode::kBadArguments);
  EXPECT_EQ(core::CodeOf(EtcdClient::Create("localhost").status()), core::ErrorCode::kBadArguments);
  EXPECT_EQ(core::CodeOf(EtcdClient::Create("a:1,b:x").status()), core::ErrorCode::kBadArguments);
  auto two = EtcdClient::Create("a:2379, http://b:2379");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ((*two)->endpoints(), "a:2379,b:2379");
  EXPECT_EQ(EtcdClient::PrefixEnd("/g/"), "/g0");
  EXPECT_EQ(EtcdClient::PrefixEnd(std::string("a\xff", 2)), "b");
}

}  // namespace
}  // namespace granite::coordinator
