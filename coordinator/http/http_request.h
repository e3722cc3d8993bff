// HttpRequest: how ClickHouse's HTTP interface turns a request into a query — the URL parameters
// (query, database, default_format, query_id, session_id, session_check, session_timeout, user,
// password; everything else is a setting), the X-ClickHouse-User / -Key / -Database / -Format /
// -Query-Id headers and Basic authorization, and the HTTP-only settings that shape the response
// (enable_http_compression with Accept-Encoding). Pure functions over strings, so the rules are
// unit-tested without a server (http_query_handler.h serves them).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "clickhouse/grpc/clickhouse_grpc.pb.h"

namespace granite::coordinator::http {

// One request as civetweb hands it over: URL-decoded parameters in order, headers with
// case-insensitive names.
struct RequestParts {
  std::string method;
  std::vector<std::pair<std::string, std::string>> params;
  std::map<std::string, std::string> headers;  // names lower-cased
};

// What the HTTP layer decides beside the QueryInfo.
struct RequestPlan {
  clickhouse::grpc::QueryInfo info;  // query = the `query` parameter (the body comes later)
  bool has_query_param = false;
  std::string output_compression;  // "" or a method of stream_compression.h
  std::string input_compression;   // Content-Encoding of the body
  bool send_progress = false;      // send_progress_in_http_headers = 1: X-ClickHouse-Progress
};

// Splits an URL query string into decoded name/value pairs ('+' is a space).
std::vector<std::pair<std::string, std::string>> ParseQueryString(std::string_view query_string);

// Builds the query of `request`. Fails with BAD_ARGUMENTS for a malformed Authorization header
// and with UNKNOWN_COMPRESSION_METHOD for a Content-Encoding granite cannot decompress.
absl::StatusOr<RequestPlan> PlanRequest(const RequestParts& request);

// Returns the HTTP status ClickHouse answers an exception with `code`: 400 for bad input, 403
// for authentication, 404 for unknown names, 411, 501, else 500.
int HttpStatusFor(int code);

// Returns true if `query` starts with the keyword INSERT (after spaces and comments).
bool StartsWithInsert(std::string_view query);

// Returns where the data of "INSERT ... FORMAT name<spaces><newline><data>" begins in `text`
// (after the format name, the spaces and tabs after it and one line end), or npos when `text`
// has no FORMAT clause in its first 64 KiB. Clients such as clickhouse-connect send an INSERT's
// query and binary data as one body; the data must not become part of the query text.
size_t InsertDataStart(std::string_view text);

}  // namespace granite::coordinator::http
