#include "coordinator/access/ip_network.h"

#include <arpa/inet.h>

#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/absl_compat.h"
#include "core/error.h"

namespace granite::coordinator::access {

namespace {

constexpr IpAddress kMappedPrefix = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0};

// Parses an IPv4 or IPv6 literal (no brackets, no prefix); IPv4 is mapped.
bool ParseAddress(const std::string& text, IpAddress* out, bool* v4) {
  in_addr v4_address;
  if (inet_pton(AF_INET, text.c_str(), &v4_address) == 1) {
    *out = kMappedPrefix;
    std::memcpy(out->data() + 12, &v4_address, 4);
    *v4 = true;
    return true;
  }
  in6_addr v6_address;
  if (inet_pton(AF_INET6, text.c_str(), &v6_address) == 1) {
    std::memcpy(out->data(), &v6_address, 16);
    *v4 = false;
    return true;
  }
  return false;
}

IpNetwork Network(const std::string& address, int prefix_bits) {
  IpNetwork network;
  bool v4 = false;
  ParseAddress(address, &network.address, &v4);
  network.prefix_bits = prefix_bits + (v4 ? 96 : 0);
  return network;
}

}  // namespace

bool IpNetwork::Contains(const IpAddress& ip) const {
  int bits = prefix_bits;
  for (size_t i = 0; i < 16 && bits > 0; ++i, bits -= 8) {
    uint8_t mask = bits >= 8 ? 0xff : static_cast<uint8_t>(0xff << (8 - bits));
    if ((ip[i] & mask) != (address[i] & mask)) return false;
  }
  return true;
}

std::string IpNetwork::ToString() const {
  char text[INET6_ADDRSTRLEN] = {};
  bool mapped = std::memcmp(address.data(), kMappedPrefix.data(), 12) == 0 && prefix_bits >= 96;
  if (mapped) {
    inet_ntop(AF_INET, address.data() + 12, text, sizeof(text));
    return absl::StrCat(text, "/", prefix_bits - 96);
  }
  inet_ntop(AF_INET6, address.data(), text, sizeof(text));
  return absl::StrCat(text, "/", prefix_bits);
}

absl::Status ParseNetworks(std::string_view text, std::vector<IpNetwork>* out) {
  for (absl::string_view piece : absl::StrSplit(core::ToAbsl(text), ',', absl::SkipWhitespace())) {
    std::string item(absl::StripAsciiWhitespace(piece));
    std::string lower = absl::AsciiStrToLower(item);
    if (lower == "loopback") {
      out->push_back(Network("127.0.0.0", 8));
      out->push_back(Network("::1", 128));
      continue;
    }
    if (lower == "any") {
      out->push_back(Network("0.0.0.0", 0));
      out->push_back(Network("::", 0));
      continue;
    }
    std::string address = item;
    int bits = -1;
    if (size_t slash = item.find('/'); slash != std::string::npos) {
      address = item.substr(0, slash);
      if (!absl::SimpleAtoi(item.substr(slash + 1), &bits)) bits = 1000;
    }
    IpNetwork network;
    bool v4 = false;
    int max_bits = 128;
    if (ParseAddress(address, &network.address, &v4)) max_bits = v4 ? 32 : 128;
    else bits = 1000;
    if (bits == -1) bits = max_bits;
    if (bits < 0 || bits > max_bits) {
      return core::Error(core::ErrorCode::kBadArguments,
                         absl::StrCat("Cannot parse network \"", item,
                                      "\": expected an IPv4 or IPv6 address with an optional "
                                      "/prefix, `loopback` or `any`"));
    }
    network.prefix_bits = bits + (v4 ? 96 : 0);
    out->push_back(network);
  }
  return absl::OkStatus();
}

absl::StatusOr<IpAddress> PeerAddress(std::string_view peer) {
  IpAddress ip{};
  std::string text(peer);
  bool v4 = false;
  if (text.rfind("unix:", 0) == 0) {
    ParseAddress("127.0.0.1", &ip, &v4);
    return ip;
  }
  std::string host;
  if (text.rfind("ipv4:", 0) == 0) {
    host = text.substr(5, text.rfind(':') - 5);
  } else if (text.rfind("ipv6:", 0) == 0) {
    size_t open = text.find('['), close = text.find(']');
    if (open != std::string::npos && close != std::string::npos && close > open) {
      host = text.substr(open + 1, close - open - 1);
    }
  }
  if (host.empty() || !ParseAddress(host, &ip, &v4)) {
    return core::Error(core::ErrorCode::kBadArguments,
                       absl::StrCat("Cannot read the client address of peer \"", text, "\""));
  }
  return ip;
}

bool IsLoopback(const IpAddress& ip) {
  static const IpNetwork kV4 = Network("127.0.0.0", 8);
  static const IpNetwork kV6 = Network("::1", 128);
  return kV4.Contains(ip) || kV6.Contains(ip);
}

bool IsLoopbackHost(std::string_view host) {
  std::string text(host);
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
    text = text.substr(1, text.size() - 2);
  }
  if (absl::AsciiStrToLower(text) == "localhost") return true;
  IpAddress ip;
  bool v4 = false;
  return ParseAddress(text, &ip, &v4) && IsLoopback(ip);
}

}  // namespace granite::coordinator::access
