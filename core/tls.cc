#include "core/tls.h"

#include <grpcpp/security/credentials.h>

#include <fstream>
#include <sstream>

#include "core/error.h"

namespace granite::core {

namespace {

absl::StatusOr<std::string> ReadPem(const std::string& path, const char* what) {
  std::ifstream in(path);
  std::stringstream text;
  if (in) text << in.rdbuf();
  if (!in || text.str().empty()) {
    return Error(ErrorCode::kCannotReadFromFile,
                 std::string("Cannot read the ") + what + " file " + path);
  }
  return text.str();
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFromFiles(
    const std::string& cert_file, const std::string& key_file, const std::string& ca_file) {
  if (cert_file.empty() && key_file.empty() && ca_file.empty()) {
    return grpc::InsecureServerCredentials();
  }
  if (cert_file.empty() || key_file.empty()) {
    return Error(ErrorCode::kBadArguments,
                 "TLS needs both --tls_cert and --tls_key (--tls_ca alone is not enough)");
  }
  absl::StatusOr<std::string> cert = ReadPem(cert_file, "TLS certificate");
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPem(key_file, "TLS key");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions options(
      ca_file.empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                      : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  if (!ca_file.empty()) {
    absl::StatusOr<std::string> ca = ReadPem(ca_file, "TLS CA");
    if (!ca.ok()) return ca.status();
    options.pem_root_certs = *ca;
  }
  options.pem_key_cert_pairs.push_back({*key, *cert});
  return grpc::SslServerCredentials(options);
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentialsFromFiles(
    const std::string& ca_file, const std::string& cert_file, const std::string& key_file) {
  grpc::SslCredentialsOptions options;
  if (!ca_file.empty()) {
    absl::StatusOr<std::string> ca = ReadPem(ca_file, "TLS CA");
    if (!ca.ok()) return ca.status();
    options.pem_root_certs = *ca;
  }
  if (!cert_file.empty() || !key_file.empty()) {
    absl::StatusOr<std::string> cert = ReadPem(cert_file, "TLS certificate");
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadPem(key_file, "TLS key");
    if (!key.ok()) return key.status();
    options.pem_cert_chain = *cert;
    options.pem_private_key = *key;
  }
  return grpc::SslCredentials(options);
}

}  // namespace granite::core
