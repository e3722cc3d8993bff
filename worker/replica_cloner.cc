#include "worker/replica_cloner.h"

#include <grpcpp/grpcpp.h>
#include <xxhash.h>

#include <random>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/rpc_status.h"
#include "core/status_macros.h"
#include "granite/worker/v1/worker.grpc.pb.h"
#include "storage/clone_install.h"
#include "worker/peer_stub.h"

namespace granite::worker {

namespace pb = granite::worker::v1;

namespace {

using core::Error;
using core::ErrorCode;

std::string RandomToken() {
  static thread_local std::mt19937_64 random(std::random_device{}());
  char text[33];
  std::snprintf(text, sizeof(text), "%016llx%016llx", static_cast<unsigned long long>(random()),
                static_cast<unsigned long long>(random()));
  return text;
}

// A part or file name from the peer: one path component.
bool SafeName(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
}

std::unique_ptr<grpc::ClientContext> ContextWithin(std::chrono::seconds timeout) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + timeout);
  return context;
}

// One copy in progress on the target: the staging directory and what it holds.
class Copy {
 public:
  Copy(storage::FileSystem* fs, storage::Table* table, pb::Worker::Stub* stub, std::string source)
      : fs_(fs), table_(table), stub_(stub), source_(std::move(source)),
        staging_(absl::StrCat(storage::kCloneStagingPrefix, RandomToken())),
        staging_dir_(storage::JoinPath(table->parts_directory(), staging_)) {}
  // Once an install began, its plan may name the staging directory: Open finishes it then.
  ~Copy() {
    if (!installing_) (void)fs_->RemoveAll(staging_dir_);
  }
  void MarkInstalling() { installing_ = true; }

  const std::string& staging() const { return staging_; }
  const std::string& staging_dir() const { return staging_dir_; }
  uint64_t bytes() const { return bytes_; }
  uint64_t reused() const { return reused_; }

  absl::StatusOr<pb::SnapshotReplicaResponse> Snapshot() {
    pb::SnapshotReplicaRequest request;
    request.set_table(table_->name());
    pb::SnapshotReplicaResponse response;
    auto context = ContextWithin(std::chrono::seconds(30));
    grpc::Status status = stub_->SnapshotReplica(context.get(), request, &response);
    if (!status.ok()) return core::FromGrpcStatus(status, source_);
    return response;
  }

  // Makes every part of `snapshot` available in the staging directory (copied now or before,
  // or rebuilt from copied parts a merge on the peer combined) and returns the parts that make
  // up the snapshot's rows.
  absl::StatusOr<std::vector<storage::Table::ClonedPart>> Stage(
      const pb::SnapshotReplicaResponse& snapshot) {
    std::vector<storage::Table::ClonedPart> out;
    for (const pb::ReplicaPart& part : snapshot.parts()) {
      std::optional<storage::PartName> name = storage::PartName::Parse(part.name());
      if (!name || !SafeName(part.name())) {
        return Error(ErrorCode::kBadDataPartName,
                     absl::StrCat("Replica ", source_, " listed a bad part name ", part.name()));
      }
      if (staged_.count(part.name()) == 0) {
        // Copied parts inside this one's range whose rows add up to it: its merge's sources.
        std::vector<storage::Table::ClonedPart> inside;
        uint64_t rows = 0;
        for (const auto& [staged_name, staged] : staged_) {
          if (staged.name.partition_id == name->partition_id &&
              staged.name.min_block >= name->min_block && staged.name.max_block <= name->max_block) {
            inside.push_back(staged.part);
            rows += staged.rows;
          }
        }
        if (!inside.empty() && rows == part.rows()) {
          reused_ += inside.size();
          out.insert(out.end(), inside.begin(), inside.end());
          continue;
        }
        RETURN_IF_ERROR(Fetch(snapshot.token(), part.name()));
        staged_[part.name()] = {{part.name(), *name}, *name, part.rows()};
      }
      out.push_back(staged_[part.name()].part);
    }
    return out;
  }

  // Writes the snapshot's id files into the staging directory's ids/.
  absl::Status StageIds(const pb::SnapshotReplicaResponse& snapshot) {
    const std::string dir = storage::JoinPath(staging_dir_, "ids");
    RETURN_IF_ERROR(fs_->CreateDirs(dir));
    for (const pb::BlockIdFile& id : snapshot.ids()) {
      if (!SafeName(id.name())) {
        return Error(ErrorCode::kCorruptedData,
                     absl::StrCat("Replica ", source_, " listed a bad block id file ", id.name()));
      }
      RETURN_IF_ERROR(storage::WriteFile(*fs_, storage::JoinPath(dir, id.name()), id.contents()));
    }
    for (const pb::BlockIdFile& id : snapshot.ids()) {
      RETURN_IF_ERROR(fs_->SyncFile(storage::JoinPath(dir, id.name())));
    }
    return fs_->SyncDir(dir);
  }

 private:
  struct Staged {
    storage::Table::ClonedPart part;
    storage::PartName name;
    uint64_t rows = 0;
  };

  absl::Status Fetch(const std::string& token, const std::string& part) {
    const std::string dir = storage::JoinPath(staging_dir_, part);
    RETURN_IF_ERROR(fs_->CreateDirs(dir));
    pb::FetchPartRequest request;
    request.set_table(table_->name());
    request.set_token(token);
    request.set_part(part);
    auto context = ContextWithin(std::chrono::seconds(600));
    std::unique_ptr<grpc::ClientReader<pb::PartFileChunk>> reader =
        stub_->FetchPart(context.get(), request);
    pb::PartFileChunk chunk;
    std::unique_ptr<storage::WritableFile> file;
    std::string file_name;
    uint64_t size = 0;
    XXH64_state_t* hash = XXH64_createState();
    absl::Status result;
    while (result.ok() && reader->Read(&chunk)) {
      if (!file) {
        if (!SafeName(chunk.file())) {
          result = Error(ErrorCode::kCorruptedData, "Bad file name " + chunk.file());
          break;
        }
        file_name = chunk.file();
        absl::StatusOr<std::unique_ptr<storage::WritableFile>> opened =
            fs_->NewWritableFile(storage::JoinPath(dir, file_name));
        if (!opened.ok()) {
          result = opened.status();
          break;
        }
        file = *std::move(opened);
        size = 0;
        XXH64_reset(hash, 0);
      }
      result = file->Append(chunk.data());
      size += chunk.data().size();
      XXH64_update(hash, chunk.data().data(), chunk.data().size());
      bytes_ += chunk.data().size();
      if (result.ok() && chunk.last()) {
        if (size != chunk.size() || XXH64_digest(hash) != chunk.xxh64()) {
          result = Error(ErrorCode::kChecksumDoesntMatch,
                         absl::StrCat("File ", file_name, " of part ", part, " from ", source_,
                                      " arrived damaged: ", size, " bytes, expected ",
                                      chunk.size()));
        }
        if (result.ok()) result = file->Sync();
        if (result.ok()) result = file->Close();
        file.reset();
      }
    }
    XXH64_freeState(hash);
    if (!result.ok()) {
      context->TryCancel();
      (void)reader->Finish();
      return result;
    }
    grpc::Status status = reader->Finish();
    if (!status.ok()) return core::FromGrpcStatus(status, source_);
    if (file) {
      return Error(ErrorCode::kCorruptedData,
                   absl::StrCat("Part ", part, " from ", source_, " ended inside file ", file_name));
    }
    RETURN_IF_ERROR(fs_->SyncDir(dir));
    std::optional<storage::PartName> name = storage::PartName::Parse(part);
    return table_->VerifyStagedPart(dir, *name);
  }

  storage::FileSystem* const fs_;
  storage::Table* const table_;
  pb::Worker::Stub* const stub_;
  const std::string source_;
  const std::string staging_;
  const std::string staging_dir_;
  std::map<std::string, Staged> staged_;  // by the part's name on the peer
  uint64_t bytes_ = 0;
  uint64_t reused_ = 0;
  bool installing_ = false;
};

}  // namespace

absl::StatusOr<pb::SnapshotReplicaResponse> ReplicaCloner::Snapshot(const std::string& name) {
  ASSIGN_OR_RETURN(std::shared_ptr<storage::Table> table, store_->TableOrError(name));
  pb::SnapshotReplicaResponse response;
  std::shared_ptr<const storage::PartsSnapshot> parts;
  {
    core::WriterLock commits(block_log_->TableLock(table->directory()));
    parts = table->Snapshot();
    ASSIGN_OR_RETURN(auto ids, block_log_->ReadIdFiles(table->directory()));
    for (auto& [file, contents] : ids) {
      pb::BlockIdFile* id = response.add_ids();
      id->set_name(file);
      id->set_contents(std::move(contents));
    }
  }
  for (const auto& part : parts->parts) {
    pb::ReplicaPart* out = response.add_parts();
    out->set_name(part->name());
    out->set_rows(part->rows());
    out->set_bytes_on_disk(part->size_on_disk());
  }
  const std::string token = RandomToken();
  response.set_token(token);
  const auto now = std::chrono::steady_clock::now();
  core::MutexLock lock(pins_mu_);
  for (auto it = pins_.begin(); it != pins_.end();) {
    it = it->second.expires < now ? pins_.erase(it) : std::next(it);
  }
  pins_[token] = {std::move(parts), now + kPinTtl};
  return response;
}

absl::Status ReplicaCloner::StreamPart(
    const pb::FetchPartRequest& request,
    const std::function<bool(const pb::PartFileChunk&)>& write) {
  std::shared_ptr<const storage::Part> part;
  {
    core::MutexLock lock(pins_mu_);
    auto pin = pins_.find(request.token());
    if (pin != pins_.end()) {
      pin->second.expires = std::chrono::steady_clock::now() + kPinTtl;
      for (const auto& p : pin->second.parts->parts) {
        if (p->name() == request.part()) part = p;
      }
    }
  }
  if (!part) {
    return Error(ErrorCode::kNoSuchDataPart,
                 absl::StrCat("Part ", request.part(), " of table ", request.table(),
                              " is not pinned under snapshot ", request.token(),
                              " (expired or never taken)"));
  }
  storage::FileSystem& fs = *store_->file_system();
  ASSIGN_OR_RETURN(std::vector<std::string> files, fs.ListDir(part->directory()));
  std::string buffer;
  pb::PartFileChunk chunk;
  for (const std::string& name : files) {
    const std::string path = storage::JoinPath(part->directory(), name);
    ASSIGN_OR_RETURN(uint64_t size, fs.FileSize(path));
    ASSIGN_OR_RETURN(std::unique_ptr<storage::RandomAccessFile> file, fs.NewRandomAccessFile(path));
    XXH64_state_t* hash = XXH64_createState();
    XXH64_reset(hash, 0);
    absl::Status status;
    uint64_t offset = 0;
    do {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunkBytes, size - offset));
      buffer.resize(n);
      status = file->Read(offset, n, buffer.data());
      if (!status.ok()) break;
      XXH64_update(hash, buffer.data(), n);
      offset += n;
      chunk.Clear();
      chunk.set_file(name);
      chunk.set_data(buffer);
      if (offset == size) {
        chunk.set_last(true);
        chunk.set_size(size);
        chunk.set_xxh64(XXH64_digest(hash));
      }
      if (!write(chunk)) {
        status = Error(ErrorCode::kQueryWasCancelled,
                       "The replica fetching part " + part->name() + " went away");
      }
    } while (status.ok() && offset < size);
    XXH64_freeState(hash);
    RETURN_IF_ERROR(status);
  }
  return absl::OkStatus();
}

absl::StatusOr<pb::CloneReplicaResponse> ReplicaCloner::Clone(const std::string& name,
                                                              const std::string& source) {
  ASSIGN_OR_RETURN(std::shared_ptr<storage::Table> table, store_->TableOrError(name));
  {
    core::MutexLock lock(pins_mu_);
    if (!copying_.insert(table->directory()).second) {
      return Error(ErrorCode::kQueryWithSameIdIsAlreadyRunning,
                   "Table " + name + " is already being copied to this replica");
    }
  }
  struct Done {
    ReplicaCloner* cloner;
    std::string dir;
    ~Done() {
      core::MutexLock lock(cloner->pins_mu_);
      cloner->copying_.erase(dir);
    }
  } done{this, table->directory()};
  pb::Worker::Stub* stub = PeerStub(source);
  Copy copy(store_->file_system().get(), table.get(), stub, source);
  // The bulk, without blocking this replica's commits.
  ASSIGN_OR_RETURN(pb::SnapshotReplicaResponse first, copy.Snapshot());
  RETURN_IF_ERROR(copy.Stage(first).status());
  // The rest under the commit lock: what changed on the peer meanwhile is usually small.
  core::WriterLock commits(block_log_->TableLock(table->directory()));
  ASSIGN_OR_RETURN(pb::SnapshotReplicaResponse last, copy.Snapshot());
  ASSIGN_OR_RETURN(std::vector<storage::Table::ClonedPart> parts, copy.Stage(last));
  std::set<std::string> theirs;
  for (const pb::BlockIdFile& id : last.ids()) theirs.insert(id.name());
  ASSIGN_OR_RETURN(auto mine, block_log_->ReadIdFiles(table->directory()));
  for (const auto& [file, contents] : mine) {
    if (theirs.count(file) == 0) {
      return Error(ErrorCode::kNoSuchDataPart,
                   absl::StrCat("Cannot clone table ", name, " from ", source,
                                ": this replica holds block ", file,
                                ", which the source lacks (the repair copies it there first)"));
    }
  }
  RETURN_IF_ERROR(copy.StageIds(last));
  copy.MarkInstalling();
  ASSIGN_OR_RETURN(uint64_t rows, table->InstallClone(copy.staging(), parts));
  pb::CloneReplicaResponse response;
  response.set_parts(parts.size());
  response.set_rows(rows);
  response.set_bytes(copy.bytes());
  response.set_reused_parts(copy.reused());
  return response;
}

}  // namespace granite::worker
