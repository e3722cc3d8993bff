#include "coordinator/coord/etcd_catalog.h"

#include <gtest/gtest.h>

#include <thread>

#include "absl/strings/numbers.h"
#include "coordinator/coord/etcd_fixture.h"
#include "core/error.h"
#include "core/keeper_error_codes.h"

namespace granite::coordinator {
namespace {

core::TableSchema Schema(const std::string& name, core::TypeId type = core::TypeId::kUInt64) {
  core::TableSchema schema;
  schema.name = name;
  schema.columns.push_back(core::ColumnSchema{"x", type});
  schema.order_by = {"x"};
  schema.engine = "MergeTree";
  schema.settings["index_granularity"] = "1024";
  return schema;
}

// Two coordinators' catalogs kept in one etcd: what one publishes the other's watch applies.
class EtcdCatalogTest : public EtcdFixture {
 protected:
  std::unique_ptr<EtcdCatalog> Start(Catalog* catalog, const std::string& id,
                                     std::chrono::seconds lock_timeout = std::chrono::seconds(30)) {
    EtcdCatalog::Options options;
    options.prefix = "/granite/test";
    options.id = id;
    options.lock_timeout = lock_timeout;
    auto etcd = std::make_unique<EtcdCatalog>(client_.get(), options, catalog);
    absl::Status started = etcd->Start();
    EXPECT_TRUE(started.ok()) << started;
    return etcd;
  }
  // Publishes `catalog` through `etcd` under the DDL lock.
  void Publish(EtcdCatalog* etcd) {
    auto lock = etcd->LockDdl();
    ASSERT_TRUE(lock.ok()) << lock.status();
    absl::Status published = etcd->Publish(**lock);
    ASSERT_TRUE(published.ok()) << published;
  }

  Catalog catalog_a_;
  Catalog catalog_b_;
};

TEST_F(EtcdCatalogTest, ChangesPublishedByOneAreAppliedByTheOther) {
  catalog_a_.Reset(std::vector<core::TableSchema>{});
  catalog_b_.Reset(std::vector<core::TableSchema>{});
  auto a = Start(&catalog_a_, "a:1");
  auto b = Start(&catalog_b_, "b:1");
  catalog_a_.Put(Schema("t"));
  catalog_a_.Put(Schema("d.u"));
  catalog_a_.PutDatabase("d");
  Publish(a.get());  // returns once b has applied it
  ASSERT_TRUE(catalog_b_.Find("t").has_value());
  EXPECT_EQ(*catalog_b_.Find("t"), Schema("t"));
  EXPECT_TRUE(catalog_b_.Find("d.u").has_value());
  EXPECT_TRUE(catalog_b_.HasDatabase("d"));

  // A changed schema, a dropped table; nothing published when nothing changed.
  catalog_b_.Put(Schema("t", core::TypeId::kString));
  catalog_b_.Remove("d.u");
  catalog_b_.RemoveDatabase("d");
  Publish(b.get());
  EXPECT_EQ(catalog_a_.Find("t")->columns[0].type, core::TypeId::kString);
  EXPECT_FALSE(catalog_a_.Find("d.u").has_value());
  EXPECT_FALSE(catalog_a_.HasDatabase("d"));
  auto version = client_->Get("/granite/test/catalog/version");
  ASSERT_TRUE(version.ok() && version->has_value());
  Publish(a.get());
  EXPECT_EQ((*client_->Get("/granite/test/catalog/version"))->mod_revision,
            (*version)->mod_revision);

  // A table the workers disagree about keeps its key as it was.
  std::vector<Catalog::Entry> entries{{Schema("t"), core::Error(core::ErrorCode::kUnknownTable,
                                                                 "incomplete")}};
  catalog_a_.Reset(entries);
  Publish(a.get());
  auto kept = client_->Get("/granite/test/catalog/tables/t");
  ASSERT_TRUE(kept.ok() && kept->has_value());
  EXPECT_EQ(DecodeSchemaFromEtcd((*kept)->value)->columns[0].type, core::TypeId::kString);

  // Both registered themselves.
  auto members = client_->GetPrefix("/granite/test/coordinators/");
  ASSERT_TRUE(members.ok());
  ASSERT_EQ(members->kvs.size(), 2u);
  EXPECT_EQ(members->kvs[0].key, "/granite/test/coordinators/a:1");
  int64_t applied = 0;
  ASSERT_TRUE(absl::SimpleAtoi(members->kvs[1].value, &applied));
  EXPECT_GE(applied, (*client_->Get("/granite/test/catalog/version"))->mod_revision);
  b->Stop();
  EXPECT_EQ(client_->GetPrefix("/granite/test/coordinators/")->kvs.size(), 1u);
}

TEST_F(EtcdCatalogTest, DdlLockIsExclusiveAcrossCoordinators) {
  auto a = Start(&catalog_a_, "a:1");
  auto b = Start(&catalog_b_, "b:1", std::chrono::seconds(1));
  auto held = a->LockDdl();
  ASSERT_TRUE(held.ok()) << held.status();
  auto refused = b->LockDdl();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(core::CodeOf(refused.status()), core::kKeeperException);
  EXPECT_NE(refused.status().message().find("a:1"), std::string::npos) << refused.status();
  held->reset();  // released
  auto taken = b->LockDdl();
  EXPECT_TRUE(taken.ok()) << taken.status();
}

TEST_F(EtcdCatalogTest, DownEtcdFailsDdlButNotCatchUp) {
  catalog_a_.Reset(std::vector<core::TableSchema>{Schema("t")});
  auto a = Start(&catalog_a_, "a:1");
  etcd_->Kill();
  a->CatchUp();  // returns: statements go on with the cached catalog
  EXPECT_TRUE(catalog_a_.Find("t").has_value());
  auto lock = a->LockDdl();
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(core::CodeOf(lock.status()), core::kKeeperException);
  EXPECT_NE(lock.status().message().find(etcd_->endpoint()), std::string::npos) << lock.status();
}

TEST(EtcdSchemaTest, RoundTrips) {
  core::TableSchema schema = Schema("db.t", core::TypeId::kString);
  schema.sharding_key = {"x"};
  schema.shard_count = 3;
  auto decoded = DecodeSchemaFromEtcd(EncodeSchemaForEtcd(schema));
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, schema);
  EXPECT_EQ(core::CodeOf(DecodeSchemaFromEtcd("\xff\xff garbage").status()),
            core::ErrorCode::kCorruptedData);
}

}  // namespace
}  // namespace granite::coordinator
