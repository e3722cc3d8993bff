// RequestInput: the input bytes of a query as QueryInfo's transport fields shape them, before any
// format parser sees them: input_data_delimiter follows every non-empty input_data piece (as in
// ClickHouse, also the last), and input_compression_type decompresses the stream the pieces
// make. Wraps the InputSource of a streamed INSERT (coordinator/input_source.h) and transforms the
// first message's input the same way.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "clickhouse/grpc/clickhouse_grpc.pb.h"
#include "coordinator/exec/input_source.h"
#include "coordinator/server/stream_compression.h"

namespace granite::coordinator {

// Yields the transformed pieces of `inner` (may be null: no further input).
// Thread-safety: none; used by the thread that runs the query.
class RequestInput : public InputSource {
 public:
  // Returns the input of `info`, or UNKNOWN_COMPRESSION_METHOD for an input_compression_type
  // granite does not know. REQUIRES: `inner`, if set, outlives the result.
  static absl::StatusOr<std::unique_ptr<RequestInput>> Make(
      const clickhouse::grpc::QueryInfo& info, InputSource* inner);

  // Returns true when the request asks for no transformation (the input passes unchanged).
  bool passthrough() const { return delimiter_.empty() && decompressor_ == nullptr; }
  // Returns the first message's input transformed; when `inner` has nothing more to come, ends
  // the stream (a truncated compressed stream is CANNOT_DECOMPRESS).
  absl::StatusOr<std::string> First(std::string_view input);

  absl::StatusOr<bool> Next(std::string* piece) override;
  bool HasMore() const override { return inner_ != nullptr && inner_->HasMore(); }

 private:
  RequestInput(std::string delimiter, std::unique_ptr<StreamDecompressor> decompressor,
               InputSource* inner)
      : delimiter_(std::move(delimiter)), decompressor_(std::move(decompressor)), inner_(inner) {}
  // Appends `raw` (plus the delimiter when it is not empty), decompressed, to *out.
  absl::Status Transform(std::string_view raw, std::string* out);

  const std::string delimiter_;
  std::unique_ptr<StreamDecompressor> decompressor_;
  InputSource* const inner_;
  bool finished_ = false;
};

}  // namespace granite::coordinator
