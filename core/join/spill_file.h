// SpillFile: a temporary file of blocks that a grace hash join (core/join/grace_hash_join.h)
// writes the rows of one bucket to and reads back once that bucket's turn comes. Each block is
// stored as one record: the block codec's dump (core/block_codec.h) compressed with LZ4, behind
// a small header. Columns a block carries as empty placeholders (FragmentPipeline leaves the
// columns nothing reads after its filter empty) are recorded by type only and come back empty.
//
// The file lives in the directory given at creation (a worker's <data>/tmp/) and is removed when
// the SpillFile is destroyed, so a query that ends in any way (success, error, cancel) leaves
// nothing behind; a process that dies leaves files its next start removes (RemoveSpillFiles).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "core/block.h"

namespace granite::core {

// Appends blocks to a temporary file, then reads them back in order.
// Thread-safety: none; the owner serializes calls.
class SpillFile {
 public:
  // Creates an empty file named "<dir>/join-<pid>-<n>.spill", creating `dir` if it is missing.
  // Errors: CANNOT_WRITE_TO_FILE naming the path.
  static absl::StatusOr<std::unique_ptr<SpillFile>> Create(const std::string& dir);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // One block encoded as a record: what Append writes. Encoding needs no file, so callers
  // that share a file encode first and serialize only AppendRecord.
  struct Record {
    std::string bytes;
    uint64_t rows = 0;
    uint64_t uncompressed_bytes = 0;
  };
  static Record Encode(const Block& block);

  // Appends `block` as one record (Encode, then AppendRecord). Errors: CANNOT_WRITE_TO_FILE (a
  // full disk, ...).
  absl::Status Append(const Block& block) { return AppendRecord(Encode(block)); }
  absl::Status AppendRecord(const Record& record);

  // Returns the next record from the start of the file (after the last one Next returned), or
  // nullopt at the end. Appends after reading started are read too. Errors: CANNOT_READ_FROM_FILE,
  // CORRUPTED_DATA.
  absl::StatusOr<std::optional<Block>> Next();

  // Forgets every record (the file is truncated): a bucket whose rows were all read back.
  absl::Status Clear();

  uint64_t rows() const { return rows_; }                // rows appended and not cleared
  uint64_t bytes_written() const { return bytes_written_; }  // compressed bytes ever written
  uint64_t uncompressed_bytes() const { return uncompressed_bytes_; }
  const std::string& path() const { return path_; }

 private:
  SpillFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

  std::string path_;
  int fd_;
  uint64_t size_ = 0;       // bytes in the file
  uint64_t read_at_ = 0;    // offset of the next record Next reads
  uint64_t rows_ = 0;
  uint64_t bytes_written_ = 0;
  uint64_t uncompressed_bytes_ = 0;
};

// Removes the spill files a previous process left in `dir` (it died mid-query); a missing
// directory is fine. Returns how many were removed.
size_t RemoveSpillFiles(const std::string& dir);

}  // namespace granite::core
