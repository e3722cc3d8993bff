// Decodes the columns of one Arrow record batch (the reverse of arrow_batch_encoder.h) into
// granite columns of the types the Arrow fields read as (arrow_types.h): walks the batch's field
// nodes and buffers depth first, checks every length and offset against the body, and leaves
// default values (0, "") under NULLs. Used by the Arrow input (arrow_input.h).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "coordinator/formats/arrow_format_generated.h"
#include "coordinator/formats/arrow_input.h"
#include "core/column.h"

namespace granite::coordinator {

// Reads the columns of one record batch in schema order.
// Thread-safety: none.
// REQUIRES: `batch` and `body` outlive the decoder; batch was verified (flatbuffers Verifier).
class ArrowBatchDecoder {
 public:
  ArrowBatchDecoder(const arrow_fb::RecordBatch& batch, std::string_view body);

  // Returns the next column, laid out as `layout` says; INCORRECT_DATA when the batch's nodes,
  // buffers or offsets do not fit it, CANNOT_DECOMPRESS for a bad compressed buffer.
  absl::StatusOr<core::Column> Next(const ArrowColumnLayout& layout);

  // INCORRECT_DATA when `rows` (a node's or the batch's length) is more than the batch's buffers
  // can back: one bit each, or kRowsWithoutBytes for nodes without buffers (Arrow's null type,
  // a batch of no columns), so a few bytes claiming 2^40 rows are refused, not materialized.
  absl::Status CheckRows(int64_t rows) const;
  // As CheckRows, by the bytes the buffers read so far decompressed to (and the stored bytes of
  // the rest), not by the lengths compressed buffers claim: before rows are made of nothing (the
  // defaults of columns the batch lacks, the NULLs of Arrow's null type), so a few bytes claiming
  // 2^40 rows are refused. A null-type column of a compressed batch is thus limited to 2^16 rows
  // or 8 per byte read before it and stored after it.
  absl::Status CheckDecodedRows(int64_t rows) const;

  static constexpr uint64_t kRowsWithoutBytes = uint64_t{1} << 16;

 private:
  absl::StatusOr<arrow_fb::FieldNode> NextNode();
  // Returns the next buffer's bytes (decompressed when the batch is compressed).
  absl::StatusOr<std::string_view> NextBuffer();
  // Reads rows + 1 offsets (32- or 64-bit) into *offsets, checked to grow and end by `limit`
  // (or by the child's length when limit is unknown: pass SIZE_MAX and check later).
  absl::Status ReadOffsets(std::string_view buffer, bool large, size_t rows,
                           std::vector<uint64_t>* offsets) const;

  const arrow_fb::RecordBatch& batch_;
  std::string_view body_;
  int compression_ = -1;  // arrow_fb::CompressionType, or -1 for none
  size_t next_node_ = 0;
  size_t next_buffer_ = 0;
  uint64_t max_rows_ = kRowsWithoutBytes;
  uint64_t decoded_bytes_ = 0;  // the bytes NextBuffer returned
  std::deque<std::string> decompressed_;  // owns decompressed buffers (stable addresses)
};

}  // namespace granite::coordinator
