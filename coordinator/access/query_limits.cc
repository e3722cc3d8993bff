#include "coordinator/access/query_limits.h"

#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/block_sort.h"
#include "core/error.h"

namespace granite::coordinator::access {

namespace {

uint64_t BlockBytes(const core::Block& block, size_t rows) {
  if (block.rows() == 0) return 0;
  uint64_t bytes = 0;
  for (const core::ColumnPtr& column : block.columns) bytes += column->ByteSize();
  // Rows of one block are about equally wide: a prefix costs its share.
  return rows == block.rows() ? bytes : bytes / block.rows() * rows;
}

}  // namespace

absl::Status CheckQuerySize(std::string_view query, const absl::StatusOr<sql::Statement>& parsed,
                            const core::Settings& settings) {
  if (settings.max_query_size == 0) return absl::OkStatus();
  size_t size = query.size();
  if (parsed.ok()) {
    if (const auto* insert = std::get_if<sql::InsertStatement>(&*parsed)) {
      size -= std::min(size, insert->inline_data.size());
    }
  }
  if (size <= settings.max_query_size) return absl::OkStatus();
  return core::Error(core::ErrorCode::kSyntaxError,
                     absl::StrCat("Syntax error: failed at position ", settings.max_query_size + 1,
                                  ": Max query size exceeded: the query has ", size,
                                  " bytes, max_query_size is ", settings.max_query_size));
}

absl::Status CheckReadLimits(const core::Settings& settings, uint64_t read_rows,
                             uint64_t read_bytes) {
  if (settings.max_rows_to_read > 0 && read_rows > settings.max_rows_to_read) {
    return core::Error(core::ErrorCode::kTooManyRows,
                       absl::StrCat("Limit for rows (controlled by 'max_rows_to_read' setting) "
                                    "exceeded, max rows: ", settings.max_rows_to_read,
                                    ", current rows: ", read_rows));
  }
  if (settings.max_bytes_to_read > 0 && read_bytes > settings.max_bytes_to_read) {
    return core::Error(core::ErrorCode::kTooManyBytes,
                       absl::StrCat("Limit for (uncompressed) bytes to read exceeded (controlled "
                                    "by 'max_bytes_to_read' setting), max bytes: ",
                                    settings.max_bytes_to_read, ", current bytes: ", read_bytes));
  }
  return absl::OkStatus();
}

absl::Status ApplyResultLimits(const core::Settings& settings, core::Block* block, bool* cut,
                               uint64_t rows_before, uint64_t bytes_before) {
  *cut = false;
  const size_t rows = block->rows();
  size_t keep = rows;
  if (settings.max_result_rows > 0 && rows_before + rows > settings.max_result_rows) {
    if (settings.result_overflow_mode == "throw") {
      return core::Error(core::ErrorCode::kTooManyRowsOrBytes,
                         absl::StrCat("Limit for result exceeded (controlled by "
                                      "'max_result_rows' setting), max rows: ",
                                      settings.max_result_rows, ", current rows: ",
                                      rows_before + rows));
    }
    keep = settings.max_result_rows - std::min<uint64_t>(rows_before, settings.max_result_rows);
  }
  if (settings.max_result_bytes > 0 && keep > 0) {
    uint64_t bytes = bytes_before + BlockBytes(*block, keep);
    if (bytes > settings.max_result_bytes) {
      if (settings.result_overflow_mode == "throw") {
        return core::Error(core::ErrorCode::kTooManyRowsOrBytes,
                           absl::StrCat("Limit for result exceeded (controlled by "
                                        "'max_result_bytes' setting), max bytes: ",
                                        settings.max_result_bytes, ", current bytes: ", bytes));
      }
      uint64_t per_row = std::max<uint64_t>(1, BlockBytes(*block, block->rows()) / rows);
      uint64_t room = settings.max_result_bytes - std::min(bytes_before, settings.max_result_bytes);
      // At least one row of the whole result, as ClickHouse never answers 'break' with nothing.
      keep = std::max<size_t>(rows_before == 0 ? 1 : 0, std::min<uint64_t>(keep, room / per_row));
    }
  }
  if (keep < rows) {
    // SliceRows reads a limit of 0 as "to the end": no room left is an empty slice.
    *block = keep == 0 ? core::SliceRows(*block, rows, 0) : core::SliceRows(*block, 0, keep);
    *cut = true;
  }
  return absl::OkStatus();
}

uint64_t ResultBytes(const core::Block& block) { return BlockBytes(block, block.rows()); }

bool QueryTimer::Expired() {
  if (limit_seconds_ == 0) return false;
  if (expired_.load()) return true;
  if (std::chrono::steady_clock::now() - start_ < std::chrono::seconds(limit_seconds_)) {
    return false;
  }
  expired_.store(true);
  return true;
}

absl::Status QueryTimer::Error() const {
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return core::Error(core::ErrorCode::kTimeoutExceeded,
                     absl::StrFormat("Timeout exceeded: elapsed %.3f seconds, maximum: %d "
                                     "(max_execution_time); the query was cancelled on every "
                                     "worker",
                                     elapsed, limit_seconds_));
}

}  // namespace granite::coordinator::access
