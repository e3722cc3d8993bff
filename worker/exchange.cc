#include "worker/exchange.h"

#include <chrono>
#include <string>

#include "core/error.h"
#include "core/hash.h"
#include "core/join/row_keys.h"
#include "core/memory/transport_memory_scope.h"
#include "core/status_macros.h"

namespace granite::worker {
namespace {

// Waits are woken by every change; this bounds how late a cancellation flag is noticed.
constexpr auto kPoll = std::chrono::milliseconds(20);
constexpr int64_t kForgetNs = 600'000'000'000;  // ten minutes

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

absl::Status Cancelled() {
  return core::Error(core::ErrorCode::kQueryWasCancelled, "Query was cancelled");
}

}  // namespace

std::vector<core::Block> PartitionRows(const core::Block& block,
                                       const std::vector<const core::Column*>& keys,
                                       bool word_keys, size_t parts) {
  const size_t rows = block.rows();
  std::vector<std::vector<uint32_t>> selected(parts);
  if (parts == 1) {
    selected[0].resize(rows);
    for (size_t r = 0; r < rows; ++r) selected[0][r] = static_cast<uint32_t>(r);
  } else {
    std::string key;
    for (size_t r = 0; r < rows; ++r) {
      uint64_t hash;
      if (word_keys) {
        hash = core::HashIntKey(core::KeyWord(*keys[0], r));
      } else {
        key.clear();
        core::AppendRowKey(keys, r, &key);
        hash = core::HashBytes(key);
      }
      selected[hash % parts].push_back(static_cast<uint32_t>(r));
    }
  }
  std::vector<core::Block> out(parts);
  for (size_t p = 0; p < parts; ++p) {
    for (const core::ColumnPtr& column : block.columns) {
      auto taken = std::make_shared<core::Column>(column->logical_type());
      taken->AppendTaken(*column, selected[p].data(), selected[p].size());
      out[p].columns.push_back(std::move(taken));
    }
    out[p].rows_without_columns = block.columns.empty() ? selected[p].size() : 0;
  }
  return out;
}

ExchangeInbox::ExchangeInbox(size_t senders, size_t probe_capacity)
    : senders_(senders),
      probe_capacity_(probe_capacity),
      build_ended_(senders, false),
      probe_ended_(senders, false) {}

absl::Status ExchangeInbox::CheckSender(uint32_t sender) const {
  if (sender < senders_) return absl::OkStatus();
  return core::Error(core::ErrorCode::kLogicalError,
                     "exchange sender " + std::to_string(sender) + " of " +
                         std::to_string(senders_));
}

absl::Status ExchangeInbox::AddBuild(uint32_t sender, core::plan::EncodedBlock block) {
  RETURN_IF_ERROR(CheckSender(sender));
  core::MutexLock lock(mu_);
  RETURN_IF_ERROR(closed_);
  if (build_ended_[sender]) return core::Error(core::ErrorCode::kLogicalError, "build rows after its end");
  if (block.rows > 0) build_.push_back(std::move(block));
  return absl::OkStatus();
}

absl::Status ExchangeInbox::EndBuild(uint32_t sender) {
  return EndSide(sender, /*build=*/true);
}

absl::Status ExchangeInbox::EndSide(uint32_t sender, bool build) {
  RETURN_IF_ERROR(CheckSender(sender));
  core::MutexLock lock(mu_);
  RETURN_IF_ERROR(closed_);
  std::vector<bool>& ended = build ? build_ended_ : probe_ended_;
  if (!ended[sender]) {
    ended[sender] = true;
    ++(build ? builds_ended_ : probes_ended_);
    changed_.notify_all();
  }
  return absl::OkStatus();
}

absl::Status ExchangeInbox::AddProbe(uint32_t sender, core::plan::EncodedBlock block,
                                     const std::function<bool()>& gone) {
  RETURN_IF_ERROR(CheckSender(sender));
  if (block.rows == 0) return absl::OkStatus();
  core::MutexLock lock(mu_);
  while (closed_.ok() && !probe_.empty() && probe_bytes_ + block.data.size() > probe_capacity_) {
    if (gone && gone()) return Cancelled();
    changed_.wait_for(mu_, kPoll);
  }
  RETURN_IF_ERROR(closed_);
  if (probe_ended_[sender]) return core::Error(core::ErrorCode::kLogicalError, "probe rows after its end");
  probe_bytes_ += block.data.size();
  probe_.push_back(std::move(block));
  changed_.notify_all();
  return absl::OkStatus();
}

absl::Status ExchangeInbox::EndProbe(uint32_t sender) {
  return EndSide(sender, /*build=*/false);
}

absl::StatusOr<std::vector<core::plan::EncodedBlock>> ExchangeInbox::TakeBuild(
    const std::atomic<bool>& cancelled) {
  core::MutexLock lock(mu_);
  while (closed_.ok() && builds_ended_ < senders_) {
    if (cancelled.load(std::memory_order_relaxed)) return Cancelled();
    changed_.wait_for(mu_, kPoll);
  }
  RETURN_IF_ERROR(closed_);
  return std::move(build_);
}

absl::StatusOr<std::optional<core::plan::EncodedBlock>> ExchangeInbox::NextProbe(
    const std::atomic<bool>& cancelled) {
  core::MutexLock lock(mu_);
  while (closed_.ok() && probe_.empty() && probes_ended_ < senders_) {
    if (cancelled.load(std::memory_order_relaxed)) return Cancelled();
    changed_.wait_for(mu_, kPoll);
  }
  RETURN_IF_ERROR(closed_);
  if (probe_.empty()) return std::optional<core::plan::EncodedBlock>();
  core::plan::EncodedBlock block = std::move(probe_.front());
  probe_.pop_front();
  probe_bytes_ -= block.data.size();
  changed_.notify_all();
  return std::optional<core::plan::EncodedBlock>(std::move(block));
}

void ExchangeInbox::Close(absl::Status status) {
  if (status.ok()) status = Cancelled();
  core::TransportMemoryScope server;  // the dropped rows are the server's bytes
  core::MutexLock lock(mu_);
  if (closed_.ok()) closed_ = std::move(status);
  build_.clear();
  probe_.clear();
  probe_bytes_ = 0;
  changed_.notify_all();
}

absl::StatusOr<std::shared_ptr<ExchangeInbox>> ExchangeRegistry::GetLocked(uint64_t id,
                                                                           size_t senders,
                                                                           bool open) {
  constexpr size_t kMostSenders = 1 << 16;
  if (senders == 0 || senders > kMostSenders) {
    return core::Error(core::ErrorCode::kLogicalError,
                       "an exchange of " + std::to_string(senders) + " workers");
  }
  auto found = inboxes_.find(id);
  if (found != inboxes_.end() && found->second.inbox->senders() != senders) {
    return core::Error(core::ErrorCode::kLogicalError,
                       "exchange " + std::to_string(id) + " has " +
                           std::to_string(found->second.inbox->senders()) + " workers, not " +
                           std::to_string(senders));
  }
  Entry& entry = inboxes_[id];
  if (!entry.inbox) {
    entry.inbox = std::make_shared<ExchangeInbox>(senders, kProbeCapacity);
    entry.created_ns = NowNs();
  }
  entry.opened = entry.opened || open;
  return entry.inbox;
}

void ExchangeRegistry::SweepLocked(int64_t now_ns) {
  for (auto it = inboxes_.begin(); it != inboxes_.end();) {
    if (!it->second.opened && now_ns - it->second.created_ns > kForgetNs) {
      it->second.inbox->Close(Cancelled());
      it = inboxes_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = finished_.begin(); it != finished_.end();) {
    it = now_ns - it->second > kForgetNs ? finished_.erase(it) : std::next(it);
  }
}

absl::StatusOr<std::shared_ptr<ExchangeInbox>> ExchangeRegistry::Open(uint64_t id,
                                                                      size_t senders) {
  core::MutexLock lock(mu_);
  SweepLocked(NowNs());
  return GetLocked(id, senders, /*open=*/true);
}

absl::StatusOr<std::shared_ptr<ExchangeInbox>> ExchangeRegistry::Find(uint64_t id,
                                                                      size_t senders) {
  core::MutexLock lock(mu_);
  if (finished_.count(id) > 0) return Cancelled();
  return GetLocked(id, senders, /*open=*/false);
}

void ExchangeRegistry::Finish(uint64_t id, absl::Status status) {
  std::shared_ptr<ExchangeInbox> inbox;
  {
    core::MutexLock lock(mu_);
    auto it = inboxes_.find(id);
    if (it != inboxes_.end()) {
      inbox = std::move(it->second.inbox);
      inboxes_.erase(it);
    }
    finished_[id] = NowNs();
  }
  if (inbox) inbox->Close(status.ok() ? Cancelled() : std::move(status));
}

}  // namespace granite::worker
