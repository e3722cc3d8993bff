#include "coordinator/cluster/membership.h"

#include <cstdio>
#include <fstream>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/absl_compat.h"
#include "core/error.h"
#include "core/thread_name.h"

namespace granite::coordinator {

using core::Error;
using core::ErrorCode;

namespace {

constexpr size_t kMaxWorkers = 4096;

absl::Status BadItem(absl::string_view item, absl::string_view why) {
  return Error(ErrorCode::kBadArguments,
               absl::StrCat("Bad worker address \"", item, "\" in --workers: ", why));
}

// Checks "host:port" / "[v6]:port".
absl::Status ValidateAddress(absl::string_view address) {
  size_t colon = address.rfind(':');
  if (colon == absl::string_view::npos || colon == 0) {
    return BadItem(address, "expected host:port");
  }
  absl::string_view host = address.substr(0, colon);
  if (host.front() == '[' && host.back() != ']') return BadItem(address, "unclosed [");
  if (host.front() != '[' && host.find(':') != absl::string_view::npos) {
    return BadItem(address, "an IPv6 address needs brackets, e.g. [::1]:9200");
  }
  int port = 0;
  if (!absl::SimpleAtoi(address.substr(colon + 1), &port) || port < 1 || port > 65535) {
    return BadItem(address, "the port must be a number from 1 to 65535");
  }
  return absl::OkStatus();
}

// Appends the expansion of one item ("a-{0..3}.b:9200" or a plain address) to `out`.
absl::Status ExpandItem(absl::string_view item, std::vector<std::string>* out) {
  size_t open = item.find('{');
  if (open == absl::string_view::npos) {
    if (item.find('}') != absl::string_view::npos) return BadItem(item, "unmatched }");
    absl::Status valid = ValidateAddress(item);
    if (!valid.ok()) return valid;
    out->emplace_back(item);
    return absl::OkStatus();
  }
  size_t close = item.find('}', open);
  if (close == absl::string_view::npos) return BadItem(item, "unclosed {");
  if (item.find('{', close) != absl::string_view::npos) {
    return BadItem(item, "only one {first..last} range per item");
  }
  absl::string_view range = item.substr(open + 1, close - open - 1);
  size_t dots = range.find("..");
  int first = 0;
  int last = 0;
  if (dots == absl::string_view::npos || !absl::SimpleAtoi(range.substr(0, dots), &first) ||
      !absl::SimpleAtoi(range.substr(dots + 2), &last) || first < 0) {
    return BadItem(item, "expected a range {first..last} of non-negative numbers");
  }
  if (last < first) return BadItem(item, absl::StrCat("the range {", range, "} is reversed"));
  if (static_cast<size_t>(last - first) >= kMaxWorkers) {
    return BadItem(item, absl::StrCat("more than ", kMaxWorkers, " workers"));
  }
  absl::string_view prefix = item.substr(0, open);
  absl::string_view suffix = item.substr(close + 1);
  for (int i = first; i <= last; ++i) {
    std::string address = absl::StrCat(prefix, i, suffix);
    absl::Status valid = ValidateAddress(address);
    if (!valid.ok()) return valid;
    out->push_back(std::move(address));
  }
  return absl::OkStatus();
}

std::string Ago(std::chrono::system_clock::time_point when) {
  if (when == std::chrono::system_clock::time_point()) return "never";
  auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                     std::chrono::system_clock::now() - when)
                     .count();
  return absl::StrCat(seconds, " s ago");
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ExpandWorkerSpec(std::string_view spec_view) {
  std::string spec(absl::StripAsciiWhitespace(core::ToAbsl(spec_view)));
  if (!spec.empty() && spec.front() == '@') {
    std::string path = spec.substr(1);
    std::ifstream in(path);
    if (!in) {
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("Cannot read the worker list file \"", path, "\" (--workers=@",
                                path, ")"));
    }
    std::string text;
    for (std::string line; std::getline(in, line);) {
      line = line.substr(0, line.find('#'));
      if (absl::StrContains(line, "@")) {
        return Error(ErrorCode::kBadArguments,
                     absl::StrCat("A worker list file cannot include another: \"", line,
                                  "\" in ", path));
      }
      absl::StrAppend(&text, line, "\n");
    }
    spec = text;
  }
  std::vector<std::string> addresses;
  for (absl::string_view item : absl::StrSplit(spec, absl::ByAnyChar(",\n"))) {
    item = absl::StripAsciiWhitespace(item);
    if (item.empty()) continue;
    absl::Status status = ExpandItem(item, &addresses);
    if (!status.ok()) return status;
    if (addresses.size() > kMaxWorkers) {
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("Too many workers in --workers: more than ", kMaxWorkers));
    }
  }
  if (addresses.empty()) {
    return Error(ErrorCode::kBadArguments,
                 "The coordinator needs at least one worker: --workers is empty");
  }
  std::set<std::string> seen;
  for (const std::string& address : addresses) {
    if (!seen.insert(address).second) {
      return Error(ErrorCode::kBadArguments,
                   absl::StrCat("Worker \"", address, "\" is listed twice in --workers"));
    }
  }
  return addresses;
}

Membership::Membership(std::vector<std::string> addresses, std::unique_ptr<HealthProber> prober,
                       Options options)
    : addresses_(std::move(addresses)), prober_(std::move(prober)), options_(options) {
  core::WriterLock lock(mu_);
  health_.resize(addresses_.size());
  for (size_t i = 0; i < addresses_.size(); ++i) health_[i].address = addresses_[i];
}

Membership::Membership(std::vector<std::string> addresses)
    : Membership(std::move(addresses), std::make_unique<GrpcHealthProber>(), Options()) {}

Membership::~Membership() {
  {
    core::MutexLock lock(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (checker_.joinable()) checker_.join();
}

void Membership::Start() {
  if (checker_.joinable()) return;
  checker_ = std::thread([this] {
    core::SetCurrentThreadName("membership");
    Loop();
  });
}

void Membership::Loop() {
  while (true) {
    CheckNow();
    core::MutexLock lock(stop_mu_);
    stop_cv_.wait_for(stop_mu_, options_.interval,
                      [this]() NO_THREAD_SAFETY_ANALYSIS { return stopping_; });
    if (stopping_) return;
  }
}

void Membership::CheckNow() {
  std::vector<size_t> all(addresses_.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  Probe(all);
}

void Membership::Probe(const std::vector<size_t>& indices) {
  std::vector<ProbeResult> results(indices.size());
  std::vector<std::thread> threads;
  threads.reserve(indices.size());
  for (size_t k = 0; k < indices.size(); ++k) {
    threads.emplace_back([&, k] {
      results[k] = prober_->Probe(addresses_[indices[k]], options_.timeout);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (size_t k = 0; k < indices.size(); ++k) Record(indices[k], results[k]);
}

void Membership::Record(size_t index, const ProbeResult& result) {
  auto now = std::chrono::system_clock::now();
  ServingState before;
  {
    core::WriterLock lock(mu_);
    WorkerHealth& health = health_[index];
    before = health.state;
    health.state = result.state;
    health.detail = result.detail;
    health.last_check = now;
    if (result.state == ServingState::kServing) {
      health.last_serving = now;
      health.consecutive_failures = 0;
    } else {
      ++health.consecutive_failures;
    }
  }
  if (options_.log_transitions && before != result.state) {
    std::fprintf(stderr, "granite coordinator: worker %zu (%s) %s -> %s%s%s\n", index,
                 addresses_[index].c_str(), std::string(ServingStateName(before)).c_str(),
                 std::string(ServingStateName(result.state)).c_str(),
                 result.detail.empty() ? "" : ": ", result.detail.c_str());
  }
}

WorkerHealth Membership::Health(size_t index) const {
  core::ReaderLock lock(mu_);
  return health_[index];
}

std::vector<WorkerHealth> Membership::Snapshot() const {
  core::ReaderLock lock(mu_);
  return health_;
}

absl::Status Membership::EnsureAvailable(const std::vector<size_t>& indices) {
  std::vector<size_t> suspect;
  {
    core::ReaderLock lock(mu_);
    for (size_t index : indices) {
      if (index >= health_.size()) {
        return Error(ErrorCode::kLogicalError,
                     absl::StrCat("Worker index ", index, " out of range: ", health_.size(),
                                  " workers"));
      }
      if (health_[index].state != ServingState::kServing) suspect.push_back(index);
    }
  }
  if (suspect.empty()) return absl::OkStatus();
  Probe(suspect);
  std::vector<std::pair<size_t, WorkerHealth>> down;
  {
    core::ReaderLock lock(mu_);
    for (size_t index : suspect) {
      if (health_[index].state != ServingState::kServing) down.emplace_back(index, health_[index]);
    }
  }
  if (down.empty()) return absl::OkStatus();
  std::string message = "All connection tries failed: ";
  for (size_t k = 0; k < down.size(); ++k) {
    const auto& [index, health] = down[k];
    absl::StrAppend(&message, k == 0 ? "" : "; ", "worker ", index, " (", health.address, ") is ",
                    core::ToAbsl(ServingStateName(health.state)),
                    health.detail.empty() ? "" : absl::StrCat(" (", health.detail, ")"),
                    ", last serving ", Ago(health.last_serving));
  }
  return Error(ErrorCode::kAllConnectionTriesFailed, message);
}

absl::Status Membership::EnsureAllAvailable() {
  if (replicas_ > 1) {
    std::vector<size_t> suspect;  // every replica of the shards without a serving one
    {
      core::ReaderLock lock(mu_);
      for (size_t first = 0; first < health_.size(); first += replicas_) {
        bool any = false;
        for (size_t r = 0; r < replicas_; ++r) {
          any = any || health_[first + r].state == ServingState::kServing;
        }
        for (size_t r = 0; r < replicas_ && !any; ++r) suspect.push_back(first + r);
      }
    }
    if (suspect.empty()) return absl::OkStatus();
    Probe(suspect);
    core::ReaderLock lock(mu_);
    for (size_t first = 0; first < health_.size(); first += replicas_) {
      std::string message;
      bool any = false;
      for (size_t r = 0; r < replicas_; ++r) {
        const WorkerHealth& health = health_[first + r];
        any = any || health.state == ServingState::kServing;
        absl::StrAppend(&message, r == 0 ? "" : "; ", "replica ", r, " (", health.address,
                        ") is ", core::ToAbsl(ServingStateName(health.state)),
                        health.detail.empty() ? "" : absl::StrCat(" (", health.detail, ")"),
                        ", last serving ", Ago(health.last_serving));
      }
      if (!any) {
        return Error(ErrorCode::kAllConnectionTriesFailed,
                     absl::StrCat("All connection tries failed for shard ", first / replicas_,
                                  ": ", message));
      }
    }
    return absl::OkStatus();
  }
  std::vector<size_t> all(addresses_.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  return EnsureAvailable(all);
}

}  // namespace granite::coordinator
