// Topology: a cluster of S shards x R replicas, as the coordinator's flags give it.
//   --shards 'h1:9200,h2:9200;h3:9200,h4:9200'   shards separated by ';', each shard's replicas by
//                                                 ',' (each item as --workers takes it, brace
//                                                 ranges and @files included)
//   --workers LIST --replicas R                   LIST in shard-major order: R consecutive workers
//                                                 form a shard (a StatefulSet's pods 0..S*R-1)
// R = 1 is the cluster without replicas. Addresses come out shard-major: replica r of shard s at
// s * R + r (coordinator/cluster/worker_set.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace granite::coordinator {

struct Topology {
  std::vector<std::string> addresses;  // shard-major
  size_t replicas = 1;
  size_t shards() const { return addresses.size() / replicas; }
};

// Errors (BAD_ARGUMENTS): both or neither spec, shards of different replica counts, a worker
// count that is not a multiple of `replicas`, replicas = 0, and ExpandWorkerSpec's errors.
absl::StatusOr<Topology> ParseTopology(std::string_view shards_spec, std::string_view workers_spec,
                                       size_t replicas);

}  // namespace granite::coordinator
