#include "storage/fault_injection_file_system.h"

#include "absl/strings/str_cat.h"
#include "core/error.h"

namespace granite::storage {
namespace {

// Wraps a WritableFile so that its Append and Sync calls pass through the fault injector.
class FaultInjectionWritableFile : public WritableFile {
 public:
  FaultInjectionWritableFile(FaultInjectionFileSystem* fs, std::string path,
                             std::unique_ptr<WritableFile> base)
      : fs_(fs), path_(std::move(path)), base_(std::move(base)) {}

  absl::Status Append(std::string_view data) override {
    if (absl::Status s = fs_->MaybeFail(FaultOp::kWrite, "write to file " + path_); !s.ok()) {
      return s;
    }
    return base_->Append(data);
  }
  absl::Status Sync() override {
    if (absl::Status s = fs_->MaybeFail(FaultOp::kSync, "fsync file " + path_); !s.ok()) return s;
    return base_->Sync();
  }
  absl::Status Close() override { return base_->Close(); }

 private:
  FaultInjectionFileSystem* fs_;
  std::string path_;
  std::unique_ptr<WritableFile> base_;
};

}  // namespace

void FaultInjectionFileSystem::FailNth(FaultOp op, int n, bool sticky) {
  Arm& arm = arms_[static_cast<int>(op)];
  arm.failing.store(false);
  arm.sticky.store(sticky);
  arm.countdown.store(n);
}

void FaultInjectionFileSystem::Clear() {
  for (Arm& arm : arms_) {
    arm.countdown.store(0);
    arm.failing.store(false);
  }
}

absl::Status FaultInjectionFileSystem::MaybeFail(FaultOp op, const std::string& what) {
  int index = static_cast<int>(op);
  counts_[index].fetch_add(1);
  Arm& arm = arms_[index];
  bool fail = arm.failing.load();
  int countdown = arm.countdown.load();
  // Decrements a positive countdown; the thread that takes it to zero injects the failure.
  while (!fail && countdown > 0) {
    if (arm.countdown.compare_exchange_weak(countdown, countdown - 1)) {
      if (countdown == 1) {
        fail = true;
        if (arm.sticky.load()) arm.failing.store(true);
      }
      break;
    }
  }
  if (!fail) return absl::OkStatus();
  injected_.fetch_add(1);
  return core::Error(core::ErrorCode::kCannotWriteToFile, absl::StrCat("Injected fault: ", what));
}

absl::StatusOr<std::unique_ptr<WritableFile>> FaultInjectionFileSystem::NewWritableFile(
    const std::string& path) {
  if (absl::Status s = MaybeFail(FaultOp::kCreateFile, "create file " + path); !s.ok()) return s;
  auto base = base_->NewWritableFile(path);
  if (!base.ok()) return base.status();
  return std::make_unique<FaultInjectionWritableFile>(this, path, std::move(*base));
}

absl::Status FaultInjectionFileSystem::CreateDir(const std::string& path) {
  if (absl::Status s = MaybeFail(FaultOp::kCreateDir, "create directory " + path); !s.ok()) {
    return s;
  }
  return base_->CreateDir(path);
}

absl::Status FaultInjectionFileSystem::CreateDirs(const std::string& path) {
  if (absl::Status s = MaybeFail(FaultOp::kCreateDir, "create directory " + path); !s.ok()) {
    return s;
  }
  return base_->CreateDirs(path);
}

absl::Status FaultInjectionFileSystem::SyncFile(const std::string& path) {
  if (absl::Status s = MaybeFail(FaultOp::kSync, "fsync file " + path); !s.ok()) return s;
  return base_->SyncFile(path);
}

absl::Status FaultInjectionFileSystem::SyncDir(const std::string& path) {
  if (absl::Status s = MaybeFail(FaultOp::kSync, "fsync directory " + path); !s.ok()) return s;
  return base_->SyncDir(path);
}

absl::Status FaultInjectionFileSystem::Rename(const std::string& from, const std::string& to) {
  if (absl::Status s = MaybeFail(FaultOp::kRename, "rename " + from + " to " + to); !s.ok()) {
    return s;
  }
  return base_->Rename(from, to);
}

}  // namespace granite::storage
