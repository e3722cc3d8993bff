#include "coordinator/cluster/topology.h"

#include <set>

#include "absl/strings/str_split.h"
#include "coordinator/cluster/membership.h"
#include "core/error.h"

namespace granite::coordinator {

using core::Error;
using core::ErrorCode;

absl::StatusOr<Topology> ParseTopology(std::string_view shards_spec, std::string_view workers_spec,
                                       size_t replicas) {
  if (!shards_spec.empty() && !workers_spec.empty()) {
    return Error(ErrorCode::kBadArguments, "Give either --shards or --workers, not both");
  }
  if (replicas == 0) return Error(ErrorCode::kBadArguments, "--replicas must be at least 1");
  Topology topology;
  if (shards_spec.empty()) {
    absl::StatusOr<std::vector<std::string>> workers = ExpandWorkerSpec(workers_spec);
    if (!workers.ok()) return workers.status();
    if (workers->size() % replicas != 0) {
      return Error(ErrorCode::kBadArguments,
                   "--workers lists " + std::to_string(workers->size()) +
                       " workers, not a multiple of --replicas " + std::to_string(replicas));
    }
    topology.addresses = std::move(*workers);
    topology.replicas = replicas;
    return topology;
  }
  if (replicas != 1) {
    return Error(ErrorCode::kBadArguments,
                 "--replicas goes with --workers; --shards lists each shard's replicas itself");
  }
  size_t shard = 0;
  std::set<std::string> seen;
  for (absl::string_view item : absl::StrSplit(
           absl::string_view(shards_spec.data(), shards_spec.size()), ';', absl::SkipWhitespace())) {
    absl::StatusOr<std::vector<std::string>> members =
        ExpandWorkerSpec(std::string_view(item.data(), item.size()));
    if (!members.ok()) {
      return Error(ErrorCode::kBadArguments, "Shard " + std::to_string(shard) + " of --shards: " +
                                                 std::string(members.status().message()));
    }
    if (shard == 0) topology.replicas = members->size();
    if (members->size() != topology.replicas) {
      return Error(ErrorCode::kBadArguments,
                   "Shard " + std::to_string(shard) + " of --shards has " +
                       std::to_string(members->size()) + " replicas, shard 0 has " +
                       std::to_string(topology.replicas) + "; every shard needs the same number");
    }
    for (std::string& address : *members) {
      if (!seen.insert(address).second) {
        return Error(ErrorCode::kBadArguments,
                     "Worker " + address + " appears twice in --shards");
      }
      topology.addresses.push_back(std::move(address));
    }
    ++shard;
  }
  if (topology.addresses.empty()) return Error(ErrorCode::kBadArguments, "--shards lists no shard");
  return topology;
}

}  // namespace granite::coordinator
