#include "coordinator/formats/arrow_output.h"

#include <cstring>

#include "core/block_sort.h"

namespace granite::coordinator {
namespace {

namespace fb = arrow_fb;

constexpr std::string_view kFileMagic("ARROW1\0\0", 8);  // the magic, padded to 8 bytes
constexpr uint32_t kContinuation = 0xFFFFFFFFu;

void AppendUInt32(uint32_t value, std::string* out) {
  out->append(reinterpret_cast<const char*>(&value), sizeof(value));
}

}  // namespace

void ArrowOutput::Append(std::string_view bytes, std::string* out) {
  out->append(bytes);
  written_ += bytes.size();
}

flatbuffers::Offset<fb::Schema> ArrowOutput::BuildSchema(
    flatbuffers::FlatBufferBuilder& fbb) const {
  std::vector<flatbuffers::Offset<fb::Field>> fields;
  for (size_t c = 0; c < names_.size(); ++c) {
    fields.push_back(BuildArrowField(fbb, names_[c], types_[c], options_));
  }
  auto fields_offset = fbb.CreateVector(fields);
  return fb::CreateSchema(fbb, fb::Endianness_Little, fields_offset);
}

fb::Block ArrowOutput::AppendMessage(const flatbuffers::FlatBufferBuilder& fbb,
                                     std::string_view body, std::string* out) {
  const uint64_t start = written_;
  const uint32_t size = fbb.GetSize();
  // The metadata length covers the flatbuffer and the zeros that end the prefix and metadata on
  // an 8-byte boundary, so that the body starts aligned.
  const uint32_t padded = (size + 8 + 7) / 8 * 8 - 8;
  std::string prefix;
  AppendUInt32(kContinuation, &prefix);
  AppendUInt32(padded, &prefix);
  Append(prefix, out);
  Append(std::string_view(reinterpret_cast<const char*>(fbb.GetBufferPointer()), size), out);
  Append(std::string(padded - size, '\0'), out);
  Append(body, out);
  return fb::Block(static_cast<int64_t>(start), static_cast<int32_t>(8 + padded),
                   static_cast<int64_t>(body.size()));
}

void ArrowOutput::Begin(const std::vector<std::string>& names,
                        const std::vector<core::TypeId>& types, std::string* out) {
  names_ = names;
  types_ = types;
  if (file_) Append(kFileMagic, out);
  flatbuffers::FlatBufferBuilder fbb;
  auto schema = BuildSchema(fbb);
  fbb.Finish(fb::CreateMessage(fbb, fb::MetadataVersion_V5, fb::MessageHeader_Schema,
                               schema.Union(), 0));
  AppendMessage(fbb, {}, out);
}

void ArrowOutput::Write(const core::Block& block, std::string* out) {
  const size_t rows = block.rows();
  if (rows == 0) return;
  absl::StatusOr<ArrowBatch> batch = EncodeArrowBatch(block, types_, options_);
  if (!batch.ok()) {
    // Over 2 GiB of strings or array elements: halves fit Arrow's 32-bit offsets.
    if (rows == 1) return;
    Write(core::SliceRows(block, 0, rows / 2), out);
    Write(core::SliceRows(block, rows / 2, rows - rows / 2), out);
    return;
  }
  flatbuffers::FlatBufferBuilder fbb;
  auto nodes = fbb.CreateVectorOfStructs(batch->nodes);
  auto buffers = fbb.CreateVectorOfStructs(batch->buffers);
  flatbuffers::Offset<fb::BodyCompression> compression = 0;
  if (options_.codec != ArrowWriteOptions::Codec::kNone) {
    compression = fb::CreateBodyCompression(
        fbb,
        options_.codec == ArrowWriteOptions::Codec::kZstd ? fb::CompressionType_ZSTD
                                                          : fb::CompressionType_LZ4_FRAME,
        fb::BodyCompressionMethod_BUFFER);
  }
  auto record_batch = fb::CreateRecordBatch(fbb, batch->length, nodes, buffers, compression);
  fbb.Finish(fb::CreateMessage(fbb, fb::MetadataVersion_V5, fb::MessageHeader_RecordBatch,
                               record_batch.Union(), static_cast<int64_t>(batch->body.size())));
  batches_.push_back(AppendMessage(fbb, batch->body, out));
}

void ArrowOutput::End(std::string* out) {
  std::string end_of_stream;
  AppendUInt32(kContinuation, &end_of_stream);
  AppendUInt32(0, &end_of_stream);
  Append(end_of_stream, out);
  if (!file_) return;
  flatbuffers::FlatBufferBuilder fbb;
  auto schema = BuildSchema(fbb);
  auto dictionaries = fbb.CreateVectorOfStructs(std::vector<fb::Block>{});
  auto batches = fbb.CreateVectorOfStructs(batches_);
  fbb.Finish(fb::CreateFooter(fbb, fb::MetadataVersion_V5, schema, dictionaries, batches));
  Append(std::string_view(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize()),
         out);
  std::string tail;
  AppendUInt32(fbb.GetSize(), &tail);
  tail.append("ARROW1");
  Append(tail, out);
}

}  // namespace granite::coordinator
