// TempDirectory: a fresh directory under /tmp (mkdtemp) that is deleted with everything in it when
// the object goes away. For tests of storage and of the layers above it.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace granite::storage {

// Owns one temporary directory.
// Thread-safety: none needed; path() is constant.
class TempDirectory {
 public:
  TempDirectory() {
    std::string pattern = "/tmp/granite_storage_XXXXXX";
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempDirectory() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDirectory(const TempDirectory&) = delete;
  TempDirectory& operator=(const TempDirectory&) = delete;

  // Returns the directory, or "" if it could not be created.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace granite::storage
