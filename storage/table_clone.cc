// Table's replica clone install (storage/clone_install.h has the on-disk protocol).
#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "storage/clone_install.h"
#include "storage/detached_parts.h"
#include "storage/table.h"

namespace granite::storage {

absl::Status Table::VerifyStagedPart(const std::string& dir, const PartName& name) const {
  ASSIGN_OR_RETURN(std::shared_ptr<const Part> part, Part::Load(fs_, schema_, dir, name));
  return VerifyPartData(*part);
}

absl::StatusOr<uint64_t> Table::InstallClone(const std::string& staging,
                                              const std::vector<ClonedPart>& parts) {
  core::ReaderLock drop_lock(drop_mu_);
  if (dropped_) {
    return core::Error(core::ErrorCode::kUnknownTable,
                       absl::StrCat("Cannot install a clone of table ", name(), ": it was dropped"));
  }
  // The copied parts keep their relative numbering (merges need each partition's ranges
  // disjoint and ordered) above every number this replica used: those parts are the floor's.
  uint64_t span = 1;
  for (const ClonedPart& part : parts) span = std::max(span, part.name.max_block + 1);
  ClonePlan plan;
  plan.floor = registry_.ReserveBlocks(span);
  plan.staging = staging;
  std::vector<PartName> names;
  for (const ClonedPart& part : parts) {
    PartName renamed = part.name;
    renamed.min_block += plan.floor;
    renamed.max_block += plan.floor;
    plan.moves.emplace_back(part.staged_name, renamed.ToString());
    names.push_back(renamed);
  }
  RETURN_IF_ERROR(WriteClonePlan(*fs_, dir_, plan));  // the switch is decided here
  RETURN_IF_ERROR(ApplyClonePlan(*fs_, dir_, plan));
  std::vector<std::shared_ptr<const Part>> loaded;
  uint64_t rows = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    ASSIGN_OR_RETURN(std::shared_ptr<const Part> part,
                     Part::Load(fs_, schema_, JoinPath(parts_dir_, plan.moves[i].second), names[i]));
    rows += part->rows();
    loaded.push_back(std::move(part));
  }
  registry_.ReplaceAll(loaded);  // the replaced parts are deleted once no query reads them
  std::fprintf(stderr, "granite worker: table %s: installed %zu parts (%llu rows) cloned from a peer\n",
               name().c_str(), loaded.size(), static_cast<unsigned long long>(rows));
  return rows;
}

}  // namespace granite::storage
