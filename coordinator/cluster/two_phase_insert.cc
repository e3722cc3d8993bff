#include "coordinator/cluster/two_phase_insert.h"

#include <utility>

#include "core/block_codec.h"

namespace granite::coordinator {

core::plan::EncodedBlock EncodeInsertBlock(const core::Block& block,
                                           core::WireCompression compression, std::string* raw) {
  std::string encoded = core::EncodeBlock(block);
  core::plan::EncodedBlock out;
  out.rows = block.rows();
  out.raw_size = encoded.size();
  if (raw == nullptr) {
    out.data = core::CompressForWire(std::move(encoded), compression);
  } else {
    out.data = core::CompressForWire(encoded, compression);
    *raw = std::move(encoded);
  }
  return out;
}

TwoPhaseInsert::TwoPhaseInsert(const WorkerSet& workers, std::string table, std::string token,
                               InsertTimeouts timeouts)
    : workers_(workers), client_(workers), table_(std::move(table)), token_(std::move(token)), timeouts_(timeouts),
      chunks_(workers.size(), 0), touched_(workers.size(), 0) {}

absl::Status TwoPhaseInsert::Prepare(size_t worker, core::plan::EncodedBlock block, bool retain,
                                     const std::string& block_id) {
  touched_[worker] = 1;
  core::worker_api::InsertRequest request;
  request.table = table_;
  request.block = std::move(block);
  request.insert_id = token_;
  request.chunk = chunks_[worker];
  request.retain = retain;
  request.block_id = block_id;
  absl::Status status =
      client_.PrepareInsert(worker, std::move(request), timeouts_.prepare).status();
  if (status.ok()) ++chunks_[worker];
  return status;
}

absl::Status TwoPhaseInsert::Commit(size_t worker, const std::string& block_id) const {
  core::worker_api::CommitInsertRequest request{table_, token_, block_id};
  return client_.CommitInsert(worker, request, timeouts_.commit).status();
}

void TwoPhaseInsert::Abort(size_t worker) const {
  (void)client_.AbortInsert(worker, table_, token_, timeouts_.abort);
}

void TwoPhaseInsert::AbortTouched() const {
  (void)workers_.CallEach(Touched(), [&](size_t worker) {
    Abort(worker);
    return absl::OkStatus();
  });
}

std::vector<size_t> TwoPhaseInsert::Touched() const {
  std::vector<size_t> touched;
  for (size_t i = 0; i < touched_.size(); ++i) {
    if (touched_[i]) touched.push_back(i);
  }
  return touched;
}

}  // namespace granite::coordinator
