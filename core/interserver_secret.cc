#include "core/interserver_secret.h"

#include <openssl/crypto.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include "absl/strings/ascii.h"
#include "core/error.h"
#include "core/metrics/events.h"
#include "core/rpc_status.h"

namespace granite::core {

namespace {

std::string& Secret() {
  static auto* secret = new std::string();
  return *secret;
}

// Adds the secret to the initial metadata of every call of its channel.
class SecretInterceptor : public grpc::experimental::Interceptor {
 public:
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->emplace(kInterServerSecretHeader, InterServerSecret());
    }
    methods->Proceed();
  }
};

class SecretInterceptorFactory : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo*) override {
    return new SecretInterceptor();
  }
};

}  // namespace

void SetInterServerSecret(std::string secret) { Secret() = std::move(secret); }

const std::string& InterServerSecret() { return Secret(); }

absl::StatusOr<std::string> ResolveInterServerSecret(const std::string& value,
                                                     const std::string& file) {
  if (!value.empty() || file.empty()) return value;
  std::ifstream in(file);
  if (!in) {
    return Error(ErrorCode::kCannotReadFromFile,
                 "Cannot read the inter-server secret file " + file);
  }
  std::stringstream text;
  text << in.rdbuf();
  std::string secret = text.str();
  while (!secret.empty() && absl::ascii_isspace(secret.back())) secret.pop_back();
  if (secret.empty()) {
    return Error(ErrorCode::kBadArguments, "The inter-server secret file " + file + " is empty");
  }
  return secret;
}

std::string GenerateInterServerSecret() {
  std::random_device random;  // the kernel's random source (getrandom) on Linux
  static constexpr char kHex[] = "0123456789abcdef";
  std::string secret;
  for (int i = 0; i < 16; ++i) {
    uint32_t word = random();
    for (int j = 0; j < 4; ++j) secret += kHex[(word >> (4 * j)) & 15];
  }
  return secret;
}

std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>
InterServerClientInterceptors() {
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> factories;
  if (!InterServerSecret().empty()) {
    factories.push_back(std::make_unique<SecretInterceptorFactory>());
  }
  return factories;
}

grpc::Status CheckInterServerSecret(const grpc::ServerContext& context) {
  const std::string& secret = InterServerSecret();
  if (secret.empty()) return grpc::Status::OK;
  const auto& metadata = context.client_metadata();
  auto found = metadata.find(kInterServerSecretHeader);
  bool ok = false;
  if (found != metadata.end() && found->second.size() == secret.size()) {
    ok = CRYPTO_memcmp(found->second.data(), secret.data(), secret.size()) == 0;
  }
  if (ok) return grpc::Status::OK;
  CountEvent(Event::kInterServerAuthenticationFailures);
  std::fprintf(stderr, "granite worker: refused a call from %s without the inter-server secret\n",
               context.peer().c_str());
  return ToGrpcStatus(Error(ErrorCode::kAuthenticationFailed,
                            "Authentication failed: this is a worker port; calls need the "
                            "cluster's inter-server secret (only the coordinator has it)"));
}

}  // namespace granite::core
