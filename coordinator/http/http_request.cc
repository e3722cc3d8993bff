#include "coordinator/http/http_request.h"

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "coordinator/server/stream_compression.h"
#include "core/absl_compat.h"
#include "core/error.h"

namespace granite::coordinator::http {
namespace {

namespace ch = clickhouse::grpc;

// Returns `text` URL-decoded ('+' as a space; a bad %XX is kept as it is).
std::string UrlDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '+') {
      out.push_back(' ');
    } else if (c == '%' && i + 2 < text.size() && absl::ascii_isxdigit(text[i + 1]) &&
               absl::ascii_isxdigit(text[i + 2])) {
      int value = 0;
      for (int k = 1; k <= 2; ++k) {
        char h = absl::ascii_tolower(text[i + k]);
        value = value * 16 + (h <= '9' ? h - '0' : h - 'a' + 10);
      }
      out.push_back(static_cast<char>(value));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// Parameters the HTTP layer itself reads (not settings).
bool IsReservedParam(std::string_view name) {
  static const char* const kReserved[] = {
      "query", "database", "default_format", "query_id", "session_id", "session_check",
      "session_timeout", "user", "password", "quota_key", "stacktrace", "compress",
      "decompress", "client_protocol_version", "close_session", "role", "buffer_size",
      "wait_end_of_query", "enable_http_compression", "http_zlib_compression_level",
      "send_progress_in_http_headers", "http_headers_progress_interval_ms",
      "http_response_buffer_size", "http_wait_end_of_query", "max_result_rows",
      "result_overflow_mode"};
  for (const char* reserved : kReserved) {
    if (name == reserved) return true;
  }
  return false;
}

std::string HeaderOr(const RequestParts& request, const char* name) {
  auto it = request.headers.find(name);
  return it == request.headers.end() ? std::string() : it->second;
}

// Returns the first method of an Accept-Encoding list granite can produce, or "".
std::string ChooseEncoding(std::string_view accept) {
  for (absl::string_view item : absl::StrSplit(core::ToAbsl(accept), ',')) {
    std::string method = absl::AsciiStrToLower(absl::StripAsciiWhitespace(
        item.substr(0, item.find(';'))));
    if (method == "gzip" || method == "deflate" || method == "zstd" || method == "lz4") {
      return method;
    }
  }
  return "";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> ParseQueryString(std::string_view query_string) {
  std::vector<std::pair<std::string, std::string>> params;
  for (absl::string_view pair :
       absl::StrSplit(core::ToAbsl(query_string), '&')) {
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    std::string_view name(pair.data(), eq == absl::string_view::npos ? pair.size() : eq);
    std::string_view value = eq == absl::string_view::npos
                                 ? std::string_view()
                                 : std::string_view(pair.data() + eq + 1, pair.size() - eq - 1);
    params.emplace_back(UrlDecode(name), UrlDecode(value));
  }
  return params;
}

absl::StatusOr<RequestPlan> PlanRequest(const RequestParts& request) {
  RequestPlan plan;
  ch::QueryInfo& info = plan.info;
  info.set_output_format(HeaderOr(request, "x-clickhouse-format"));
  info.set_database(HeaderOr(request, "x-clickhouse-database"));
  info.set_query_id(HeaderOr(request, "x-clickhouse-query-id"));
  info.set_user_name(HeaderOr(request, "x-clickhouse-user"));
  info.set_password(HeaderOr(request, "x-clickhouse-key"));
  std::string authorization = HeaderOr(request, "authorization");
  if (absl::StartsWithIgnoreCase(authorization, "basic ")) {
    std::string decoded;
    if (!absl::Base64Unescape(absl::StripAsciiWhitespace(authorization.substr(6)), &decoded)) {
      return core::Error(core::ErrorCode::kBadArguments,
                         "The Authorization header's Basic credentials are not base64");
    }
    size_t colon = decoded.find(':');
    info.set_user_name(decoded.substr(0, colon));
    if (colon != std::string::npos) info.set_password(decoded.substr(colon + 1));
  }
  bool http_compression = false;
  for (const auto& [name, value] : request.params) {
    if (name == "query") {
      info.set_query(value);
      plan.has_query_param = true;
    } else if (name == "database") {
      info.set_database(value);
    } else if (name == "default_format") {
      if (info.output_format().empty()) info.set_output_format(value);
    } else if (name == "query_id") {
      info.set_query_id(value);
    } else if (name == "session_id") {
      info.set_session_id(value);
    } else if (name == "session_check") {
      info.set_session_check(value == "1" || value == "true");
    } else if (name == "session_timeout") {
      uint32_t seconds = 0;
      if (absl::SimpleAtoi(value, &seconds)) info.set_session_timeout(seconds);
    } else if (name == "user") {
      info.set_user_name(value);
    } else if (name == "password") {
      info.set_password(value);
    } else if (name == "enable_http_compression") {
      http_compression = value == "1" || value == "true";
    } else if (name == "send_progress_in_http_headers") {
      plan.send_progress = value == "1" || value == "true";
    } else if (!IsReservedParam(name)) {
      // Settings, and param_<name> query parameters, which travel as settings as ClickHouse's
      // gRPC clients send them (coordinator/exec/query_parameters.h).
      (*info.mutable_settings())[name] = value;
    }
  }
  if (info.output_format().empty()) info.set_output_format("TabSeparated");
  if (http_compression) {
    plan.output_compression = ChooseEncoding(HeaderOr(request, "accept-encoding"));
  }
  std::string content_encoding = absl::AsciiStrToLower(HeaderOr(request, "content-encoding"));
  if (!IsNoCompression(content_encoding) && content_encoding != "identity") {
    absl::StatusOr<std::unique_ptr<StreamDecompressor>> check =
        MakeStreamDecompressor(content_encoding);
    if (!check.ok()) return check.status();
    plan.input_compression = content_encoding;
  }
  return plan;
}

int HttpStatusFor(int code) {
  using core::ErrorCode;
  switch (static_cast<ErrorCode>(code)) {
    case ErrorCode::kAuthenticationFailed:
      return 403;
    case ErrorCode::kUnknownTable:
    case ErrorCode::kUnknownFunction:
    case ErrorCode::kUnknownIdentifier:
    case ErrorCode::kUnknownType:
    case ErrorCode::kUnknownDatabase:
    case ErrorCode::kUnknownSetting:
    case ErrorCode::kUnknownAggregateFunction:
    case ErrorCode::kUnknownFormat:
      return 404;
    case ErrorCode::kSyntaxError:
    case ErrorCode::kBadArguments:
    case ErrorCode::kCannotParseText:
    case ErrorCode::kCannotParseInputAssertionFailed:
    case ErrorCode::kIncorrectData:
    case ErrorCode::kTypeMismatch:
    case ErrorCode::kValueIsOutOfRangeOfDataType:
    case ErrorCode::kIllegalTypeOfArgument:
    case ErrorCode::kNumberOfArgumentsDoesntMatch:
    case ErrorCode::kUnknownCompressionMethod:
    case ErrorCode::kCannotDecompress:
      return 400;
    case ErrorCode::kHttpLengthRequired:
      return 411;
    case ErrorCode::kNotImplemented:
      return 501;
    default:
      return 500;
  }
}

bool StartsWithInsert(std::string_view query) {
  size_t i = 0;
  while (i < query.size()) {
    if (absl::ascii_isspace(query[i])) {
      ++i;
    } else if (query.substr(i, 2) == "--") {
      size_t end = query.find('\n', i);
      i = end == std::string_view::npos ? query.size() : end + 1;
    } else if (query.substr(i, 2) == "/*") {
      size_t end = query.find("*/", i + 2);
      i = end == std::string_view::npos ? query.size() : end + 2;
    } else {
      break;
    }
  }
  std::string_view rest = query.substr(i);
  return rest.size() >= 6 && absl::EqualsIgnoreCase(core::ToAbsl(rest.substr(0, 6)), "insert") &&
         (rest.size() == 6 || !absl::ascii_isalnum(rest[6]));
}

size_t InsertDataStart(std::string_view text) {
  std::string_view head = text.substr(0, 64 * 1024);
  for (size_t at = 0; at + 6 <= head.size(); ++at) {
    if (!absl::EqualsIgnoreCase(core::ToAbsl(head.substr(at, 6)), "format")) continue;
    if (at > 0 && !absl::ascii_isspace(head[at - 1])) continue;
    size_t pos = at + 6;
    if (pos >= head.size() || !absl::ascii_isspace(head[pos])) continue;
    while (pos < head.size() && absl::ascii_isspace(head[pos]) && head[pos] != '\n') ++pos;
    size_t name = pos;
    while (pos < head.size() && (absl::ascii_isalnum(head[pos]) || head[pos] == '_')) ++pos;
    if (pos == name) continue;
    while (pos < head.size() && (head[pos] == ' ' || head[pos] == '\t')) ++pos;
    if (pos < head.size() && head[pos] == '\r') ++pos;
    if (pos < head.size() && head[pos] == '\n') ++pos;
    return pos;
  }
  return std::string_view::npos;
}

}  // namespace granite::coordinator::http
