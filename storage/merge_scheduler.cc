#include "storage/merge_scheduler.h"

#include "core/error.h"
#include "core/thread_name.h"
#include "core/thread_priority.h"

namespace granite::storage {

MergeScheduler::MergeScheduler(TableLister tables, MergeOptions options)
    : tables_(std::move(tables)), options_(options) {}

MergeScheduler::~MergeScheduler() {
  {
    core::MutexLock lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) {
    thread_.join();
    // Running merges stop at their next step instead of delaying the shutdown; their temporary
    // directories are removed now or at the next start. (A scheduler that was never started
    // runs no merges of its own and leaves the tables alone: Store replaces it at start-up.)
    for (const auto& table : tables_()) table->CancelMerges();
  }
  {
    core::MutexLock lock(mu_);
    wake_.wait(mu_, [this]() REQUIRES(mu_) { return background_running_ == 0; });
  }
  pool_.reset();
}

void MergeScheduler::Start() {
  core::MutexLock lock(mu_);
  if (options_.threads == 0 || thread_.joinable()) return;
  pool_ = std::make_unique<core::ThreadPool>(options_.threads, nullptr,
                                            core::ThreadPool::kDefaultYieldsBeforeSleep, "part_merge");
  thread_ = std::thread([this] {
    core::SetCurrentThreadName("merge_schedule");
    Loop();
  });
}

void MergeScheduler::Loop() {
  core::MutexLock lock(mu_);
  while (!stopping_) {
    // Fills the free merge slots, one table after another.
    bool started = true;
    while (!stopping_ && started && background_running_ < options_.threads) {
      started = false;
      mu_.unlock();
      std::vector<std::shared_ptr<Table>> tables = tables_();
      for (const auto& table : tables) table->DeleteUnusedParts();
      std::shared_ptr<Table> chosen;
      std::optional<Table::MergeTask> task;
      for (const auto& table : tables) {
        task = table->ReserveMerge(table->LimitsFor(options_.limits));
        if (task) {
          chosen = table;
          break;
        }
      }
      mu_.lock();
      if (!task) break;
      started = true;
      ++background_running_;
      auto reserved = std::make_shared<Table::MergeTask>(*std::move(task));
      pool_->Submit([this, chosen, reserved]() mutable {
        {
          core::ScopedThreadNice lowered(core::HeavyWorkPriority(options_.nice));
          (void)Execute(chosen, *reserved, /*optimize=*/false);
        }
        reserved.reset();  // its references would keep the replaced parts alive
        chosen->DeleteUnusedParts();
        core::MutexLock done(mu_);
        --background_running_;
        wake_.notify_all();
      });
    }
    wake_.wait_for(mu_, options_.interval, [this]() REQUIRES(mu_) { return stopping_; });
  }
}

absl::Status MergeScheduler::Execute(const std::shared_ptr<Table>& table,
                                     const Table::MergeTask& task, bool optimize) {
  std::list<Entry>::iterator entry;
  {
    core::MutexLock lock(mu_);
    entry = running_.emplace(running_.end());
    entry->started = std::chrono::steady_clock::now();
    MergeInfo& info = entry->info;
    info.table = table->name();
    info.partition_id = task.result.partition_id;
    info.result_part = task.result.ToString();
    for (const auto& source : task.sources) info.source_parts.push_back(source->name());
    info.optimize = optimize;
  }
  absl::StatusOr<std::shared_ptr<const Part>> merged = table->RunMerge(task, &entry->progress);
  if (merged.ok()) merges_done_.fetch_add(1);
  core::MutexLock lock(mu_);
  running_.erase(entry);
  return merged.status();
}

absl::Status MergeScheduler::Optimize(const std::shared_ptr<Table>& table, bool final) {
  MergeLimits limits = table->LimitsFor(options_.limits);
  if (!final) {
    std::optional<Table::MergeTask> task = table->ReserveMerge(limits);
    if (!task) return absl::OkStatus();  // nothing worth merging, as in ClickHouse
    absl::Status status = Execute(table, *task, /*optimize=*/true);
    task.reset();  // its references would keep the replaced parts alive
    table->DeleteUnusedParts();
    return status;
  }
  // FINAL: every partition into one part. Partitions whose parts are in a background merge are
  // retried once it ends (polling: merges take milliseconds to seconds).
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(10);
  while (true) {
    bool busy = false;
    std::vector<Table::MergeTask> tasks = table->ReserveFinalMerges(&busy);
    absl::Status status;
    for (const Table::MergeTask& task : tasks) {
      if (status.ok()) {
        status = Execute(table, task, /*optimize=*/true);
      } else {
        table->ReleaseMerge(task);
      }
    }
    tasks.clear();  // their references would keep the replaced parts alive
    table->DeleteUnusedParts();
    if (!status.ok()) return status;
    if (!busy) return absl::OkStatus();
    if (std::chrono::steady_clock::now() > deadline) {
      return core::Error(core::ErrorCode::kTimeoutExceeded,
                         "OPTIMIZE TABLE " + table->name() +
                             " FINAL: parts stayed busy in running merges for 10 minutes");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::vector<MergeInfo> MergeScheduler::Running() const {
  core::MutexLock lock(mu_);
  std::vector<MergeInfo> out;
  auto now = std::chrono::steady_clock::now();
  for (const Entry& entry : running_) {
    MergeInfo info = entry.info;
    info.elapsed = std::chrono::duration<double>(now - entry.started).count();
    info.rows_read = entry.progress.rows_read.load();
    info.rows_written = entry.progress.rows_written.load();
    info.total_rows = entry.progress.total_rows.load();
    info.total_bytes_compressed = entry.progress.total_bytes_compressed.load();
    // Reading is the first half of the work, sorting and writing the second.
    if (info.total_rows > 0) {
      info.progress = 0.5 * info.rows_read / info.total_rows +
                      0.5 * info.rows_written / info.total_rows;
    }
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace granite::storage
