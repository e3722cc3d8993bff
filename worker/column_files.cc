#include "worker/column_files.h"

#include "core/status_macros.h"

namespace granite::worker {

ColumnFiles::ColumnFiles(size_t parts, size_t columns)
    : parts_(parts),
      columns_(columns),
      enabled_(parts > 0 && columns > 0 && parts * columns <= kMaxFiles),
      files_(enabled_ ? parts * columns : 0) {}

ColumnFiles::~ColumnFiles() {
  for (std::atomic<storage::RandomAccessFile*>& file : files_) delete file.load();
}

absl::StatusOr<const storage::RandomAccessFile*> ColumnFiles::Get(const storage::Part& part,
                                                                  size_t part_slot,
                                                                  size_t position,
                                                                  size_t column_index) const {
  if (!enabled_ || part_slot >= parts_) return nullptr;
  std::atomic<storage::RandomAccessFile*>& slot = files_[part_slot * columns_ + position];
  storage::RandomAccessFile* file = slot.load(std::memory_order_acquire);
  if (file != nullptr) return file;
  ASSIGN_OR_RETURN(std::unique_ptr<storage::RandomAccessFile> opened,
                   part.OpenColumn(column_index));
  opened_.fetch_add(1, std::memory_order_relaxed);
  storage::RandomAccessFile* expected = nullptr;
  if (slot.compare_exchange_strong(expected, opened.get(), std::memory_order_acq_rel)) {
    return opened.release();
  }
  return expected;  // another thread opened it first; ours closes here
}

}  // namespace granite::worker
