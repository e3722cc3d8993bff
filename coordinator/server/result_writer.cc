#include "coordinator/server/result_writer.h"

#include "coordinator/access/query_limits.h"
#include "core/block_sort.h"
#include "core/error.h"
#include "core/time_zone.h"
#include "core/status_macros.h"

namespace granite::coordinator {

namespace ch = clickhouse::grpc;

void AddProgress(const ch::Progress& from, ch::Progress* to) {
  to->set_read_rows(to->read_rows() + from.read_rows());
  to->set_read_bytes(to->read_bytes() + from.read_bytes());
  to->set_total_rows_to_read(to->total_rows_to_read() + from.total_rows_to_read());
  to->set_written_rows(to->written_rows() + from.written_rows());
  to->set_written_bytes(to->written_bytes() + from.written_bytes());
}

namespace {

uint32_t SessionZone(const core::Settings& settings) {
  if (settings.session_timezone.empty()) return core::kNoTimeZone;
  return core::TimeZoneId(settings.session_timezone).value_or(core::kNoTimeZone);
}

// Gives the zoneless DateTime and DateTime64 columns of `block` the session's zone: the values
// stay, their text is the zone's wall clock.
void ApplySessionZone(uint32_t zone, core::Block* block) {
  if (zone == core::kNoTimeZone) return;
  for (core::ColumnPtr& column : block->columns) {
    const core::TypeId type = column->type();
    if ((!core::IsDateTime(type) && !core::IsDateTime64(type)) ||
        core::TimeZoneOf(type) != core::kNoTimeZone) {
      continue;
    }
    auto zoned = std::make_shared<core::Column>(*column);
    zoned->SetTimeZone(zone);
    column = std::move(zoned);
  }
}

}  // namespace

ResultWriter::ResultWriter(const core::Settings& settings, std::string default_format,
                           bool send_output_columns, StreamCompressor* compressor,
                           const Emit* emit, QueryContext* query, ch::Result* result,
                           bool extremes_in_output)
    : settings_(settings),
      default_format_(std::move(default_format)),
      send_output_columns_(send_output_columns),
      compressor_(compressor),
      emit_(emit),
      query_(query),
      result_(result),
      extremes_in_output_(extremes_in_output),
      session_zone_(SessionZone(settings)),
      last_flush_(std::chrono::steady_clock::now()) {
  result_->set_query_id(query_->query_id());  // every message says its query
}

absl::Status ResultWriter::Begin(const std::vector<std::string>& names,
                                 const std::vector<core::TypeId>& types,
                                 const std::string& format) {
  core::MutexLock lock(mu_);
  const std::string format_name = !format.empty() ? format : default_format_;
  const OutputOptions options = OutputOptionsOf(settings_);
  ASSIGN_OR_RETURN(std::unique_ptr<OutputFormat> writer, MakeOutputFormat(format_name, options));
  RETURN_IF_ERROR(writer->Accepts(names, types));
  format_ = std::move(writer);
  format_name_ = format_name;
  result_->set_output_format(format_name);
  if (send_output_columns_) {
    for (size_t i = 0; i < names.size(); ++i) {
      ch::NameAndType* column = result_->add_output_columns();
      column->set_name(names[i]);
      column->set_type(std::string(core::TypeName(types[i])));
    }
  }
  names_ = names;
  types_ = types;
  format_->Begin(names, types, &output_);
  return absl::OkStatus();
}

absl::StatusOr<bool> ResultWriter::Push(const core::Block& block) {
  core::MutexLock lock(mu_);
  return PushRows(block, /*first_at_once=*/true);
}

absl::Status ResultWriter::PushWhole(const core::Block& block) {
  core::MutexLock lock(mu_);
  return PushRows(block, /*first_at_once=*/false).status();
}

absl::StatusOr<bool> ResultWriter::PushRows(const core::Block& pushed, bool first_at_once) {
  if (cut_) return false;
  core::Block block = pushed;
  ApplySessionZone(session_zone_, &block);
  RETURN_IF_ERROR(access::ApplyResultLimits(settings_, &block, &cut_, rows_, bytes_));
  rows_ += block.rows();
  bytes_ += access::ResultBytes(block);
  if (settings_.extremes) extremes_.Add(block);
  constexpr size_t kRowsPerWrite = 8192;
  for (size_t at = 0; at < block.rows(); at += kRowsPerWrite) {
    format_->Write(core::SliceRows(block, at, kRowsPerWrite), &output_);
    const bool first = first_at_once && flushes_ == 0 && rows_ > 0;
    if (output_.size() >= kChunkBytes || first ||
        std::chrono::steady_clock::now() - last_flush_ >= kFlushInterval) {
      RETURN_IF_ERROR(Flush());
    }
  }
  return !cut_;
}

absl::Status ResultWriter::Compress(std::string* output, bool last) {
  if (compressor_ == nullptr) return absl::OkStatus();
  std::string packed;
  RETURN_IF_ERROR(compressor_->Add(*output, &packed));
  if (last) RETURN_IF_ERROR(compressor_->Finish(&packed));
  *output = std::move(packed);
  return absl::OkStatus();
}

void ResultWriter::SendProgress() {
  core::MutexLock lock(mu_);
  if (std::chrono::steady_clock::now() - last_flush_ < kFlushInterval) return;
  (void)Flush();
}

void ResultWriter::FillProgress(ch::Progress* progress) {
  core::MutexLock lock(mu_);
  FillProgressLocked(progress);
}

void ResultWriter::FillProgressLocked(ch::Progress* progress) {
  const uint64_t read_rows = query_->read_rows.load();
  const uint64_t read_bytes = query_->read_bytes.load();
  const uint64_t total_rows = query_->total_rows_to_read.load();
  progress->set_read_rows(read_rows - sent_read_rows_);
  progress->set_read_bytes(read_bytes - sent_read_bytes_);
  progress->set_total_rows_to_read(total_rows - sent_total_rows_);
  sent_read_rows_ = read_rows;
  sent_read_bytes_ = read_bytes;
  sent_total_rows_ = total_rows;
}

absl::Status ResultWriter::Flush() {
  RETURN_IF_ERROR(Compress(&output_, /*last=*/false));
  FillProgressLocked(result_->mutable_progress());
  // Sent even when the codec holds everything back so far: the message still carries progress.
  result_->set_output(std::move(output_));
  output_.clear();
  if (rows_ > 0) ++flushes_;
  last_flush_ = std::chrono::steady_clock::now();
  if (!(*emit_)(*result_)) {
    result_->Clear();  // the last Result carries the exception alone
    result_->set_query_id(query_->query_id());
    return core::Error(core::ErrorCode::kQueryWasCancelled,
                       "The client went away while the result was sent");
  }
  result_->Clear();
  result_->set_query_id(query_->query_id());
  return absl::OkStatus();
}

absl::Status ResultWriter::Finish(const std::optional<core::Block>& totals) {
  core::MutexLock lock(mu_);
  if (totals) {
    core::Block zoned = *totals;
    ApplySessionZone(session_zone_, &zoned);
    format_->WriteTotals(zoned, &output_);
  }
  if (const std::optional<core::Block>& extremes = extremes_.rows();
      extremes && extremes_in_output_) {
    format_->WriteExtremes(*extremes, &output_);
  } else if (extremes) {
    // Result.extremes: the two rows alone in the output format (no statistics).
    OutputOptions options = OutputOptionsOf(settings_);
    options.write_statistics = false;
    ASSIGN_OR_RETURN(std::unique_ptr<OutputFormat> alone, MakeOutputFormat(format_name_, options));
    std::string text;
    alone->Begin(names_, types_, &text);
    alone->Write(*extremes, &text);
    alone->End(&text);
    result_->set_extremes(std::move(text));
  }
  OutputFormat::Statistics statistics;
  statistics.elapsed_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - query_->start()).count();
  statistics.rows_read = query_->read_rows.load();
  statistics.bytes_read = query_->read_bytes.load();
  format_->set_statistics(statistics);
  format_->End(&output_);
  return FinishLocked();
}

absl::Status ResultWriter::FinishWithoutRows() {
  core::MutexLock lock(mu_);
  return FinishLocked();
}

absl::Status ResultWriter::FinishLocked() {
  RETURN_IF_ERROR(Compress(&output_, /*last=*/true));
  result_->set_output(std::move(output_));
  output_.clear();
  return absl::OkStatus();
}

}  // namespace granite::coordinator
