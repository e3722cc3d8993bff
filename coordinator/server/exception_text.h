// ExceptionText: the text a client sees for a failed query, in ClickHouse's form
// "Code: 60. DB::Exception: Table default.x does not exist. (UNKNOWN_TABLE)". The gRPC service
// sends it as Exception.display_text (the stock ClickHouse client prints only that field) and
// the HTTP interface as the body of an error response. Bytes of the message that are not UTF-8
// (a client's input quoted in a parse error) are escaped as \xNN: both carriers need UTF-8.
#pragma once

#include <string>

#include "absl/status/status.h"

namespace granite::coordinator {

// Returns the message of `status` with invalid UTF-8 escaped; never empty (a status made
// without a message says "<NAME> (no message)").
std::string ExceptionMessage(const absl::Status& status);

// Returns "Code: N. DB::Exception: <message>. (NAME)" for `status` (REQUIRES: not OK); trailing
// dots and spaces of the message are dropped so the text never ends in "..".
std::string ExceptionDisplayText(const absl::Status& status);

}  // namespace granite::coordinator
