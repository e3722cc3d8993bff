// Arrow output formats (coordinator/formats/output_format.h), as ClickHouse writes them:
// - ArrowStream: the Arrow IPC streaming format: a Schema message, one RecordBatch message per
//   non-empty result block, then the end-of-stream marker (0xFFFFFFFF, 0). Each message is the
//   continuation marker 0xFFFFFFFF, the metadata length, the flatbuffers Message padded to 8
//   bytes, then its body.
// - Arrow: the Arrow IPC file format: "ARROW1" and two zero bytes, the same stream, then a Footer
//   (the schema and where each record batch sits), its length (int32) and "ARROW1".
// Types as arrow_types.h maps them; buffers as arrow_batch_encoder.h lays them out, compressed as
// output_format_arrow_compression_method says (lz4_frame by default, as ClickHouse; zstd; none).
#pragma once

#include <string>
#include <vector>

#include "coordinator/formats/arrow_batch_encoder.h"
#include "coordinator/formats/arrow_types.h"
#include "coordinator/formats/output_format.h"

namespace granite::coordinator {

// Writes a result in ArrowStream (file = false) or Arrow (file = true); a Tuple as a Struct of
// its elements, a Map as Arrow's Map (a list of key / value structs).
// Thread-safety: none.
class ArrowOutput : public OutputFormat {
 public:
  ArrowOutput(bool file, const ArrowWriteOptions& options) : file_(file), options_(options) {}

  void Begin(const std::vector<std::string>& names, const std::vector<core::TypeId>& types,
             std::string* out) override;
  // Writes a block whose String or Array column exceeds Arrow's 32-bit offsets as several
  // record batches of fewer rows.
  void Write(const core::Block& block, std::string* out) override;
  void End(std::string* out) override;
  std::string_view ContentType() const override { return "application/octet-stream"; }

 private:
  // Appends one message (metadata `fbb`, then `body`) and returns its position for the footer.
  arrow_fb::Block AppendMessage(const flatbuffers::FlatBufferBuilder& fbb, std::string_view body,
                                std::string* out);
  // Appends bytes and counts them (the footer needs absolute offsets, `out` is flushed between
  // calls).
  void Append(std::string_view bytes, std::string* out);
  flatbuffers::Offset<arrow_fb::Schema> BuildSchema(flatbuffers::FlatBufferBuilder& fbb) const;

  // Constant after construction.
  const bool file_;
  const ArrowWriteOptions options_;
  // Set by Begin.
  std::vector<std::string> names_;
  std::vector<core::TypeId> types_;
  uint64_t written_ = 0;
  std::vector<arrow_fb::Block> batches_;  // file format: the record batches written
};

}  // namespace granite::coordinator
