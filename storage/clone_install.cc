#include "storage/clone_install.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::storage {

namespace {

std::string ReplicationDir(const std::string& table_dir) {
  return JoinPath(table_dir, "replication");
}

std::string PlanPath(const std::string& table_dir) {
  return JoinPath(ReplicationDir(table_dir), "clone");
}

bool Exists(FileSystem& fs, const std::string& path) {
  return fs.FileSize(path).ok() || fs.ListDir(path).ok();
}

}  // namespace

absl::Status WriteClonePlan(FileSystem& fs, const std::string& table_dir, const ClonePlan& plan) {
  std::string text = absl::StrCat("floor ", plan.floor, "\n");
  if (!plan.staging.empty()) absl::StrAppend(&text, "staging ", plan.staging, "\n");
  for (const auto& [from, to] : plan.moves) absl::StrAppend(&text, "move ", from, " ", to, "\n");
  const std::string dir = ReplicationDir(table_dir);
  RETURN_IF_ERROR(fs.CreateDirs(dir));
  const std::string tmp = PlanPath(table_dir) + ".tmp";
  RETURN_IF_ERROR(WriteFileSynced(fs, tmp, text));
  RETURN_IF_ERROR(fs.Rename(tmp, PlanPath(table_dir)));
  return fs.SyncDir(dir);
}

absl::StatusOr<ClonePlan> ReadClonePlan(FileSystem& fs, const std::string& table_dir) {
  ClonePlan plan;
  const std::string path = PlanPath(table_dir);
  if (!fs.FileSize(path).ok()) return plan;
  ASSIGN_OR_RETURN(std::string text, fs.ReadFile(path));
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    std::vector<std::string> words = absl::StrSplit(line, ' ');
    bool ok = false;
    if (words.size() == 2 && words[0] == "floor") {
      ok = absl::SimpleAtoi(words[1], &plan.floor);
    } else if (words.size() == 2 && words[0] == "staging") {
      plan.staging = words[1];
      ok = absl::StartsWith(plan.staging, kCloneStagingPrefix);
    } else if (words.size() == 3 && words[0] == "move") {
      plan.moves.emplace_back(words[1], words[2]);
      ok = true;
    }
    if (!ok) {
      return core::Error(core::ErrorCode::kCorruptedData,
                         absl::StrCat("Cannot parse line \"", line, "\" of ", path));
    }
  }
  return plan;
}

absl::Status ApplyClonePlan(FileSystem& fs, const std::string& table_dir, const ClonePlan& plan) {
  if (plan.staging.empty()) return absl::OkStatus();
  const std::string parts = JoinPath(table_dir, "parts");
  const std::string staging = JoinPath(parts, plan.staging);
  for (const auto& [from, to] : plan.moves) {
    const std::string source = JoinPath(staging, from);
    if (!Exists(fs, source)) continue;  // moved before a crash
    RETURN_IF_ERROR(fs.Rename(source, JoinPath(parts, to)));
  }
  RETURN_IF_ERROR(fs.SyncDir(parts));
  const std::string staged_ids = JoinPath(staging, "ids");
  if (absl::StatusOr<std::vector<std::string>> names = fs.ListDir(staged_ids); names.ok()) {
    const std::string ids = JoinPath(ReplicationDir(table_dir), "ids");
    RETURN_IF_ERROR(fs.CreateDirs(ids));
    for (const std::string& name : *names) {
      RETURN_IF_ERROR(fs.Rename(JoinPath(staged_ids, name), JoinPath(ids, name)));
    }
    RETURN_IF_ERROR(fs.SyncDir(ids));
  }
  ClonePlan done;
  done.floor = plan.floor;
  RETURN_IF_ERROR(WriteClonePlan(fs, table_dir, done));
  (void)fs.RemoveAll(staging);
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> FinishCloneInstall(FileSystem& fs, const std::string& table_dir) {
  ASSIGN_OR_RETURN(ClonePlan plan, ReadClonePlan(fs, table_dir));
  RETURN_IF_ERROR(ApplyClonePlan(fs, table_dir, plan));
  return plan.floor;
}

}  // namespace granite::storage
