// MemoryFileSystem: a storage::FileSystem held in memory, for fuzz targets that write a part and
// read it back on every run. The POSIX one costs a dozen system calls per file (create, write,
// close, open, pread, remove) on a disk-backed /tmp; here a run touches no kernel at all, so the
// fuzzer's executions go to the decoders. Files are whole strings by path; a directory is a path
// in a set. Sync calls do nothing (nothing is durable). Errors carry the codes of the POSIX
// implementation (CANNOT_WRITE_TO_FILE / CANNOT_READ_FROM_FILE) and name the path.
// Thread-safety: every call takes one mutex; an open file holds a snapshot of its contents.
#pragma once

#include <algorithm>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "storage/file_system.h"

namespace granite::fuzz {

class MemoryFileSystem : public storage::FileSystem {
 public:
  absl::StatusOr<std::unique_ptr<storage::WritableFile>> NewWritableFile(
      const std::string& path) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!dirs_.count(Parent(path))) return WriteError("open", path);
    auto contents = std::make_shared<std::string>();
    files_[path] = contents;
    return std::unique_ptr<storage::WritableFile>(new Writable(std::move(contents)));
  }
  absl::StatusOr<std::unique_ptr<storage::RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = files_.find(path);
    if (it == files_.end()) return ReadError("open", path);
    return std::unique_ptr<storage::RandomAccessFile>(new Readable(path, *it->second));
  }
  absl::StatusOr<std::string> ReadFile(const std::string& path) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = files_.find(path);
    if (it == files_.end()) return ReadError("open", path);
    return *it->second;
  }
  absl::StatusOr<uint64_t> FileSize(const std::string& path) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = files_.find(path);
    if (it == files_.end()) return ReadError("stat", path);
    return it->second->size();
  }
  absl::StatusOr<std::vector<std::string>> ListDir(const std::string& path) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!dirs_.count(path)) return ReadError("open directory", path);
    std::vector<std::string> names;
    const std::string prefix = path + "/";
    auto add = [&](const std::string& entry) {
      if (entry.size() > prefix.size() && entry.compare(0, prefix.size(), prefix) == 0 &&
          entry.find('/', prefix.size()) == std::string::npos) {
        names.push_back(entry.substr(prefix.size()));
      }
    };
    for (const auto& [file, contents] : files_) add(file);
    for (const std::string& dir : dirs_) add(dir);
    std::sort(names.begin(), names.end());
    return names;
  }
  absl::Status CreateDir(const std::string& path) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (dirs_.count(path) || files_.count(path)) return WriteError("create directory", path);
    const std::string parent = Parent(path);
    if (!parent.empty() && !dirs_.count(parent)) return WriteError("create directory", path);
    dirs_.insert(path);
    return absl::OkStatus();
  }
  absl::Status CreateDirs(const std::string& path) override {
    std::lock_guard<std::mutex> lock(mu_);
    for (std::string dir = path; !dir.empty(); dir = Parent(dir)) dirs_.insert(dir);
    return absl::OkStatus();
  }
  absl::Status SyncFile(const std::string&) override { return absl::OkStatus(); }
  absl::Status SyncDir(const std::string&) override { return absl::OkStatus(); }
  absl::Status Rename(const std::string& from, const std::string& to) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = files_.find(from);
    if (it == files_.end()) return WriteError("rename", from);
    auto contents = it->second;
    files_.erase(it);
    files_[to] = std::move(contents);
    return absl::OkStatus();
  }
  absl::Status RemoveAll(const std::string& path) override {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string prefix = path + "/";
    auto under = [&](const std::string& entry) {
      return entry == path || entry.compare(0, prefix.size(), prefix) == 0;
    };
    for (auto it = files_.begin(); it != files_.end();) {
      it = under(it->first) ? files_.erase(it) : std::next(it);
    }
    for (auto it = dirs_.begin(); it != dirs_.end();) {
      it = under(*it) ? dirs_.erase(it) : std::next(it);
    }
    return absl::OkStatus();
  }

 private:
  class Writable : public storage::WritableFile {
   public:
    explicit Writable(std::shared_ptr<std::string> contents) : contents_(std::move(contents)) {}
    absl::Status Append(std::string_view data) override {
      contents_->append(data);
      return absl::OkStatus();
    }
    absl::Status Sync() override { return absl::OkStatus(); }
    absl::Status Close() override { return absl::OkStatus(); }

   private:
    std::shared_ptr<std::string> contents_;
  };

  class Readable : public storage::RandomAccessFile {
   public:
    Readable(std::string path, std::string contents)
        : path_(std::move(path)), contents_(std::move(contents)) {}
    absl::Status Read(uint64_t offset, size_t n, char* out) const override {
      if (offset > contents_.size() || n > contents_.size() - offset) {
        return core::Error(core::ErrorCode::kCannotReadFromFile,
                           absl::StrCat("Cannot read ", n, " bytes at offset ", offset,
                                        " from file ", path_, ": file is too short"));
      }
      std::copy_n(contents_.data() + offset, n, out);
      return absl::OkStatus();
    }

   private:
    std::string path_;
    std::string contents_;
  };

  static std::string Parent(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
  }
  static absl::Status WriteError(const char* what, const std::string& path) {
    return core::Error(core::ErrorCode::kCannotWriteToFile,
                       absl::StrCat("Cannot ", what, " ", path, " (in memory)"));
  }
  static absl::Status ReadError(const char* what, const std::string& path) {
    return core::Error(core::ErrorCode::kCannotReadFromFile,
                       absl::StrCat("Cannot ", what, " ", path, " (in memory)"));
  }

  std::mutex mu_;
  std::map<std::string, std::shared_ptr<std::string>> files_;
  std::set<std::string> dirs_;
};

}  // namespace granite::fuzz
