// EtcdFixture: the gtest fixture of the etcd tests — a real etcd (the etcd-server package,
// installed by scripts/install-deps.sh) started on free loopback ports with its data in a
// temporary folder, and a client for it. Test-only.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "coordinator/coord/etcd_client.h"
#include "coordinator/coord/etcd_process.h"

namespace granite::coordinator {

class EtcdFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "etcd_test_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    auto process = EtcdProcess::Start(dir_);
    ASSERT_TRUE(process.ok()) << process.status();
    etcd_ = std::move(*process);
    // A fresh etcd's first writes wait for its WAL fsyncs; on a loaded machine (CI's other
    // tests) they can pass the 3 s production deadline. A down etcd still fails at once
    // (connection refused), so the tests of failures are unchanged.
    EtcdClient::Options options;
    options.timeout = std::chrono::seconds(20);
    auto client = EtcdClient::Create(etcd_->endpoint(), options);
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = std::move(*client);
  }
  void TearDown() override {
    client_.reset();
    etcd_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::string dir_;
  std::unique_ptr<EtcdProcess> etcd_;
  std::unique_ptr<EtcdClient> client_;
};

}  // namespace granite::coordinator
