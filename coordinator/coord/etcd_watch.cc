#include "coordinator/coord/etcd_watch.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <cstdio>
#include <utility>

#include "core/thread_name.h"
#include "etcd/etcdserverpb/rpc.grpc.pb.h"

namespace granite::coordinator {

namespace pb = ::etcdserverpb;

EtcdWatch::EtcdWatch(EtcdClient* client, std::string prefix, int64_t revision, Handler handler,
                     Resync resync)
    : client_(client),
      prefix_(std::move(prefix)),
      handler_(std::move(handler)),
      resync_(std::move(resync)),
      revision_(revision) {}

EtcdWatch::~EtcdWatch() { Stop(); }

void EtcdWatch::Start() {
  thread_ = std::thread([this] {
    core::SetCurrentThreadName("etcd_watch");
    Loop();
  });
}

void EtcdWatch::Stop() {
  {
    core::MutexLock lock(mu_);
    stopping_ = true;
    if (context_ != nullptr) context_->TryCancel();
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

int64_t EtcdWatch::revision() const {
  core::MutexLock lock(mu_);
  return revision_;
}

bool EtcdWatch::connected() const {
  core::MutexLock lock(mu_);
  return connected_;
}

bool EtcdWatch::WaitFor(int64_t revision, std::chrono::milliseconds timeout) {
  core::MutexLock lock(mu_);
  return changed_.wait_for(mu_, timeout, [&]() NO_THREAD_SAFETY_ANALYSIS {
    return revision_ >= revision || !connected_ || stopping_;
  }) && revision_ >= revision;
}

void EtcdWatch::Loop() {
  std::chrono::milliseconds backoff(100);
  while (true) {
    {
      core::MutexLock lock(mu_);
      if (stopping_) return;
    }
    bool resumable = RunStream();
    {
      core::MutexLock lock(mu_);
      connected_ = false;
      if (stopping_) return;
    }
    changed_.notify_all();
    if (!resumable) {
      absl::StatusOr<int64_t> revision = resync_();
      if (revision.ok()) {
        core::MutexLock lock(mu_);
        revision_ = *revision;
        backoff = std::chrono::milliseconds(100);
        continue;
      }
      std::fprintf(stderr, "etcd watch of %s: %s\n", prefix_.c_str(),
                   std::string(revision.status().message()).c_str());
    }
    ++attempt_;  // the next endpoint, if there are several
    core::MutexLock lock(mu_);
    changed_.wait_for(mu_, backoff, [this]() NO_THREAD_SAFETY_ANALYSIS { return stopping_; });
    backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
  }
}

bool EtcdWatch::RunStream() {
  grpc::ClientContext context;
  int64_t start;
  {
    core::MutexLock lock(mu_);
    if (stopping_) return true;
    context_ = &context;
    start = revision_ + 1;
  }
  auto stub = pb::Watch::NewStub(client_->ChannelFor(attempt_));
  auto stream = stub->Watch(&context);
  pb::WatchRequest request;
  pb::WatchCreateRequest* create = request.mutable_create_request();
  create->set_key(prefix_);
  create->set_range_end(EtcdClient::PrefixEnd(prefix_));
  create->set_start_revision(start);
  create->set_progress_notify(true);
  bool resumable = true;
  pb::WatchResponse response;
  if (stream->Write(request)) {
    while (stream->Read(&response)) {
      if (response.canceled()) {
        // A start revision compacted away cannot be resumed (compact_revision says from where).
        resumable = response.compact_revision() == 0;
        break;
      }
      if (response.created()) {
        attempt_ = 0;
        {
          core::MutexLock lock(mu_);
          connected_ = true;
        }
        changed_.notify_all();
        continue;
      }
      int64_t revision = response.header().revision();  // a progress notification's
      std::vector<EtcdEvent> events;
      events.reserve(response.events_size());
      for (const mvccpb::Event& event : response.events()) {
        const mvccpb::KeyValue& kv = event.kv();
        events.push_back(EtcdEvent{event.type() == mvccpb::Event::DELETE,
                                   EtcdKeyValue{kv.key(), kv.value(), kv.create_revision(),
                                                kv.mod_revision(), kv.version(), kv.lease()}});
      }
      if (!events.empty()) revision = events.back().kv.mod_revision;
      if (!events.empty()) handler_(events, revision);
      {
        core::MutexLock lock(mu_);
        revision_ = std::max(revision_, revision);
      }
      changed_.notify_all();
    }
  }
  context.TryCancel();
  (void)stream->Finish();
  core::MutexLock lock(mu_);
  context_ = nullptr;
  return resumable;
}

}  // namespace granite::coordinator
