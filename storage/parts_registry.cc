#include "storage/parts_registry.h"

#include <algorithm>

#include "core/thread_priority.h"

namespace granite::storage {

void PartsRegistry::Reset(std::vector<std::shared_ptr<const Part>> parts, uint64_t max_block) {
  core::MutexLock writers(writers_mu_);
  core::WriterLock lock(mu_);
  active_.clear();
  for (auto& part : parts) {
    Key key = KeyOf(*part);
    active_.emplace(std::move(key), std::move(part));
  }
  next_block_ = std::max(next_block_, max_block + 1);
  ++version_;
  snapshot_.reset();
  changed_.clear();
  all_changed_ = true;
}

std::vector<core::Value> PartsRegistry::TakeChangedPartitions(bool* all) {
  core::WriterLock lock(mu_);
  *all = all_changed_;
  all_changed_ = false;
  std::vector<core::Value> changed(changed_.begin(), changed_.end());
  changed_.clear();
  return changed;
}

std::vector<PartsSnapshot::Partition> PartsSnapshot::Partitions() const {
  std::vector<Partition> out;
  size_t i = 0;
  for (const auto& part : parts) {
    if (out.empty() || !(out.back().value.value == part->partition().value)) {
      out.push_back({part->partition(), i, i});
    }
    out.back().end = ++i;
  }
  return out;
}

std::shared_ptr<PartsSnapshot> PartsRegistry::Build(
    const std::vector<std::shared_ptr<const Part>>& parts, uint64_t version) {
  auto snapshot = std::make_shared<PartsSnapshot>();
  snapshot->version = version;
  for (const auto& part : parts) {
    snapshot->rows += part->rows();
    snapshot->granules += part->granule_count();
    snapshot->bytes_on_disk += part->size_on_disk();
  }
  snapshot->parts = PartList::FromSorted(parts);
  return snapshot;
}

std::shared_ptr<PartsSnapshot> PartsRegistry::Change(
    const PartsSnapshot& base, const std::vector<std::shared_ptr<const Part>>& added,
    const std::vector<std::shared_ptr<const Part>>& removed) {
  auto snapshot = std::make_shared<PartsSnapshot>();
  snapshot->rows = base.rows;
  snapshot->granules = base.granules;
  snapshot->bytes_on_disk = base.bytes_on_disk;
  for (const auto& part : added) {
    snapshot->rows += part->rows();
    snapshot->granules += part->granule_count();
    snapshot->bytes_on_disk += part->size_on_disk();
  }
  for (const auto& part : removed) {
    snapshot->rows -= part->rows();
    snapshot->granules -= part->granule_count();
    snapshot->bytes_on_disk -= part->size_on_disk();
  }
  snapshot->parts = base.parts.With(added, removed);
  return snapshot;
}

std::pair<std::vector<std::shared_ptr<const Part>>, uint64_t> PartsRegistry::CopyActive() const {
  core::ReaderLock lock(mu_);
  std::vector<std::shared_ptr<const Part>> parts;
  parts.reserve(active_.size());
  for (const auto& [key, part] : active_) parts.push_back(part);
  return {std::move(parts), version_};
}

std::shared_ptr<const PartsSnapshot> PartsRegistry::Snapshot() const {
  std::function<void()> hook;
  {
    core::ReaderLock lock(mu_);
    if (snapshot_ != nullptr) return snapshot_;
    hook = before_install_hook_;
  }
  auto [parts, version] = CopyActive();
  std::shared_ptr<const PartsSnapshot> built = Build(std::move(parts), version);
  if (hook) hook();
  core::WriterLock lock(mu_);
  // A writer may have changed the set since the copy (and published its own snapshot): then
  // `built` is stale and must not become the shared snapshot. This query may still use it: it is
  // a consistent view of the moment it was copied.
  if (version_ == version) snapshot_ = built;
  return built;
}

std::shared_ptr<const PartsSnapshot> PartsRegistry::BuildUncached() const {
  auto [parts, version] = CopyActive();
  return Build(std::move(parts), version);
}

uint64_t PartsRegistry::AllocateBlock(const std::string& partition_id) {
  core::WriterLock lock(mu_);
  uint64_t block = next_block_++;
  in_flight_.emplace(partition_id, block);
  return block;
}

void PartsRegistry::ReleaseBlock(const std::string& partition_id, uint64_t block) {
  core::WriterLock lock(mu_);
  in_flight_.erase({partition_id, block});
}

uint64_t PartsRegistry::ReserveBlocks(uint64_t count) {
  core::WriterLock lock(mu_);
  const uint64_t first = next_block_;
  next_block_ += count;
  return first;
}

bool PartsRegistry::InFlightLocked(const std::string& partition_id, uint64_t min_block,
                                   uint64_t max_block) const {
  auto it = in_flight_.lower_bound({partition_id, min_block});
  return it != in_flight_.end() && it->first == partition_id && it->second <= max_block;
}

bool PartsRegistry::InFlight(const std::string& partition_id, uint64_t min_block,
                             uint64_t max_block) const {
  core::ReaderLock lock(mu_);
  return InFlightLocked(partition_id, min_block, max_block);
}

void PartsRegistry::Add(const std::vector<std::shared_ptr<const Part>>& parts) {
  core::ScopedNormalPriority normal;  // a lowered merge or bulk insert: see parts_registry.h
  core::MutexLock writers(writers_mu_);
  // Only writers change the set and they are serialized, so `base` is the current set.
  std::shared_ptr<const PartsSnapshot> base = Snapshot();
  std::shared_ptr<PartsSnapshot> next = Change(*base, parts, {});
  core::WriterLock lock(mu_);
  for (const auto& part : parts) {
    active_[KeyOf(*part)] = part;
    in_flight_.erase({part->partition_id(), part->part_name().min_block});
    changed_.insert(part->partition().value);
  }
  next->version = ++version_;
  snapshot_ = std::move(next);
}

bool PartsRegistry::Replace(const std::vector<std::shared_ptr<const Part>>& sources,
                            std::shared_ptr<const Part> merged) {
  core::ScopedNormalPriority normal;  // a lowered merge or bulk insert: see parts_registry.h
  core::MutexLock writers(writers_mu_);
  std::shared_ptr<const PartsSnapshot> base = Snapshot();
  {
    core::ReaderLock lock(mu_);
    for (const auto& source : sources) {
      auto it = active_.find(KeyOf(*source));
      if (it == active_.end() || it->second != source) return false;
    }
  }
  std::shared_ptr<PartsSnapshot> next = Change(*base, {merged}, sources);
  core::WriterLock lock(mu_);
  // Blocks are allocated without the writers' mutex: check them under the exclusive lock.
  const PartName& name = merged->part_name();
  if (InFlightLocked(name.partition_id, name.min_block, name.max_block)) return false;
  for (const auto& source : sources) {
    active_.erase(KeyOf(*source));
    outdated_.push_back(source);
  }
  changed_.insert(merged->partition().value);
  active_[KeyOf(*merged)] = std::move(merged);
  next->version = ++version_;
  snapshot_ = std::move(next);
  return true;
}

bool PartsRegistry::Remove(const std::shared_ptr<const Part>& part) {
  core::ScopedNormalPriority normal;  // a lowered merge or bulk insert: see parts_registry.h
  core::MutexLock writers(writers_mu_);
  std::shared_ptr<const PartsSnapshot> base = Snapshot();
  {
    core::ReaderLock lock(mu_);
    auto it = active_.find(KeyOf(*part));
    if (it == active_.end() || it->second != part) return false;
  }
  std::shared_ptr<PartsSnapshot> next = Change(*base, {}, {part});
  core::WriterLock lock(mu_);
  active_.erase(KeyOf(*part));
  changed_.insert(part->partition().value);
  next->version = ++version_;
  snapshot_ = std::move(next);
  return true;
}

void PartsRegistry::ReplaceAll(const std::vector<std::shared_ptr<const Part>>& parts) {
  core::ScopedNormalPriority normal;  // see parts_registry.h
  core::MutexLock writers(writers_mu_);
  std::vector<std::shared_ptr<const Part>> sorted(parts);
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return KeyOf(*a) < KeyOf(*b); });
  core::WriterLock lock(mu_);
  std::shared_ptr<PartsSnapshot> next = Build(sorted, ++version_);
  for (auto& [key, part] : active_) outdated_.push_back(std::move(part));
  active_.clear();
  for (const auto& part : sorted) active_[KeyOf(*part)] = part;
  snapshot_ = std::move(next);
  changed_.clear();
  all_changed_ = true;
}

std::vector<std::shared_ptr<const Part>> PartsRegistry::TakeUnused() {
  std::vector<std::shared_ptr<const Part>> unused;
  core::WriterLock lock(mu_);
  // Only this list holds a part that no snapshot or query references: once it is removed here
  // nobody can obtain it again (snapshots are built from the active set only).
  auto it = std::partition(outdated_.begin(), outdated_.end(),
                           [](const auto& part) { return part.use_count() > 1; });
  unused.assign(std::make_move_iterator(it), std::make_move_iterator(outdated_.end()));
  outdated_.erase(it, outdated_.end());
  return unused;
}

std::vector<std::shared_ptr<const Part>> PartsRegistry::Outdated() const {
  core::ReaderLock lock(mu_);
  return outdated_;
}

void PartsRegistry::SetBeforeInstallHookForTest(std::function<void()> hook) {
  core::WriterLock lock(mu_);
  before_install_hook_ = std::move(hook);
}

}  // namespace granite::storage
