// CSV input (CSV and the WithNames / WithNamesAndTypes variants); the rules are in
// coordinator/formats/input_parser.h.
#pragma once

#include <string_view>

#include "absl/status/status.h"
#include "coordinator/formats/input_block_builder.h"

namespace granite::coordinator {

// Parses all rows of `data` into `builder`. `header_lines` is 0, 1 (names) or 2 (names, types).
absl::Status ParseCsv(std::string_view data, int header_lines, InputBlockBuilder* builder);

}  // namespace granite::coordinator
