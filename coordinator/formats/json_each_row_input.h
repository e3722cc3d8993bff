// JSONEachRow input; the rules are in coordinator/formats/input_parser.h.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "coordinator/formats/input_block_builder.h"

namespace granite::coordinator {

// Parses all objects of `data` into `builder`.
absl::Status ParseJsonEachRow(std::string_view data, InputBlockBuilder* builder);

}  // namespace granite::coordinator
