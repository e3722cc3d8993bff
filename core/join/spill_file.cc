#include "core/join/spill_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/block_codec.h"
#include "core/error.h"
#include "core/status_macros.h"

namespace granite::core {
namespace {

constexpr char kPrefix[] = "join-";
constexpr char kSuffix[] = ".spill";

template <typename T>
void Put(std::string* out, T value) {
  out->append(reinterpret_cast<const char*>(&value), sizeof(value));
}

template <typename T>
bool Take(std::string_view* in, T* value) {
  if (in->size() < sizeof(T)) return false;
  std::memcpy(value, in->data(), sizeof(T));
  in->remove_prefix(sizeof(T));
  return true;
}

absl::Status Corrupted(const std::string& path) {
  return Error(ErrorCode::kCorruptedData, "Spill file " + path + " is corrupted");
}

}  // namespace

absl::StatusOr<std::unique_ptr<SpillFile>> SpillFile::Create(const std::string& dir) {
  static std::atomic<uint64_t> next{0};
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return Error(ErrorCode::kCannotWriteToFile,
                 absl::StrCat("Cannot create directory ", dir, ": ", std::strerror(errno)));
  }
  const std::string path =
      absl::StrCat(dir, "/", kPrefix, ::getpid(), "-", next.fetch_add(1), kSuffix);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Error(ErrorCode::kCannotWriteToFile,
                 absl::StrCat("Cannot create file ", path, ": ", std::strerror(errno)));
  }
  return std::unique_ptr<SpillFile>(new SpillFile(path, fd));
}

SpillFile::~SpillFile() {
  ::close(fd_);
  ::unlink(path_.c_str());
}

SpillFile::Record SpillFile::Encode(const Block& block) {
  // Record: [u64 length of the rest][u64 raw size][u32 placeholders]{[u32 index][type]}[LZ4].
  const size_t rows = block.rows();
  Block real;
  real.rows_without_columns = rows;
  uint32_t placeholders = 0;
  std::string placeholder_bytes;
  for (size_t c = 0; c < block.columns.size(); ++c) {
    const Column& column = *block.columns[c];
    if (column.size() == rows || c == 0) {
      real.columns.push_back(block.columns[c]);
      continue;
    }
    ++placeholders;
    Put<uint32_t>(&placeholder_bytes, static_cast<uint32_t>(c));
    AppendTypeBytes(column.logical_type(), &placeholder_bytes);
  }
  const std::string raw = EncodeBlock(real);
  const std::string compressed = CompressLz4(raw);
  Record record;
  record.rows = rows;
  record.uncompressed_bytes = raw.size();
  std::string& out = record.bytes;
  const uint64_t length =
      sizeof(uint64_t) + sizeof(uint32_t) + placeholder_bytes.size() + compressed.size();
  out.reserve(sizeof(uint64_t) + length);
  Put<uint64_t>(&out, length);
  Put<uint64_t>(&out, raw.size());
  Put<uint32_t>(&out, placeholders);
  out += placeholder_bytes;
  out += compressed;
  return record;
}

absl::Status SpillFile::AppendRecord(const Record& record) {
  std::string_view part = record.bytes;
  while (!part.empty()) {
    const ssize_t n = ::pwrite(fd_, part.data(), part.size(), static_cast<off_t>(size_));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return Error(ErrorCode::kCannotWriteToFile,
                   absl::StrCat("Cannot write to ", path_, ": ", std::strerror(errno)));
    }
    part.remove_prefix(static_cast<size_t>(n));
    size_ += static_cast<uint64_t>(n);
  }
  rows_ += record.rows;
  bytes_written_ += record.bytes.size();
  uncompressed_bytes_ += record.uncompressed_bytes;
  return absl::OkStatus();
}

absl::StatusOr<std::optional<Block>> SpillFile::Next() {
  if (read_at_ >= size_) return std::optional<Block>();
  auto read = [this](void* to, size_t n, uint64_t at) -> absl::Status {
    char* out = static_cast<char*>(to);
    while (n > 0) {
      const ssize_t got = ::pread(fd_, out, n, static_cast<off_t>(at));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        return Error(ErrorCode::kCannotReadFromFile,
                     absl::StrCat("Cannot read from ", path_, ": ",
                                  got == 0 ? "unexpected end" : std::strerror(errno)));
      }
      out += got;
      at += static_cast<uint64_t>(got);
      n -= static_cast<size_t>(got);
    }
    return absl::OkStatus();
  };
  uint64_t length = 0;
  RETURN_IF_ERROR(read(&length, sizeof(length), read_at_));
  if (length > size_ - read_at_ - sizeof(length)) return Corrupted(path_);
  std::string record(length, '\0');
  RETURN_IF_ERROR(read(record.data(), length, read_at_ + sizeof(length)));
  read_at_ += sizeof(length) + length;
  std::string_view in = record;
  uint64_t raw_size = 0;
  uint32_t placeholders = 0;
  if (!Take(&in, &raw_size) || !Take(&in, &placeholders)) return Corrupted(path_);
  std::vector<std::pair<uint32_t, TypeId>> empty(placeholders);
  for (auto& [index, type] : empty) {
    if (!Take(&in, &index) || !ReadTypeBytes(&in, &type)) return Corrupted(path_);
  }
  ASSIGN_OR_RETURN(std::string raw, DecompressLz4(in, raw_size));
  ASSIGN_OR_RETURN(Block real, DecodeBlock(raw));
  Block block;
  block.rows_without_columns = real.rows();
  size_t from = 0;
  auto next_empty = empty.begin();
  const size_t width = real.columns.size() + empty.size();
  for (size_t c = 0; c < width; ++c) {
    if (next_empty != empty.end() && next_empty->first == c) {
      block.columns.push_back(std::make_shared<Column>(next_empty->second));
      ++next_empty;
    } else if (from < real.columns.size()) {
      block.columns.push_back(std::move(real.columns[from++]));
    } else {
      return Corrupted(path_);
    }
  }
  return std::optional<Block>(std::move(block));
}

absl::Status SpillFile::Clear() {
  if (::ftruncate(fd_, 0) != 0) {
    return Error(ErrorCode::kCannotWriteToFile,
                 absl::StrCat("Cannot truncate ", path_, ": ", std::strerror(errno)));
  }
  size_ = 0;
  read_at_ = 0;
  rows_ = 0;
  return absl::OkStatus();
}

size_t RemoveSpillFiles(const std::string& dir) {
  DIR* listing = ::opendir(dir.c_str());
  if (listing == nullptr) return 0;
  size_t removed = 0;
  while (const dirent* entry = ::readdir(listing)) {
    const std::string name = entry->d_name;
    if (!absl::StartsWith(name, kPrefix) || !absl::EndsWith(name, kSuffix)) continue;
    if (::unlink((dir + "/" + name).c_str()) == 0) ++removed;
  }
  ::closedir(listing);
  return removed;
}

}  // namespace granite::core
