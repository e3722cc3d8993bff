#include "coordinator/query_scheduler.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"

namespace granite::coordinator {

QueryScheduler::QueryScheduler(AdmissionQueue* admission, size_t select_threads,
                               size_t other_threads)
    : admission_(admission),
      select_pool_(std::make_unique<core::ThreadPool>(std::max<size_t>(1, select_threads))),
      other_pool_(std::make_unique<core::ThreadPool>(std::max<size_t>(1, other_threads))) {}

QueryScheduler::~QueryScheduler() {
  // The SELECT executor first: its queries release slots, whose queued waiters then post their
  // work (or error replies) to both executors.
  select_pool_.reset();
  other_pool_.reset();
}

bool QueryScheduler::IsSelectText(std::string_view sql) {
  absl::string_view text = absl::StripLeadingAsciiWhitespace(core::ToAbsl(sql));
  while (!text.empty() && text.front() == '(') {
    text = absl::StripLeadingAsciiWhitespace(text.substr(1));
  }
  return absl::StartsWithIgnoreCase(text, "select") || absl::StartsWithIgnoreCase(text, "with");
}

bool QueryScheduler::IsInsertText(std::string_view sql) {
  return absl::StartsWithIgnoreCase(absl::StripLeadingAsciiWhitespace(core::ToAbsl(sql)), "insert");
}

bool QueryScheduler::IsAdmittedSelect(std::string_view sql) {
  if (!IsSelectText(sql)) return false;
  // Judged from the text before it is parsed, so conservatively: a miss only means the query
  // takes the other executor and QueryExecutor's blocking admission, as before.
  std::string lower = absl::AsciiStrToLower(core::ToAbsl(sql));
  return absl::StrContains(lower, "from") && !absl::StrContains(lower, "system.") &&
         !absl::StrContains(lower, "queue_max_wait_ms");
}

void QueryScheduler::ScheduleSelect(QueryContext* query, SelectTask run) {
  admission_->AdmitAsync(query, [this, run = std::move(run)](
                                    absl::StatusOr<AdmissionQueue::Slot> slot) {
    // std::function needs a copyable closure; the slot moves through a shared box.
    auto box = std::make_shared<absl::StatusOr<AdmissionQueue::Slot>>(std::move(slot));
    core::ThreadPool* pool = box->ok() ? select_pool_.get() : other_pool_.get();
    pool->Submit([run, box] { run(std::move(*box)); });
  });
}

void QueryScheduler::ScheduleOther(std::function<void()> run) { other_pool_->Submit(std::move(run)); }

}  // namespace granite::coordinator
