#include "core/plan_parse.h"

#include <string>

#include "core/error.h"
#include "google/protobuf/io/coded_stream.h"

namespace granite::core {

absl::Status ParsePlanFragment(std::string_view bytes, granite::worker::v1::Fragment* fragment) {
  google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(bytes.data()),
                                               static_cast<int>(bytes.size()));
  input.SetRecursionLimit(kPlanRecursionLimit);
  if (!fragment->ParseFromCodedStream(&input) || !input.ConsumedEntireMessage()) {
    return Error(ErrorCode::kIncorrectData,
                 "Cannot parse the plan fragment (" + std::to_string(bytes.size()) +
                     " bytes): not a Fragment, or nested deeper than " +
                     std::to_string(kPlanRecursionLimit) + " messages");
  }
  return absl::OkStatus();
}

}  // namespace granite::core
