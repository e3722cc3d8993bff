// URL functions with ClickHouse's (lenient, non-RFC) parsing:
//   protocol, domain, domainWithoutWWW, topLevelDomain, firstSignificantSubdomain,
//   cutToFirstSignificantSubdomain, path, pathFull, queryString, fragment,
//   queryStringAndFragment, cutQueryString, cutFragment, cutQueryStringAndFragment, cutWWW,
//   decodeURLComponent, encodeURLComponent, decodeURLFormComponent, encodeURLFormComponent
//   -> String; port -> UInt16; extractURLParameter(url, name), cutURLParameter(url, name).
// The host is what follows "scheme://" or "//" (or the start, without a scheme) and a "user@",
// up to the first ':', '/', '?' or '#'; domain() is empty unless the host has a dot and only
// letters, digits, '-', '_' and '.'. The query string starts after the first '?' anywhere in
// the URL and ends at the next '#'; the fragment starts after the first '#'.
#include <algorithm>
#include <string>

#include "absl/strings/ascii.h"
#include "core/functions/simple_function.h"

namespace granite::core {
namespace {

using A = Arg;
constexpr TypeId kStr = TypeId::kString;

// Returns the offset after "scheme://" or "//" (0 without either).
size_t AuthorityStart(std::string_view url) {
  size_t scheme = url.find("://");
  if (scheme != std::string_view::npos) {
    bool valid = scheme > 0 && absl::ascii_isalpha(url[0]);
    for (size_t i = 0; valid && i < scheme; ++i) {
      const char c = url[i];
      valid = absl::ascii_isalnum(c) || c == '+' || c == '-' || c == '.';
    }
    if (valid) return scheme + 3;
  }
  if (url.starts_with("//")) return 2;
  return 0;
}

// Returns the offset where the host starts: after the authority's "user@" when an '@' comes
// before the first ':', '/', '?' or '#' (the last such '@', as ClickHouse reads it).
size_t HostStart(std::string_view url) {
  size_t start = AuthorityStart(url);
  for (size_t i = start; i < url.size(); ++i) {
    const char c = url[i];
    if (c == ':' || c == '/' || c == '?' || c == '#') break;
    if (c == '@') start = i + 1;
  }
  return start;
}

size_t HostEnd(std::string_view url, size_t start) {
  size_t end = url.find_first_of(":/?#", start);
  return end == std::string_view::npos ? url.size() : end;
}

std::string_view Domain(std::string_view url) {
  const size_t start = HostStart(url);
  const size_t end = HostEnd(url, start);
  std::string_view host = url.substr(start, end - start);
  bool dot = false;
  for (char c : host) {
    if (c == '.') {
      dot = true;
    } else if (!absl::ascii_isalnum(c) && c != '-' && c != '_') {
      return {};
    }
  }
  return dot ? host : std::string_view();
}

std::string_view WithoutWww(std::string_view host) {
  return host.starts_with("www.") ? host.substr(4) : host;
}

std::string_view TopLevelDomain(std::string_view url) {
  std::string_view host = Domain(url);
  const size_t dot = host.rfind('.');
  if (dot == std::string_view::npos) return {};
  // An IPv4 address has no top-level domain: ClickHouse answers "" for an all-digit last label.
  std::string_view last = host.substr(dot + 1);
  const bool digits = std::all_of(last.begin(), last.end(), absl::ascii_isdigit);
  return digits ? std::string_view() : last;
}

// The registrable part of a host: the label before the top-level domain, or before a generic
// second-level one (com, net, org, co: example.co.uk -> example).
std::string_view SignificantStart(std::string_view host, size_t* begin, size_t* end) {
  const size_t last = host.rfind('.');
  if (last == std::string_view::npos) return {};
  size_t prev = last == 0 ? std::string_view::npos : host.rfind('.', last - 1);
  size_t label_begin = prev == std::string_view::npos ? 0 : prev + 1;
  std::string_view label = host.substr(label_begin, last - label_begin);
  if ((label == "com" || label == "net" || label == "org" || label == "co") &&
      prev != std::string_view::npos) {
    const size_t before = prev == 0 ? std::string_view::npos : host.rfind('.', prev - 1);
    label_begin = before == std::string_view::npos ? 0 : before + 1;
    *begin = label_begin;
    *end = prev;
    return host.substr(label_begin, prev - label_begin);
  }
  *begin = label_begin;
  *end = last;
  return label;
}

std::string_view FirstSignificantSubdomain(std::string_view url) {
  size_t b, e;
  return SignificantStart(WithoutWww(Domain(url)), &b, &e);
}

std::string_view CutToFirstSignificantSubdomain(std::string_view url) {
  std::string_view host = WithoutWww(Domain(url));
  size_t b = 0, e = 0;
  if (SignificantStart(host, &b, &e).empty()) return {};
  return host.substr(b);
}

std::string_view Protocol(std::string_view url) {
  if (url.empty() || !absl::ascii_isalpha(url[0])) return {};
  size_t i = 1;
  while (i < url.size() &&
         (absl::ascii_isalnum(url[i]) || url[i] == '+' || url[i] == '-' || url[i] == '.')) {
    ++i;
  }
  if (i >= url.size() || url[i] != ':') return {};
  if (url.substr(i).starts_with("://")) return url.substr(0, i);
  // "host:port" is no scheme.
  if (i + 1 < url.size() && absl::ascii_isdigit(url[i + 1])) return {};
  if (url.substr(0, i).find('.') != std::string_view::npos) return {};
  return url.substr(0, i);
}

// The path and what follows it: from the first '/' after the host.
std::string_view PathFull(std::string_view url) {
  const size_t start = HostStart(url);
  if (start == 0 && !Protocol(url).empty()) return {};
  const size_t slash = url.find('/', start);
  if (slash == std::string_view::npos) return {};
  return url.substr(slash);
}

std::string_view Path(std::string_view url) {
  std::string_view full = PathFull(url);
  const size_t end = full.find_first_of("?#");
  return end == std::string_view::npos ? full : full.substr(0, end);
}

std::string_view QueryString(std::string_view url) {
  const size_t q = url.find('?');
  if (q == std::string_view::npos) return {};
  const size_t hash = url.find('#', q);
  return url.substr(q + 1, hash == std::string_view::npos ? std::string_view::npos : hash - q - 1);
}

std::string_view Fragment(std::string_view url) {
  const size_t hash = url.find('#');
  return hash == std::string_view::npos ? std::string_view() : url.substr(hash + 1);
}

std::string_view QueryStringAndFragment(std::string_view url) {
  const size_t q = url.find('?');
  if (q != std::string_view::npos) return url.substr(q + 1);
  const size_t hash = url.find('#');
  return hash == std::string_view::npos ? std::string_view() : url.substr(hash);
}

template <std::string_view (*G)(std::string_view)>
void View(const Operand* ops, size_t i, Column* out) {
  out->AppendString(G(Str(ops[0], i)));
}

template <void (*G)(std::string_view, std::string*)>
void Build(const Operand* ops, size_t i, Column* out) {
  std::string result;
  G(Str(ops[0], i), &result);
  out->AppendString(result);
}

void CutQueryString(std::string_view url, std::string* out) {
  const size_t q = url.find('?');
  if (q == std::string_view::npos) {
    out->assign(url);
    return;
  }
  const size_t hash = url.find('#', q);
  out->assign(url.substr(0, q));
  if (hash != std::string_view::npos) out->append(url.substr(hash));
}

void CutFragment(std::string_view url, std::string* out) {
  out->assign(url.substr(0, std::min(url.find('#'), url.size())));
}

void CutQueryStringAndFragment(std::string_view url, std::string* out) {
  size_t cut = url.find('?');
  if (cut == std::string_view::npos) cut = url.find('#');
  out->assign(url.substr(0, std::min(cut, url.size())));
}

void CutWww(std::string_view url, std::string* out) {
  const size_t start = HostStart(url);
  if (start > 0 && url.substr(start).starts_with("www.")) {
    out->assign(url.substr(0, start));
    out->append(url.substr(start + 4));
  } else {
    out->assign(url);
  }
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

template <bool kForm>
void DecodeComponent(std::string_view s, std::string* out) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() + 0 && HexDigit(s[i + 1]) >= 0 &&
        HexDigit(s[i + 2]) >= 0) {
      out->push_back(static_cast<char>(HexDigit(s[i + 1]) * 16 + HexDigit(s[i + 2])));
      i += 2;
    } else if (kForm && s[i] == '+') {
      out->push_back(' ');
    } else {
      out->push_back(s[i]);
    }
  }
}

template <bool kForm>
void EncodeComponent(std::string_view s, std::string* out) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  for (unsigned char c : s) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out->push_back(static_cast<char>(c));
    } else if (kForm && c == ' ') {
      out->push_back('+');
    } else {
      out->push_back('%');
      out->push_back(kDigits[c >> 4]);
      out->push_back(kDigits[c & 15]);
    }
  }
}

void Port(const Operand* ops, size_t i, Column* out) {
  std::string_view url = Str(ops[0], i);
  const size_t start = HostStart(url);
  const size_t end = HostEnd(url, start);
  uint64_t port = 0;
  if (end < url.size() && url[end] == ':' && !Domain(url).empty()) {
    size_t k = end + 1;
    while (k < url.size() && absl::ascii_isdigit(url[k]) && port <= 65535) {
      port = port * 10 + (url[k++] - '0');
    }
    const bool ends = k == url.size() || url[k] == '/' || url[k] == '?' || url[k] == '#';
    if (!ends || port > 65535) port = 0;
  }
  out->Append<uint16_t>(static_cast<uint16_t>(port));
}

// Finds parameter `name` in the query string: [begin, end) of "name=value" and of the value.
bool FindParameter(std::string_view url, std::string_view name, size_t* begin, size_t* end,
                   size_t* value) {
  const size_t q = url.find('?');
  if (q == std::string_view::npos || name.empty()) return false;
  size_t pos = q + 1;
  while (pos <= url.size()) {
    size_t stop = url.find_first_of("&#", pos);
    if (stop == std::string_view::npos) stop = url.size();
    std::string_view pair = url.substr(pos, stop - pos);
    if (pair.starts_with(name) && pair.size() > name.size() && pair[name.size()] == '=') {
      *begin = pos;
      *end = stop;
      *value = pos + name.size() + 1;
      return true;
    }
    if (stop >= url.size() || url[stop] == '#') return false;
    pos = stop + 1;
  }
  return false;
}

void ExtractUrlParameter(const Operand* ops, size_t i, Column* out) {
  std::string_view url = Str(ops[0], i);
  size_t b, e, v;
  if (!FindParameter(url, Str(ops[1], i), &b, &e, &v)) return out->AppendString("");
  out->AppendString(url.substr(v, e - v));
}

void CutUrlParameter(const Operand* ops, size_t i, Column* out) {
  std::string_view url = Str(ops[0], i);
  size_t b, e, v;
  if (!FindParameter(url, Str(ops[1], i), &b, &e, &v)) return out->AppendString(url);
  std::string result(url.substr(0, b));
  if (e < url.size() && url[e] == '&') {
    result.append(url.substr(e + 1));
  } else {
    if (!result.empty() && result.back() == '&') result.pop_back();
    result.append(url.substr(e));
  }
  out->AppendString(result);
}

std::string_view DomainWithoutWww(std::string_view url) { return WithoutWww(Domain(url)); }

}  // namespace

void RegisterUrlFunctions(FunctionTable& table) {
  AddSimpleFunctions(table, {
      {"protocol", {A::kString}, 1, 1, false, kStr, MakeRowKernel<View<Protocol>>},
      {"domain", {A::kString}, 1, 1, false, kStr, MakeRowKernel<View<Domain>>},
      {"domainWithoutWWW", {A::kString}, 1, 1, false, kStr,
       MakeRowKernel<View<DomainWithoutWww>>},
      {"topLevelDomain", {A::kString}, 1, 1, false, kStr, MakeRowKernel<View<TopLevelDomain>>},
      {"firstSignificantSubdomain", {A::kString}, 1, 1, false, kStr,
       MakeRowKernel<View<FirstSignificantSubdomain>>},
      {"cutToFirstSignificantSubdomain", {A::kString}, 1, 1, false, kStr,
       MakeRowKernel<View<CutToFirstSignificantSubdomain>>},
      {"path", {A::kString}, 1, 1, false, kStr, MakeRowKernel<View<Path>>},
      {"pathFull", {A::kString}, 1, 1, false, kStr, MakeRowKernel<View<PathFull>>},
      {"queryString", {A::kString}, 1, 1, false, kStr, MakeRowKernel<View<QueryString>>},
      {"fragment", {A::kString}, 1, 1, false, kStr, MakeRowKernel<View<Fragment>>},
      {"queryStringAndFragment", {A::kString}, 1, 1, false, kStr,
       MakeRowKernel<View<QueryStringAndFragment>>},
      {"cutQueryString", {A::kString}, 1, 1, false, kStr, MakeRowKernel<Build<CutQueryString>>},
      {"cutFragment", {A::kString}, 1, 1, false, kStr, MakeRowKernel<Build<CutFragment>>},
      {"cutQueryStringAndFragment", {A::kString}, 1, 1, false, kStr,
       MakeRowKernel<Build<CutQueryStringAndFragment>>},
      {"cutWWW", {A::kString}, 1, 1, false, kStr, MakeRowKernel<Build<CutWww>>},
      {"decodeURLComponent", {A::kString}, 1, 1, false, kStr,
       MakeRowKernel<Build<DecodeComponent<false>>>},
      {"encodeURLComponent", {A::kString}, 1, 1, false, kStr,
       MakeRowKernel<Build<EncodeComponent<false>>>},
      {"decodeURLFormComponent", {A::kString}, 1, 1, false, kStr,
       MakeRowKernel<Build<DecodeComponent<true>>>},
      {"encodeURLFormComponent", {A::kString}, 1, 1, false, kStr,
       MakeRowKernel<Build<EncodeComponent<true>>>},
      {"port", {A::kString}, 1, 1, false, TypeId::kUInt16, MakeRowKernel<Port>},
      {"extractURLParameter", {A::kString}, 2, 2, false, kStr,
       MakeRowKernel<ExtractUrlParameter>},
      {"cutURLParameter", {A::kString}, 2, 2, false, kStr, MakeRowKernel<CutUrlParameter>},
  });
}

}  // namespace granite::core
