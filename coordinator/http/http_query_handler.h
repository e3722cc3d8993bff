// ServeQuery: runs one HTTP query request (http_server.h) — reads the body (decompressed as
// Content-Encoding says), runs the query through ClickHouseService::RunQuery and writes the
// response: whole with Content-Length when the output fits in 1 MiB, else chunked.
#pragma once

#include "coordinator/http/http_request.h"

struct mg_connection;

namespace granite::coordinator {
class ClickHouseService;
}

namespace granite::coordinator::http {

// Serves the query of `request` on `connection`; returns the HTTP status sent.
int ServeQuery(mg_connection* connection, const RequestParts& request,
               ClickHouseService* service);

}  // namespace granite::coordinator::http
