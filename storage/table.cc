#include "storage/table.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/settings/settings.h"
#include "core/status_macros.h"
#include "storage/clone_install.h"
#include "storage/part_recovery.h"
#include "storage/part_writer.h"

namespace granite::storage {

using core::Error;
using core::ErrorCode;

namespace {

// Returns true for a token that is safe as part of a directory name.
bool ValidToken(const std::string& token) {
  if (token.empty() || token.size() > 64) return false;
  for (char c : token) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Table::Table(std::shared_ptr<FileSystem> fs, std::string dir,
             std::shared_ptr<const TableSchema> schema,
             std::shared_ptr<const PartSplitter> splitter)
    : fs_(std::move(fs)),
      dir_(std::move(dir)),
      parts_dir_(JoinPath(dir_, "parts")),
      declared_(std::move(schema)),
      schema_(std::make_shared<const TableSchema>(declared_->Stored())),
      splitter_(std::move(splitter)),
      granule_rows_(GranuleRowsOf(*schema_)) {}

absl::StatusOr<std::shared_ptr<Table>> Table::Open(std::shared_ptr<FileSystem> fs,
                                                   std::string dir, TableSchema schema,
                                                   const std::set<std::string>& earlier_outdated) {
  auto shared_schema = std::make_shared<const TableSchema>(std::move(schema));
  ASSIGN_OR_RETURN(std::shared_ptr<const PartSplitter> splitter,
                   PartSplitter::Create(shared_schema->Stored(), /*strict=*/false));
  std::shared_ptr<Table> table(
      new Table(fs, std::move(dir), std::move(shared_schema), std::move(splitter)));
  // A clone install a crash interrupted is finished first (its staging directory is a tmp_ one).
  ASSIGN_OR_RETURN(const uint64_t floor, FinishCloneInstall(*fs, table->dir_));
  ASSIGN_OR_RETURN(RecoveredParts recovered,
                   RecoverParts(fs, table->schema_, table->dir_, earlier_outdated));
  for (const auto& [part, reason] : recovered.detached) {
    ReportDetachedPart(table->name(), part, absl::StrCat(kBrokenPrefix, part), reason);
  }
  // Parts below the floor were replaced by a clone, whose parts all lie above it.
  std::vector<std::shared_ptr<const Part>> kept;
  for (auto& part : recovered.parts) {
    if (part->part_name().max_block < floor) {
      RETURN_IF_ERROR(fs->RemoveAll(part->directory()));
    } else {
      kept.push_back(std::move(part));
    }
  }
  table->registry_.Reset(std::move(kept), std::max(recovered.max_block, floor));
  return table;
}

absl::Status Table::CheckBlock(const core::Block& block) const {
  const std::vector<ColumnSchema>& columns = schema_->columns;
  if (block.columns.size() != columns.size()) {
    return Error(ErrorCode::kNumberOfColumnsDoesntMatch,
                 absl::StrCat("Cannot insert into table ", name(), ": block has ",
                              block.columns.size(), " columns, table has ", columns.size()));
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    const core::Column& column = *block.columns[i];
    // A Nullable column needs the null map; the part writer writes zeros for a missing one.
    if (column.type() != core::RemoveNullable(columns[i].type) ||
        (column.nullable() && !core::IsNullable(columns[i].type))) {
      return Error(ErrorCode::kTypeMismatch,
                   absl::StrCat("Cannot insert into table ", name(), ": column ", columns[i].name,
                                " has type ", core::ToAbsl(core::TypeName(columns[i].type)),
                                ", block has ", core::ToAbsl(core::TypeName(column.logical_type()))));
    }
    if (column.size() != block.columns[0]->size()) {
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("Cannot insert into table ", name(), ": column ", columns[i].name,
                                " has ", column.size(), " rows, column ", columns[0].name, " has ",
                                block.columns[0]->size()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Table::Insert(const core::Block& block) {
  // A process-unique token: inserts of this process never collide with each other, and prepared
  // inserts do not survive a restart, so no earlier token can be pending.
  static std::atomic<uint64_t> local_inserts{0};
  std::string token = absl::StrCat("local-", local_inserts.fetch_add(1));
  RETURN_IF_ERROR(PrepareInsert(block, token));
  ASSIGN_OR_RETURN(std::vector<std::string> names, CommitInsert(token));
  return absl::StrJoin(names, ",");
}

absl::Status Table::WriteStaging(const core::Block& block, PreparedInsert* prepared) const {
  ASSIGN_OR_RETURN(std::vector<PartSplitter::Piece> pieces, splitter_->Split(block));
  if (pieces.empty()) return absl::OkStatus();
  RETURN_IF_ERROR(fs_->CreateDirs(prepared->staging_dir));
  PartWriter::Options options;
  options.granule_rows = granule_rows_;
  PartWriter writer(fs_, schema_, parts_dir_, options);
  const size_t first = prepared->parts.size();
  for (size_t i = 0; i < pieces.size(); ++i) {
    // Subdirectories are numbered across chunks, so every chunk's parts get their own.
    std::string subdir = absl::StrCat("p", first + i);
    absl::StatusOr<PartContents> contents = writer.WriteDirectory(
        pieces[i].block, pieces[i].description, JoinPath(prepared->staging_dir, subdir));
    if (!contents.ok()) {
      for (size_t j = first; j < prepared->parts.size(); ++j) {
        (void)fs_->RemoveAll(JoinPath(prepared->staging_dir, prepared->parts[j].subdir));
      }
      (void)fs_->RemoveAll(JoinPath(prepared->staging_dir, subdir));
      prepared->parts.resize(first);
      return contents.status();
    }
    prepared->parts.push_back({std::move(subdir), *std::move(contents)});
  }
  return absl::OkStatus();
}

absl::Status Table::PrepareInsert(const core::Block& block, const std::string& token,
                                  uint64_t chunk) {
  if (!ValidToken(token)) {
    return Error(ErrorCode::kBadArguments,
                 absl::StrCat("Cannot prepare an insert into table ", name(), ": bad token \"",
                              token, "\""));
  }
  std::vector<PreparedInsert> expired;
  PreparedInsert prepared;
  {
    core::MutexLock lock(prepared_mu_);
    if (chunk == 0) {
      if (prepared_.count(token) || preparing_.count(token) || aborted_.count(token)) {
        return Error(ErrorCode::kBadArguments,
                     absl::StrCat("Cannot prepare an insert into table ", name(), ": token ",
                                  token, " was already used"));
      }
      prepared.staging_dir = JoinPath(parts_dir_, absl::StrCat(kPreparedPrefix, token));
    } else {
      // An append takes the prepared insert out while it writes: an AbortInsert meanwhile finds
      // the token unknown, remembers it as aborted, and the append then discards everything.
      auto it = prepared_.find(token);
      if (aborted_.count(token)) {
        return Error(ErrorCode::kQueryWasCancelled,
                     absl::StrCat("Insert ", token, " into table ", name(), " was aborted"));
      }
      if (it == prepared_.end() || preparing_.count(token)) {
        return Error(ErrorCode::kBadArguments,
                     absl::StrCat("Cannot append chunk ", chunk, " to insert ", token,
                                  " into table ", name(),
                                  ": it is not prepared (committed, aborted, expired, or lost in "
                                  "a restart)"));
      }
      if (it->second.chunks != chunk) {
        return Error(ErrorCode::kBadArguments,
                     absl::StrCat("Cannot append chunk ", chunk, " to insert ", token,
                                  " into table ", name(), ": expected chunk ",
                                  it->second.chunks));
      }
      prepared = std::move(it->second);
      prepared_.erase(it);
    }
    preparing_.insert(token);
    expired = TakeExpired();
  }
  for (const PreparedInsert& old : expired) (void)fs_->RemoveAll(old.staging_dir);

  absl::Status status = [&]() -> absl::Status {
    core::ReaderLock drop_lock(drop_mu_);
    if (dropped_) {
      return Error(ErrorCode::kUnknownTable,
                   absl::StrCat("Cannot insert into table ", name(), ": it was dropped"));
    }
    RETURN_IF_ERROR(CheckBlock(block));
    return WriteStaging(block, &prepared);
  }();

  core::MutexLock lock(prepared_mu_);
  preparing_.erase(token);
  if (status.ok() && aborted_.count(token)) {
    status = Error(ErrorCode::kQueryWasCancelled,
                   absl::StrCat("Insert ", token, " into table ", name(),
                                " was aborted while it was being prepared"));
  }
  if (!status.ok()) {
    // Every chunk's parts go: an insert that lost a chunk must not commit the rest.
    (void)fs_->RemoveAll(prepared.staging_dir);
    if (chunk > 0 && aborted_.insert(token).second) {
      aborted_order_.push_back(token);
      if (aborted_order_.size() > kRememberedAborts) {
        aborted_.erase(aborted_order_.front());
        aborted_order_.pop_front();
      }
    }
    return status;
  }
  prepared.prepared_at = std::chrono::steady_clock::now();
  prepared.chunks = chunk + 1;
  prepared_.emplace(token, std::move(prepared));
  return absl::OkStatus();
}

std::vector<Table::PreparedInsert> Table::TakeExpired() {
  std::vector<PreparedInsert> expired;
  auto now = std::chrono::steady_clock::now();
  for (auto it = prepared_.begin(); it != prepared_.end();) {
    if (now - it->second.prepared_at > kPreparedInsertTtl) {
      expired.push_back(std::move(it->second));
      it = prepared_.erase(it);
    } else {
      ++it;
    }
  }
  return expired;
}

absl::StatusOr<std::vector<std::shared_ptr<const Part>>> Table::Commit(PreparedInsert prepared,
                                                                       const std::string& token) {
  std::vector<std::shared_ptr<const Part>> parts;
  if (prepared.parts.empty()) {
    (void)fs_->RemoveAll(prepared.staging_dir);
    return parts;
  }
  // Block numbers are taken at commit, so parts are numbered in the order they become visible
  // and a merge never spans the number of a part that is still to come.
  std::vector<PartName> names;
  for (const PreparedPart& part : prepared.parts) {
    std::string partition_id = PartitionId(part.contents.partition);
    uint64_t number = registry_.AllocateBlock(partition_id);
    names.push_back(PartName{number, number, 0, std::move(partition_id)});
  }
  auto release = [&] {
    for (const PartName& name : names) registry_.ReleaseBlock(name.partition_id, name.min_block);
  };
  // Where the staged parts are renamed from: the staging directory itself for one part (a single
  // rename is atomic), else the committing_ directory the staging directory becomes.
  std::string source_dir = prepared.staging_dir;
  std::vector<std::string> moved;  // final directories already renamed into place
  absl::Status status;
  if (prepared.parts.size() > 1) {
    // Open rolls a committing_ directory forward by the names of its entries, so the staged
    // parts get their final names first.
    for (size_t i = 0; status.ok() && i < prepared.parts.size(); ++i) {
      std::string& subdir = prepared.parts[i].subdir;
      status = fs_->Rename(JoinPath(prepared.staging_dir, subdir),
                           JoinPath(prepared.staging_dir, names[i].ToString()));
      if (status.ok()) subdir = names[i].ToString();
    }
    if (status.ok()) status = fs_->SyncDir(prepared.staging_dir);
    source_dir = JoinPath(parts_dir_, absl::StrCat(kCommittingPrefix, token));
    if (status.ok()) status = fs_->Rename(prepared.staging_dir, source_dir);
    if (status.ok()) status = fs_->SyncDir(parts_dir_);  // the commit is decided here
  }
  for (size_t i = 0; status.ok() && i < prepared.parts.size(); ++i) {
    std::string final_dir = JoinPath(parts_dir_, names[i].ToString());
    status = fs_->Rename(JoinPath(source_dir, prepared.parts[i].subdir), final_dir);
    if (status.ok()) moved.push_back(final_dir);
  }
  if (status.ok()) status = fs_->SyncDir(parts_dir_);
  if (!status.ok()) {
    // Takes the commit back: the committing_ directory goes first so that a crash during the
    // cleanup cannot roll the rest of the commit forward.
    (void)fs_->RemoveAll(source_dir);
    (void)fs_->RemoveAll(prepared.staging_dir);
    (void)fs_->SyncDir(parts_dir_);
    for (const std::string& dir : moved) (void)fs_->RemoveAll(dir);
    (void)fs_->SyncDir(parts_dir_);
    release();
    return status;
  }
  (void)fs_->RemoveAll(source_dir);  // empty now; a leftover is removed by Open
  for (size_t i = 0; i < prepared.parts.size(); ++i) {
    parts.push_back(std::make_shared<const Part>(fs_, schema_,
                                                 JoinPath(parts_dir_, names[i].ToString()),
                                                 names[i], std::move(prepared.parts[i].contents)));
  }
  return parts;
}

absl::StatusOr<std::vector<std::string>> Table::CommitInsert(const std::string& token) {
  core::ReaderLock drop_lock(drop_mu_);
  std::optional<PreparedInsert> prepared;
  {
    core::MutexLock lock(prepared_mu_);
    auto it = prepared_.find(token);
    if (it != prepared_.end()) {
      prepared = std::move(it->second);
      prepared_.erase(it);
    }
  }
  if (!prepared) {
    return Error(ErrorCode::kBadArguments,
                 absl::StrCat("Cannot commit insert ", token, " into table ", name(),
                              ": it is not prepared (aborted, expired, or lost in a restart)"));
  }
  if (dropped_) {
    return Error(ErrorCode::kUnknownTable,
                 absl::StrCat("Cannot insert into table ", name(), ": it was dropped"));
  }
  ASSIGN_OR_RETURN(std::vector<std::shared_ptr<const Part>> parts,
                   Commit(*std::move(prepared), token));
  std::vector<std::string> names;
  for (const auto& part : parts) names.push_back(part->name());
  if (!parts.empty()) registry_.Add(parts);  // also releases their block numbers
  return names;
}

absl::Status Table::AbortInsert(const std::string& token) {
  std::optional<PreparedInsert> prepared;
  {
    core::MutexLock lock(prepared_mu_);
    auto it = prepared_.find(token);
    if (it != prepared_.end()) {
      prepared = std::move(it->second);
      prepared_.erase(it);
    } else if (aborted_.insert(token).second) {
      aborted_order_.push_back(token);
      if (aborted_order_.size() > kRememberedAborts) {
        aborted_.erase(aborted_order_.front());
        aborted_order_.pop_front();
      }
    }
  }
  if (prepared) RETURN_IF_ERROR(fs_->RemoveAll(prepared->staging_dir));
  return absl::OkStatus();
}

size_t Table::prepared_count() const {
  core::MutexLock lock(prepared_mu_);
  return prepared_.size();
}

MergeLimits Table::LimitsFor(const MergeLimits& defaults) const {
  MergeLimits limits = defaults;
  core::TableSettings settings;
  if (!settings.ApplyKnown(schema_->settings).ok()) return limits;  // validated at CREATE
  if (settings.max_bytes_to_merge_at_max_space_in_pool != 0) {
    limits.max_bytes = settings.max_bytes_to_merge_at_max_space_in_pool;
  }
  if (settings.max_parts_to_merge_at_once != 0) {
    limits.max_parts = settings.max_parts_to_merge_at_once;
  }
  return limits;
}

std::optional<Table::MergeTask> Table::ReserveMerge(const MergeLimits& limits) {
  // The changes first, then a snapshot at least as new as every change taken.
  bool all = false;
  std::vector<core::Value> changed = registry_.TakeChangedPartitions(&all);
  std::shared_ptr<const PartsSnapshot> snapshot = Snapshot();
  const PartList& parts = snapshot->parts;
  core::MutexLock lock(merges_mu_);
  if (all) {
    merge_candidates_.clear();
    for (const PartsSnapshot::Partition& partition : snapshot->Partitions()) {
      if (partition.end - partition.begin >= 2) merge_candidates_.insert(partition.value.value);
    }
  } else {
    merge_candidates_.insert(changed.begin(), changed.end());
  }
  // Round-robin, so every partition gets its turn. A partition with nothing to merge leaves the
  // set until a change (an insert, a finished or released merge) puts it back.
  auto it = last_merged_partition_ ? merge_candidates_.upper_bound(*last_merged_partition_)
                                   : merge_candidates_.begin();
  for (size_t n = merge_candidates_.size(); n > 0 && !merge_candidates_.empty(); --n) {
    if (it == merge_candidates_.end()) it = merge_candidates_.begin();
    const core::Value& value = *it;
    size_t begin = parts.PartitionPoint([&](const Part& p) { return p.partition().value < value; });
    size_t end = parts.PartitionPoint([&](const Part& p) { return !(value < p.partition().value); });
    std::optional<MergeRun> run;
    if (end - begin >= 2) {
      std::vector<MergeCandidate> candidates;
      for (size_t i = begin; i < end; ++i) {
        const Part& part = *parts[i];
        candidates.push_back({part.uncompressed_bytes(), merging_.count(part.name()) == 0});
      }
      run = SelectMerge(candidates, limits);
    }
    if (!run) {
      it = merge_candidates_.erase(it);
      continue;
    }
    MergeTask task;
    for (size_t i = run->begin; i < run->end; ++i) task.sources.push_back(parts[begin + i]);
    task.result = PartMerger::ResultName(task.sources);
    if (registry_.InFlight(task.result.partition_id, task.result.min_block,
                           task.result.max_block)) {
      ++it;  // an insert is committing a block inside the range: try again later
      continue;
    }
    for (const auto& source : task.sources) merging_.insert(source->name());
    last_merged_partition_ = value;  // stays a candidate: it may hold another merge
    return task;
  }
  return std::nullopt;
}

std::vector<Table::MergeTask> Table::ReserveFinalMerges(bool* busy) {
  std::shared_ptr<const PartsSnapshot> snapshot = Snapshot();
  std::vector<MergeTask> tasks;
  *busy = false;
  core::MutexLock lock(merges_mu_);
  for (const PartsSnapshot::Partition& partition : snapshot->Partitions()) {
    if (partition.end - partition.begin < 2) continue;
    MergeTask task;
    bool available = true;
    for (size_t i = partition.begin; i < partition.end; ++i) {
      available = available && merging_.count(snapshot->parts[i]->name()) == 0;
      task.sources.push_back(snapshot->parts[i]);
    }
    task.result = PartMerger::ResultName(task.sources);
    if (!available || registry_.InFlight(task.result.partition_id, task.result.min_block,
                                         task.result.max_block)) {
      *busy = true;
      continue;
    }
    for (const auto& source : task.sources) merging_.insert(source->name());
    tasks.push_back(std::move(task));
  }
  return tasks;
}

void Table::ReleaseMerge(const MergeTask& task) {
  core::MutexLock lock(merges_mu_);
  for (const auto& source : task.sources) merging_.erase(source->name());
  // The released parts are candidates again.
  if (!task.sources.empty()) merge_candidates_.insert(task.sources.front()->partition().value);
}

absl::StatusOr<std::shared_ptr<const Part>> Table::RunMerge(const MergeTask& task,
                                                            MergeProgress* progress) {
  std::shared_ptr<const Part> broken;
  absl::StatusOr<std::shared_ptr<const Part>> merged = [&]()
      -> absl::StatusOr<std::shared_ptr<const Part>> {
    core::ReaderLock drop_lock(drop_mu_);
    if (dropped_) {
      return Error(ErrorCode::kUnknownTable,
                   absl::StrCat("Cannot merge parts of table ", name(), ": it was dropped"));
    }
    PartWriter::Options options;
    options.granule_rows = granule_rows_;
    PartMerger merger(fs_, schema_, splitter_, parts_dir_, options);
    ASSIGN_OR_RETURN(std::shared_ptr<const Part> part,
                     merger.Merge(task.sources, progress, cancel_merges_, &broken));
    if (!registry_.Replace(task.sources, part)) {
      (void)fs_->RemoveAll(part->directory());
      return Error(ErrorCode::kQueryWasCancelled,
                   absl::StrCat("Merge into ", part->name(), " of table ", name(),
                                " was superseded: its sources changed"));
    }
    return part;
  }();
  ReleaseMerge(task);
  // A damaged source would fail every later merge of its neighbours: it leaves the table.
  if (broken != nullptr) (void)DetachBrokenPart(broken, merged.status());
  return merged;
}

size_t Table::DeleteUnusedParts() {
  std::vector<std::shared_ptr<const Part>> unused = registry_.TakeUnused();
  for (const auto& part : unused) (void)fs_->RemoveAll(part->directory());
  return unused.size();
}

absl::StatusOr<bool> Table::DetachBrokenPart(const std::shared_ptr<const Part>& part,
                                             const absl::Status& reason) {
  core::ReaderLock drop_lock(drop_mu_);
  if (dropped_ || !registry_.Remove(part)) return false;
  RETURN_IF_ERROR(DetachPartDirectory(*fs_, dir_, part->directory(), part->name()));
  ReportDetachedPart(name(), part->name(), absl::StrCat(kBrokenPrefix, part->name()),
                     std::string(reason.message()));
  return true;
}

absl::StatusOr<std::vector<DetachedPart>> Table::DetachedParts() const {
  return ListDetachedParts(*fs_, dir_);
}

absl::StatusOr<DetachedPart> Table::FindDetachedPart(const std::string& detached_name) const {
  ASSIGN_OR_RETURN(std::vector<DetachedPart> detached, DetachedParts());
  for (DetachedPart& part : detached) {
    if (part.name == detached_name) return std::move(part);
  }
  return Error(ErrorCode::kNoSuchDataPart,
               absl::StrCat("No detached part ", detached_name, " in table ", name()));
}

absl::StatusOr<std::string> Table::AttachPart(const std::string& detached_name) {
  RETURN_IF_ERROR(ValidateDetachedName(detached_name));
  core::ReaderLock drop_lock(drop_mu_);
  if (dropped_) {
    return Error(ErrorCode::kUnknownTable,
                 absl::StrCat("Cannot attach a part to table ", name(), ": it was dropped"));
  }
  ASSIGN_OR_RETURN(const DetachedPart detached, FindDetachedPart(detached_name));
  if (!detached.part) {
    return Error(ErrorCode::kBadDataPartName,
                 absl::StrCat("Detached directory ", detached_name, " of table ", name(),
                              " holds no part name ([reason_]partition_min_max_level)"));
  }
  const std::string source = detached.path;
  auto stays = [&](const absl::Status& status) {
    return Error(core::CodeOf(status),
                 absl::StrCat("Cannot attach part ", detached_name, " to table ", name(), ": ",
                              status.message(), "; it stays in detached/"));
  };
  absl::StatusOr<std::shared_ptr<const Part>> loaded =
      Part::Load(fs_, schema_, source, *detached.part);
  if (!loaded.ok()) return stays(loaded.status());
  if (absl::Status verified = VerifyPartData(**loaded); !verified.ok()) return stays(verified);
  // A fresh block number: the part's own numbers may belong to newer parts by now (numbering
  // restarts after the largest part at start-up) or lie inside a merge of its neighbours.
  PartName target = *detached.part;
  target.min_block = target.max_block = registry_.AllocateBlock(target.partition_id);
  std::string final_dir = JoinPath(parts_dir_, target.ToString());
  absl::Status status = fs_->Rename(source, final_dir);
  const bool renamed = status.ok();
  if (status.ok()) status = fs_->SyncDir(parts_dir_);
  std::shared_ptr<const Part> part;
  if (status.ok()) {
    absl::StatusOr<std::shared_ptr<const Part>> reloaded =
        Part::Load(fs_, schema_, final_dir, target);  // loaded once already: unlikely to fail
    status = reloaded.status();
    if (status.ok()) part = *std::move(reloaded);
  }
  if (!status.ok()) {
    if (renamed) {
      (void)fs_->Rename(final_dir, source);
      (void)fs_->SyncDir(parts_dir_);
    }
    registry_.ReleaseBlock(target.partition_id, target.min_block);
    return stays(status);
  }
  (void)fs_->SyncDir(JoinPath(dir_, kDetachedDirName));
  registry_.Add({part});  // also releases the block number
  std::fprintf(stderr, "granite worker: table %s: detached part %s attached as %s\n",
               name().c_str(), detached_name.c_str(), target.ToString().c_str());
  return target.ToString();
}

absl::Status Table::DropDetachedPart(const std::string& detached_name) {
  RETURN_IF_ERROR(ValidateDetachedName(detached_name));
  core::ReaderLock drop_lock(drop_mu_);
  ASSIGN_OR_RETURN(const DetachedPart detached, FindDetachedPart(detached_name));
  RETURN_IF_ERROR(fs_->RemoveAll(detached.path));
  RETURN_IF_ERROR(fs_->SyncDir(JoinPath(dir_, kDetachedDirName)));
  std::fprintf(stderr, "granite worker: table %s: detached part %s dropped\n", name().c_str(),
               detached_name.c_str());
  return absl::OkStatus();
}

std::vector<Table::PartCheck> Table::Check() const {
  std::vector<PartCheck> out;
  std::shared_ptr<const PartsSnapshot> snapshot = Snapshot();
  for (const auto& part : snapshot->parts) {
    absl::Status status = VerifyPartData(*part);
    out.push_back({part->name(), status.ok(), std::string(status.message())});
  }
  absl::StatusOr<std::vector<DetachedPart>> detached = DetachedParts();
  if (!detached.ok()) {
    out.push_back({std::string(kDetachedDirName), false, std::string(detached.status().message())});
    return out;
  }
  for (const DetachedPart& part : *detached) {
    if (part.reason != "broken") continue;
    out.push_back({absl::StrCat(kDetachedDirName, "/", part.name), false,
                   "detached because its data is damaged: the table answers without its rows "
                   "(ALTER TABLE ... ATTACH PART after a repair, or DROP DETACHED PART)"});
  }
  return out;
}

void Table::MarkDropped() {
  cancel_merges_ = true;
  core::WriterLock lock(drop_mu_);
  dropped_ = true;
}

void Table::Undrop() {
  core::WriterLock lock(drop_mu_);
  dropped_ = false;
  cancel_merges_ = false;
}

}  // namespace granite::storage
