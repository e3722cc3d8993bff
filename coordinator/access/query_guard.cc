#include "coordinator/access/query_guard.h"

#include "coordinator/access/statement_access.h"

namespace granite::coordinator::access {

absl::Status QueryGuard::Admit(std::string_view query,
                               const absl::StatusOr<sql::Statement>& parsed) {
  absl::Status status = CheckQuerySize(query, parsed, settings_);
  if (!status.ok() || !parsed.ok()) return status;
  status = CheckStatementAccess(user_, settings_, *parsed);
  if (!status.ok()) return status;
  // The statement's own SETTINGS bound it too; a bad name or value is the executor's to report.
  (void)settings_.Apply(StatementSettingChanges(*parsed));
  timer_.emplace(settings_, start_);
  absl::StatusOr<AccessControl::QuerySlot> slot = AccessControl::Current()->AcquireQuerySlot(
      user_.name, settings_.max_concurrent_queries_for_user);
  if (!slot.ok()) return slot.status();
  slot_ = *std::move(slot);
  return absl::OkStatus();
}

absl::Status QueryGuard::Finish(const absl::Status& executed, uint64_t read_rows,
                                uint64_t read_bytes, core::Block* result) {
  if (timer_ && timer_->expired()) return timer_->Error();
  if (!executed.ok()) return executed;
  absl::Status status = CheckReadLimits(settings_, read_rows, read_bytes);
  if (!status.ok() || result == nullptr) return status;
  bool cut = false;
  return ApplyResultLimits(settings_, result, &cut);
}

}  // namespace granite::coordinator::access
