// WorkerSet: the coordinator's connections to its workers, one gRPC channel and stub each.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"

#include "granite/worker/v1/worker.grpc.pb.h"

namespace granite::coordinator {

// Holds one stub per worker address.
// Thread-safety: immutable after construction; stubs are safe for concurrent calls.
class WorkerSet {
 public:
  explicit WorkerSet(const std::vector<std::string>& addresses);

  size_t size() const { return addresses_.size(); }
  const std::string& address(size_t i) const { return addresses_[i]; }
  granite::worker::v1::Worker::Stub* stub(size_t i) const { return stubs_[i].get(); }

  // Runs call(i) for every worker concurrently (one thread each) and returns the first error.
  absl::Status CallAll(const std::function<absl::Status(size_t)>& call) const;

 private:
  std::vector<std::string> addresses_;
  std::vector<std::unique_ptr<granite::worker::v1::Worker::Stub>> stubs_;
};

}  // namespace granite::coordinator
