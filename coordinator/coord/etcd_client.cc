#include "coordinator/coord/etcd_client.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/error.h"
#include "core/keeper_error_codes.h"
#include "etcd/etcdserverpb/rpc.grpc.pb.h"

namespace granite::coordinator {

namespace pb = ::etcdserverpb;

namespace {

// Reconnects within a second of etcd coming back: gRPC's default back-off grows to two minutes,
// which would keep DDL failing long after a restarted etcd serves again. (The minimum back-off
// stays at its default: gRPC also uses it as the connect timeout, and 100 ms made connections
// to a busy etcd fail with "tcp handshaker shutdown".)
grpc::ChannelArguments ChannelArgs() {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  // Finds a stopped etcd under a watch stream that would otherwise wait forever; etcd refuses
  // pings more often than every 5 s (--grpc-keepalive-min-time).
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
  return args;
}

EtcdKeyValue FromProto(const mvccpb::KeyValue& kv) {
  return EtcdKeyValue{kv.key(), kv.value(), kv.create_revision(), kv.mod_revision(),
                      kv.version(), kv.lease()};
}

std::vector<EtcdKeyValue> FromProto(const google::protobuf::RepeatedPtrField<mvccpb::KeyValue>& kvs) {
  std::vector<EtcdKeyValue> out;
  out.reserve(kvs.size());
  for (const mvccpb::KeyValue& kv : kvs) out.push_back(FromProto(kv));
  return out;
}

void ToProto(const EtcdCompare& compare, pb::Compare* out) {
  out->set_key(compare.key);
  switch (compare.result) {
    case EtcdCompare::Result::kEqual: out->set_result(pb::Compare::EQUAL); break;
    case EtcdCompare::Result::kGreater: out->set_result(pb::Compare::GREATER); break;
    case EtcdCompare::Result::kLess: out->set_result(pb::Compare::LESS); break;
    case EtcdCompare::Result::kNotEqual: out->set_result(pb::Compare::NOT_EQUAL); break;
  }
  switch (compare.target) {
    case EtcdCompare::Target::kVersion:
      out->set_target(pb::Compare::VERSION);
      out->set_version(compare.number);
      break;
    case EtcdCompare::Target::kCreateRevision:
      out->set_target(pb::Compare::CREATE);
      out->set_create_revision(compare.number);
      break;
    case EtcdCompare::Target::kModRevision:
      out->set_target(pb::Compare::MOD);
      out->set_mod_revision(compare.number);
      break;
    case EtcdCompare::Target::kValue:
      out->set_target(pb::Compare::VALUE);
      out->set_value(compare.value);
      break;
  }
}

void ToProto(const EtcdOp& op, pb::RequestOp* out) {
  switch (op.kind) {
    case EtcdOp::Kind::kGet: {
      pb::RangeRequest* range = out->mutable_request_range();
      range->set_key(op.key);
      if (op.prefix) range->set_range_end(EtcdClient::PrefixEnd(op.key));
      break;
    }
    case EtcdOp::Kind::kPut: {
      pb::PutRequest* put = out->mutable_request_put();
      put->set_key(op.key);
      put->set_value(op.value);
      put->set_lease(op.lease);
      break;
    }
    case EtcdOp::Kind::kDelete: {
      pb::DeleteRangeRequest* remove = out->mutable_request_delete_range();
      remove->set_key(op.key);
      if (op.prefix) remove->set_range_end(EtcdClient::PrefixEnd(op.key));
      break;
    }
  }
}

// True when another endpoint may answer: this one is down, unreachable or too slow.
bool TryNext(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAVAILABLE ||
         status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
}

std::string Describe(const grpc::Status& status) {
  std::string message = status.error_message();
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    message = "no answer within the deadline" + (message.empty() ? "" : " (" + message + ")");
  }
  if (message.empty()) message = "gRPC status " + std::to_string(status.error_code());
  return message;
}

}  // namespace

EtcdCompare EtcdCompare::Missing(std::string key) {
  return EtcdCompare{std::move(key), Target::kVersion, Result::kEqual, 0, {}};
}

EtcdCompare EtcdCompare::ModRevisionIs(std::string key, int64_t revision) {
  return EtcdCompare{std::move(key), Target::kModRevision, Result::kEqual, revision, {}};
}

EtcdCompare EtcdCompare::ValueIs(std::string key, std::string value) {
  return EtcdCompare{std::move(key), Target::kValue, Result::kEqual, 0, std::move(value)};
}

EtcdOp EtcdOp::Put(std::string key, std::string value, int64_t lease) {
  return EtcdOp{Kind::kPut, std::move(key), std::move(value), lease, false};
}

EtcdOp EtcdOp::Delete(std::string key) { return EtcdOp{Kind::kDelete, std::move(key), {}, 0, false}; }

EtcdOp EtcdOp::DeletePrefix(std::string prefix) {
  return EtcdOp{Kind::kDelete, std::move(prefix), {}, 0, true};
}

EtcdOp EtcdOp::GetPrefix(std::string prefix) {
  return EtcdOp{Kind::kGet, std::move(prefix), {}, 0, true};
}

absl::Status KeeperError(const EtcdClient& client, std::string_view what,
                         std::string_view detail) {
  return core::Error(core::kKeeperException, std::string(what) + " failed: etcd at " +
                                                 client.endpoints() + ": " + std::string(detail));
}

absl::StatusOr<std::unique_ptr<EtcdClient>> EtcdClient::Create(std::string_view endpoints,
                                                               Options options) {
  std::vector<std::string> list;
  const absl::string_view text(endpoints.data(), endpoints.size());
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    absl::string_view stripped = absl::StripAsciiWhitespace(part);
    std::string endpoint(stripped.data(), stripped.size());
    if (endpoint.rfind("http://", 0) == 0) endpoint = endpoint.substr(7);  // etcdctl's spelling
    size_t colon = endpoint.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == endpoint.size() ||
        endpoint.find_first_not_of("0123456789", colon + 1) != std::string::npos) {
      return core::Error(core::ErrorCode::kBadArguments,
                         "Bad etcd endpoint \"" + endpoint + "\" in \"" + std::string(endpoints) +
                             "\": expected host:port[,host:port...]");
    }
    list.push_back(std::move(endpoint));
  }
  if (list.empty()) {
    return core::Error(core::ErrorCode::kBadArguments,
                       "No etcd endpoint given: expected host:port[,host:port...]");
  }
  return std::unique_ptr<EtcdClient>(new EtcdClient(std::move(list), options));
}

EtcdClient::EtcdClient(std::vector<std::string> endpoints, Options options)
    : endpoints_(std::move(endpoints)),
      endpoints_text_(absl::StrJoin(endpoints_, ",")),
      options_(options) {
  for (const std::string& endpoint : endpoints_) {
    channels_.push_back(
        grpc::CreateCustomChannel(endpoint, grpc::InsecureChannelCredentials(), ChannelArgs()));
  }
}

EtcdClient::~EtcdClient() = default;

std::shared_ptr<grpc::Channel> EtcdClient::ChannelFor(size_t attempt) const {
  return channels_[(preferred_.load(std::memory_order_relaxed) + attempt) % channels_.size()];
}

void EtcdClient::Answered(size_t attempt) {
  size_t preferred = preferred_.load(std::memory_order_relaxed);
  preferred_.store((preferred + attempt) % channels_.size(), std::memory_order_relaxed);
}

std::string EtcdClient::PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    unsigned char last = static_cast<unsigned char>(end.back());
    if (last < 0xff) {
      end.back() = static_cast<char>(last + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // every key (etcd's convention)
}

namespace {

// Runs `call(stub, context)` on each endpoint in turn until one answers; the answer's status.
template <typename Stub, typename Call>
absl::Status CallAny(EtcdClient& client, std::string_view what, Call call) {
  std::string errors;
  for (size_t attempt = 0; attempt < client.endpoint_count(); ++attempt) {
    auto stub = Stub::NewStub(client.ChannelFor(attempt));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + client.options().timeout);
    grpc::Status status = call(*stub, &context);
    if (status.ok()) {
      client.Answered(attempt);
      return absl::OkStatus();
    }
    if (!errors.empty()) errors += "; ";
    errors += Describe(status);
    if (!TryNext(status)) break;
  }
  return KeeperError(client, what, errors);
}

}  // namespace

absl::StatusOr<int64_t> EtcdClient::Revision(const std::string& key) {
  pb::RangeRequest request;
  request.set_key(key);
  request.set_count_only(true);
  pb::RangeResponse response;
  absl::Status status = CallAny<pb::KV>(*this, "Reading the revision", [&](auto& stub, auto* context) {
    return stub.Range(context, request, &response);
  });
  if (!status.ok()) return status;
  return response.header().revision();
}

absl::StatusOr<std::optional<EtcdKeyValue>> EtcdClient::Get(const std::string& key) {
  pb::RangeRequest request;
  request.set_key(key);
  pb::RangeResponse response;
  absl::Status status = CallAny<pb::KV>(*this, "Reading " + key, [&](auto& stub, auto* context) {
    return stub.Range(context, request, &response);
  });
  if (!status.ok()) return status;
  if (response.kvs_size() == 0) return std::optional<EtcdKeyValue>();
  return std::optional<EtcdKeyValue>(FromProto(response.kvs(0)));
}

absl::StatusOr<EtcdRange> EtcdClient::GetPrefix(const std::string& prefix) {
  pb::RangeRequest request;
  request.set_key(prefix);
  request.set_range_end(PrefixEnd(prefix));
  pb::RangeResponse response;
  absl::Status status = CallAny<pb::KV>(*this, "Reading " + prefix, [&](auto& stub, auto* context) {
    return stub.Range(context, request, &response);
  });
  if (!status.ok()) return status;
  return EtcdRange{FromProto(response.kvs()), response.header().revision()};
}

absl::StatusOr<int64_t> EtcdClient::Put(const std::string& key, const std::string& value,
                                        int64_t lease) {
  pb::PutRequest request;
  request.set_key(key);
  request.set_value(value);
  request.set_lease(lease);
  pb::PutResponse response;
  absl::Status status = CallAny<pb::KV>(*this, "Writing " + key, [&](auto& stub, auto* context) {
    return stub.Put(context, request, &response);
  });
  if (!status.ok()) return status;
  return response.header().revision();
}

absl::StatusOr<int64_t> EtcdClient::Delete(const std::string& key) {
  pb::DeleteRangeRequest request;
  request.set_key(key);
  pb::DeleteRangeResponse response;
  absl::Status status = CallAny<pb::KV>(*this, "Deleting " + key, [&](auto& stub, auto* context) {
    return stub.DeleteRange(context, request, &response);
  });
  if (!status.ok()) return status;
  return response.deleted();
}

absl::StatusOr<EtcdTxnResult> EtcdClient::Txn(const std::vector<EtcdCompare>& compares,
                                              const std::vector<EtcdOp>& success,
                                              const std::vector<EtcdOp>& failure) {
  pb::TxnRequest request;
  for (const EtcdCompare& compare : compares) ToProto(compare, request.add_compare());
  for (const EtcdOp& op : success) ToProto(op, request.add_success());
  for (const EtcdOp& op : failure) ToProto(op, request.add_failure());
  pb::TxnResponse response;
  absl::Status status = CallAny<pb::KV>(*this, "A transaction", [&](auto& stub, auto* context) {
    return stub.Txn(context, request, &response);
  });
  if (!status.ok()) return status;
  EtcdTxnResult result;
  result.succeeded = response.succeeded();
  result.revision = response.header().revision();
  for (const pb::ResponseOp& op : response.responses()) {
    if (op.has_response_range()) result.gets.push_back(FromProto(op.response_range().kvs()));
  }
  return result;
}

absl::StatusOr<int64_t> EtcdClient::GrantLease(std::chrono::seconds ttl) {
  pb::LeaseGrantRequest request;
  request.set_ttl(ttl.count());
  pb::LeaseGrantResponse response;
  absl::Status status = CallAny<pb::Lease>(*this, "Granting a lease", [&](auto& stub, auto* context) {
    return stub.LeaseGrant(context, request, &response);
  });
  if (!status.ok()) return status;
  if (!response.error().empty()) return KeeperError(*this, "Granting a lease", response.error());
  return response.id();
}

absl::StatusOr<int64_t> EtcdClient::KeepAlive(int64_t lease) {
  pb::LeaseKeepAliveResponse response;
  absl::Status status =
      CallAny<pb::Lease>(*this, "Renewing a lease", [&](auto& stub, grpc::ClientContext* context) {
        auto stream = stub.LeaseKeepAlive(context);
        pb::LeaseKeepAliveRequest request;
        request.set_id(lease);
        if (stream->Write(request) && stream->Read(&response)) {
          stream->WritesDone();
          context->TryCancel();  // one round is all: do not wait for etcd to end the stream
          (void)stream->Finish();
          return grpc::Status::OK;
        }
        return stream->Finish();
      });
  if (!status.ok()) return status;
  return std::max<int64_t>(0, response.ttl());
}

absl::Status EtcdClient::RevokeLease(int64_t lease) {
  pb::LeaseRevokeRequest request;
  request.set_id(lease);
  pb::LeaseRevokeResponse response;
  return CallAny<pb::Lease>(*this, "Revoking a lease", [&](auto& stub, auto* context) {
    return stub.LeaseRevoke(context, request, &response);
  });
}

}  // namespace granite::coordinator
