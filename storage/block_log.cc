#include "storage/block_log.h"

#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/chunk_checksum.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::storage {

namespace {

constexpr size_t kStripes = 64;

std::string Hex(uint64_t high, uint64_t low) {
  char text[33];
  std::snprintf(text, sizeof(text), "%016llx%016llx", static_cast<unsigned long long>(high),
                static_cast<unsigned long long>(low));
  return text;
}

std::string FileNameOf(const std::string& id) {
  XXH128_hash_t h = XXH3_128bits(id.data(), id.size());
  return Hex(h.high64, h.low64);
}

std::string Root(const std::string& table_dir) { return JoinPath(table_dir, "replication"); }

// Where block `name`'s retained chunks go, and where earlier versions kept them.
std::string RetainedDir(const std::string& root, const std::string& name) {
  return JoinPath(JoinPath(root, "ids"), name + ".d");
}
std::string LegacyRetainedDir(const std::string& root, const std::string& name) {
  return JoinPath(JoinPath(root, "data"), name);
}

// An id file's contents: "<checksum> <commit time ns>\n<id>".
std::string IdRecord(uint64_t checksum, const std::string& id) {
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  return absl::StrCat(checksum, " ", now, "\n", id);
}

// An id file's fields.
struct IdFile {
  uint64_t checksum = 0;
  int64_t time = 0;  // commit time, ns; 0 in files of earlier versions ("<checksum>\n<id>")
  std::string id;
};

std::optional<IdFile> ParseIdRecord(std::string_view text) {
  const size_t newline = text.find('\n');
  if (newline == std::string_view::npos) return std::nullopt;
  std::string_view head = text.substr(0, newline);
  IdFile file;
  if (const size_t space = head.find(' '); space != std::string_view::npos) {
    if (!absl::SimpleAtoi(core::ToAbsl(head.substr(space + 1)), &file.time)) return std::nullopt;
    head = head.substr(0, space);
  }
  if (!absl::SimpleAtoi(core::ToAbsl(head), &file.checksum)) return std::nullopt;
  file.id = std::string(text.substr(newline + 1));
  return file;
}

std::string EncodeChunk(const BlockChunk& chunk) {
  std::string out;
  out.append(reinterpret_cast<const char*>(&chunk.rows), 8);
  out.append(reinterpret_cast<const char*>(&chunk.raw_size), 8);
  out.append(chunk.data);
  return out;
}

}  // namespace

uint64_t ChecksumOf(const std::vector<BlockChunk>& chunks) {
  core::ChunkChecksum sum;
  for (const BlockChunk& chunk : chunks) sum.Add(chunk.rows, chunk.raw_size, chunk.data);
  return sum.Digest();
}

BlockLog::BlockLog(std::shared_ptr<FileSystem> fs) : fs_(fs), dir_syncs_(std::move(fs)) {
  for (size_t i = 0; i < kStripes; ++i) stripes_.push_back(std::make_unique<core::Mutex>("block_log"));
  for (size_t i = 0; i < kStripes; ++i) {
    table_stripes_.push_back(std::make_unique<core::SharedMutex>("block_log_table"));
  }
}

core::SharedMutex& BlockLog::TableLock(const std::string& table_dir) {
  return *table_stripes_[XXH3_64bits(table_dir.data(), table_dir.size()) % kStripes];
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> BlockLog::ReadIdFiles(
    const std::string& table_dir) {
  std::vector<std::pair<std::string, std::string>> files;
  const std::string ids = JoinPath(Root(table_dir), "ids");
  absl::StatusOr<std::vector<std::string>> names = fs_->ListDir(ids);
  if (!names.ok()) return files;  // no replicated insert yet
  for (const std::string& name : *names) {
    if (name.size() != 32) continue;  // a file being written has a longer name
    ASSIGN_OR_RETURN(std::string text, fs_->ReadFile(JoinPath(ids, name)));
    files.emplace_back(name, std::move(text));
  }
  return files;
}

core::Mutex& BlockLog::LockFor(const std::string& id) {
  return *stripes_[XXH3_64bits(id.data(), id.size()) % kStripes];
}

absl::Status BlockLog::Stage(const std::string& table_dir, const std::string& token,
                             uint64_t index, const BlockChunk& chunk,
                             const std::string& block_id) {
  std::string dir = JoinPath(JoinPath(Root(table_dir), "staging"), FileNameOf(token));
  RETURN_IF_ERROR(fs_->CreateDirs(dir));
  const std::string path = JoinPath(dir, std::to_string(index));
  if (block_id.empty()) return WriteFileSynced(*fs_, path, EncodeChunk(chunk));
  // The id file's contents as Record would write them, over chunks 0..index.
  core::ChunkChecksum sum;
  if (index > 0) {
    ASSIGN_OR_RETURN(std::vector<BlockChunk> earlier, ReadChunks(dir));
    if (earlier.size() != index) {
      return core::Error(core::ErrorCode::kLogicalError,
                         "Staged block " + dir + " holds " + std::to_string(earlier.size()) +
                             " chunks before chunk " + std::to_string(index));
    }
    for (const BlockChunk& c : earlier) sum.Add(c.rows, c.raw_size, c.data);
  }
  sum.Add(chunk.rows, chunk.raw_size, chunk.data);
  const std::string record = JoinPath(dir, "id." + std::to_string(index + 1));
  // One after the other, on the thread that already runs beside the table's prepare (whose
  // part takes longer to write and sync); a helper thread per insert would cost more CPU.
  RETURN_IF_ERROR(WriteFileSynced(*fs_, path, EncodeChunk(chunk)));
  return WriteFileSynced(*fs_, record, IdRecord(sum.Digest(), block_id));
}

void BlockLog::DropStaged(const std::string& table_dir, const std::string& token) {
  (void)fs_->RemoveAll(JoinPath(JoinPath(Root(table_dir), "staging"), FileNameOf(token)));
}

void BlockLog::DropAllStaged(const std::string& table_dir) {
  (void)fs_->RemoveAll(JoinPath(Root(table_dir), "staging"));
}

bool BlockLog::Contains(const std::string& table_dir, const std::string& id) {
  return fs_->FileSize(JoinPath(JoinPath(Root(table_dir), "ids"), FileNameOf(id))).ok();
}

absl::StatusOr<std::vector<BlockChunk>> BlockLog::ReadChunks(const std::string& dir) {
  ASSIGN_OR_RETURN(std::vector<std::string> names, fs_->ListDir(dir));
  std::vector<std::pair<uint64_t, std::string>> ordered;
  for (const std::string& name : names) {
    uint64_t k = 0;
    if (absl::SimpleAtoi(name, &k)) ordered.emplace_back(k, name);
  }
  std::sort(ordered.begin(), ordered.end());
  std::vector<BlockChunk> chunks;
  for (const auto& [k, name] : ordered) {
    ASSIGN_OR_RETURN(std::string bytes, fs_->ReadFile(JoinPath(dir, name)));
    if (bytes.size() < 16) {
      return core::Error(core::ErrorCode::kCorruptedData,
                         "Retained block chunk " + JoinPath(dir, name) + " is truncated");
    }
    BlockChunk chunk;
    std::memcpy(&chunk.rows, bytes.data(), 8);
    std::memcpy(&chunk.raw_size, bytes.data() + 8, 8);
    chunk.data = bytes.substr(16);
    chunks.push_back(std::move(chunk));
  }
  return chunks;
}

absl::StatusOr<bool> BlockLog::RecordStaged(const std::string& root, const std::string& staged,
                                            const std::string& name, const std::string& id) {
  absl::StatusOr<std::vector<std::string>> names = fs_->ListDir(staged);
  if (!names.ok()) return false;
  uint64_t chunks = 0;
  std::string record;
  for (const std::string& entry : *names) {
    uint64_t k = 0;
    if (absl::SimpleAtoi(entry, &k)) ++chunks;
    if (absl::StartsWith(entry, "id.")) record = entry;
  }
  if (record.empty()) return false;
  uint64_t covered = 0;
  absl::StatusOr<std::string> text = fs_->ReadFile(JoinPath(staged, record));
  std::optional<IdFile> parsed;
  if (text.ok()) parsed = ParseIdRecord(*text);
  if (!absl::SimpleAtoi(record.substr(3), &covered) || covered != chunks || !parsed ||
      parsed->id != id) {
    // Written for another id, or more chunks came after it: Record writes the id itself.
    RETURN_IF_ERROR(fs_->RemoveAll(JoinPath(staged, record)));
    return false;
  }
  const std::string ids = JoinPath(root, "ids");
  RETURN_IF_ERROR(fs_->CreateDirs(ids));
  const std::string data = RetainedDir(root, name);
  (void)fs_->RemoveAll(data);
  // The chunks first, then the id: List never shows the id without its retained chunks.
  RETURN_IF_ERROR(fs_->Rename(staged, data));
  RETURN_IF_ERROR(fs_->Rename(JoinPath(data, record), JoinPath(ids, name)));
  // Both renames durable before the parts' commit: one fsync of ids/ (shared with concurrent
  // commits).
  RETURN_IF_ERROR(dir_syncs_.Sync(ids));
  return true;
}

absl::Status BlockLog::Record(const std::string& table_dir, const std::string& id,
                              const std::string& token) {
  const std::string root = Root(table_dir);
  const std::string name = FileNameOf(id);
  const std::string staged = JoinPath(JoinPath(root, "staging"), FileNameOf(token));
  if (!token.empty()) {
    ASSIGN_OR_RETURN(bool recorded, RecordStaged(root, staged, name, id));
    if (recorded) return absl::OkStatus();
  }
  uint64_t checksum = 0;
  const std::string ids = JoinPath(root, "ids");
  RETURN_IF_ERROR(fs_->CreateDirs(ids));
  if (!token.empty() && fs_->ListDir(staged).ok()) {
    ASSIGN_OR_RETURN(std::vector<BlockChunk> chunks, ReadChunks(staged));
    checksum = ChecksumOf(chunks);
    const std::string data = RetainedDir(root, name);
    (void)fs_->RemoveAll(data);
    RETURN_IF_ERROR(fs_->Rename(staged, data));
  }
  // Written under a longer name, then renamed: List never sees a half-written id.
  const std::string tmp = JoinPath(ids, name + ".tmp");
  RETURN_IF_ERROR(WriteFileSynced(*fs_, tmp, IdRecord(checksum, id)));
  RETURN_IF_ERROR(fs_->Rename(tmp, JoinPath(ids, name)));
  return dir_syncs_.Sync(ids);  // the retained chunks' rename and the id's at once
}

absl::StatusOr<std::vector<BlockEntry>> BlockLog::List(const std::string& table_dir) {
  const std::string root = Root(table_dir);
  std::vector<BlockEntry> entries;
  absl::StatusOr<std::vector<std::string>> names = fs_->ListDir(JoinPath(root, "ids"));
  if (!names.ok()) return entries;  // no replicated insert yet
  std::set<std::string> retained;
  for (const std::string& name : *names) {
    if (name.size() == 34 && absl::EndsWith(name, ".d")) retained.insert(name.substr(0, 32));
  }
  if (absl::StatusOr<std::vector<std::string>> legacy = fs_->ListDir(JoinPath(root, "data"));
      legacy.ok()) {
    retained.insert(legacy->begin(), legacy->end());
  }
  for (const std::string& name : *names) {
    if (name.size() != 32) continue;  // a file being written has a longer name
    entries.push_back({name, retained.count(name) > 0});
  }
  return entries;
}

absl::StatusOr<std::vector<BlockChunk>> BlockLog::Read(const std::string& table_dir,
                                                       const std::string& name,
                                                       uint64_t* checksum, std::string* id) {
  const std::string root = Root(table_dir);
  absl::StatusOr<std::string> text = fs_->ReadFile(JoinPath(JoinPath(root, "ids"), name));
  std::string data = RetainedDir(root, name);
  if (!fs_->ListDir(data).ok()) data = LegacyRetainedDir(root, name);
  if (!text.ok() || !fs_->ListDir(data).ok()) {
    return core::Error(core::ErrorCode::kNoSuchDataPart, "Block " + name + " is not retained here");
  }
  std::optional<IdFile> parsed = ParseIdRecord(*text);
  if (!parsed) {
    return core::Error(core::ErrorCode::kCorruptedData, "Block id file " + name + " is damaged");
  }
  const uint64_t recorded = parsed->checksum;
  ASSIGN_OR_RETURN(std::vector<BlockChunk> chunks, ReadChunks(data));
  uint64_t actual = ChecksumOf(chunks);
  if (actual != recorded) {
    return core::Error(core::ErrorCode::kChecksumDoesntMatch,
                       "Retained block " + name + " in " + data + ": checksum " +
                           std::to_string(actual) + ", recorded " + std::to_string(recorded));
  }
  *checksum = actual;
  *id = std::move(parsed->id);
  return chunks;
}

absl::Status BlockLog::Forget(const std::string& table_dir, const std::string& id) {
  const std::string root = Root(table_dir);
  const std::string name = FileNameOf(id);
  RETURN_IF_ERROR(fs_->RemoveAll(JoinPath(JoinPath(root, "ids"), name)));
  RETURN_IF_ERROR(fs_->SyncDir(JoinPath(root, "ids")));
  RETURN_IF_ERROR(fs_->RemoveAll(RetainedDir(root, name)));
  return fs_->RemoveAll(LegacyRetainedDir(root, name));
}

absl::Status BlockLog::Release(const std::string& table_dir, const std::string& name) {
  if (name.size() != 32 || name.find('/') != std::string::npos || name.find('.') != std::string::npos) {
    return core::Error(core::ErrorCode::kBadArguments, "Bad block name " + name);
  }
  const std::string root = Root(table_dir);
  RETURN_IF_ERROR(fs_->RemoveAll(RetainedDir(root, name)));
  return fs_->RemoveAll(LegacyRetainedDir(root, name));
}

absl::StatusOr<size_t> BlockLog::Prune(const std::string& table_dir,
                                       const std::set<std::string>& settled, uint64_t keep) {
  ASSIGN_OR_RETURN(std::vector<BlockEntry> entries, List(table_dir));
  if (entries.size() <= keep) return 0;
  const std::string ids = JoinPath(Root(table_dir), "ids");
  // (commit time, name) of every id, newest first; an unreadable one counts as the newest.
  std::vector<std::pair<int64_t, const BlockEntry*>> ordered;
  for (const BlockEntry& entry : entries) {
    int64_t time = std::numeric_limits<int64_t>::max();
    if (absl::StatusOr<std::string> text = fs_->ReadFile(JoinPath(ids, entry.name)); text.ok()) {
      if (std::optional<IdFile> parsed = ParseIdRecord(*text)) time = parsed->time;
    }
    ordered.emplace_back(time, &entry);
  }
  std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second->name > b.second->name;
  });
  size_t forgotten = 0;
  for (size_t i = keep; i < ordered.size(); ++i) {
    const BlockEntry& entry = *ordered[i].second;
    if (entry.has_data || settled.count(entry.name) == 0) continue;
    RETURN_IF_ERROR(fs_->RemoveAll(JoinPath(ids, entry.name)));
    ++forgotten;
  }
  // Not synced: an id a crash brings back is forgotten again by a later pass.
  return forgotten;
}

}  // namespace granite::storage
