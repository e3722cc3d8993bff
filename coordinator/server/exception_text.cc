#include "coordinator/server/exception_text.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "coordinator/server/utf8_check.h"
#include "core/error.h"

namespace granite::coordinator {

std::string ExceptionMessage(const absl::Status& status) {
  core::ErrorCode code = core::CodeOf(status);
  if (status.message().empty()) return std::string(core::ErrorName(code)) + " (no message)";
  return EscapeInvalidUtf8(std::string(status.message()));
}

std::string ExceptionDisplayText(const absl::Status& status) {
  core::ErrorCode code = core::CodeOf(status);
  std::string message = ExceptionMessage(status);
  while (!message.empty() && (message.back() == '.' || absl::ascii_isspace(message.back()))) {
    message.pop_back();
  }
  return absl::StrFormat("Code: %d. DB::Exception: %s. (%s)", static_cast<int>(code), message,
                         core::ErrorName(code));
}

}  // namespace granite::coordinator
