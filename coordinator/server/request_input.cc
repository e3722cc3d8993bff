#include "coordinator/server/request_input.h"

namespace granite::coordinator {

absl::StatusOr<std::unique_ptr<RequestInput>> RequestInput::Make(
    const clickhouse::grpc::QueryInfo& info, InputSource* inner) {
  absl::StatusOr<std::unique_ptr<StreamDecompressor>> decompressor =
      MakeStreamDecompressor(info.input_compression_type());
  if (!decompressor.ok()) return decompressor.status();
  return std::unique_ptr<RequestInput>(
      new RequestInput(info.input_data_delimiter(), *std::move(decompressor), inner));
}

absl::Status RequestInput::Transform(std::string_view raw, std::string* out) {
  if (raw.empty()) return absl::OkStatus();
  if (decompressor_ == nullptr) {
    out->append(raw);
    out->append(delimiter_);
    return absl::OkStatus();
  }
  absl::Status status = decompressor_->Add(raw, out);
  if (status.ok() && !delimiter_.empty()) status = decompressor_->Add(delimiter_, out);
  return status;
}

absl::StatusOr<std::string> RequestInput::First(std::string_view input) {
  std::string out;
  absl::Status status = Transform(input, &out);
  if (status.ok() && !HasMore() && decompressor_ != nullptr) {
    finished_ = true;
    status = decompressor_->Finish();
  }
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<bool> RequestInput::Next(std::string* piece) {
  if (inner_ == nullptr || finished_) return false;
  std::string raw;
  while (true) {
    absl::StatusOr<bool> got = inner_->Next(&raw);
    if (!got.ok()) return got.status();
    if (!*got) {
      finished_ = true;
      if (decompressor_ != nullptr) {
        absl::Status status = decompressor_->Finish();
        if (!status.ok()) return status;
      }
      return false;
    }
    piece->clear();
    absl::Status status = Transform(raw, piece);
    if (!status.ok()) return status;
    if (!piece->empty()) return true;  // a compressed piece may yield nothing yet
  }
}

}  // namespace granite::coordinator
