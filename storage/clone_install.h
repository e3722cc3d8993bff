// Clone install: the durable switch of a replica's table to the parts and block ids it copied
// from a peer (worker/replica_cloner.h fetches them; Table::InstallClone performs the switch).
//
// The copied parts wait, verified, in parts/tmp_clone_<token>/ (one directory per part, named
// as on the peer, and ids/ with the peer's block-id files, storage/block_log.h). The switch is
// decided by one file, <table>/replication/clone, written atomically (temp file, rename, fsync):
//   floor <n>                       parts whose max block is below n are the replaced ones
//   staging <dir>                   the staging directory under parts/ (while pending)
//   move <staged name> <new name>   one per copied part, renumbered from n up
// Applying it moves every staged part to parts/<new name> and every id file to
// replication/ids/, then rewrites the file with its floor only. Every step is idempotent, so
// Table::Open finishes a switch a crash interrupted (FinishCloneInstall), before recovery deletes
// tmp_ directories, and then deletes the parts below the floor: a crash at any point leaves
// either the old rows and ids or the new ones, never both and never rows without their ids.
// The floor stays recorded: block numbers grow past it, so no later part falls below it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/file_system.h"

namespace granite::storage {

inline constexpr char kCloneStagingPrefix[] = "tmp_clone_";

struct ClonePlan {
  uint64_t floor = 0;
  std::string staging;  // directory name under parts/; empty when nothing is pending
  std::vector<std::pair<std::string, std::string>> moves;  // staged part name -> new name
};

// Writes `plan` as <table_dir>/replication/clone, durably and atomically.
absl::Status WriteClonePlan(FileSystem& fs, const std::string& table_dir, const ClonePlan& plan);

// Reads <table_dir>/replication/clone; a plan with floor 0 and nothing pending when absent.
// CORRUPTED_DATA for a file it cannot parse.
absl::StatusOr<ClonePlan> ReadClonePlan(FileSystem& fs, const std::string& table_dir);

// Moves what `plan` stages into place (skipping what was moved already), fsyncs the
// directories, records the plan as done (floor only) and removes the staging directory.
absl::Status ApplyClonePlan(FileSystem& fs, const std::string& table_dir, const ClonePlan& plan);

// Finishes a pending plan (at open); returns the floor (0 without any clone).
absl::StatusOr<uint64_t> FinishCloneInstall(FileSystem& fs, const std::string& table_dir);

}  // namespace granite::storage
