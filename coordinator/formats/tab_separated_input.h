// TabSeparated input (TSV, TSVRaw and the WithNames / WithNamesAndTypes variants); the rules are
// in coordinator/formats/input_parser.h.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "coordinator/formats/input_block_builder.h"

namespace granite::coordinator {

// Decodes ClickHouse TSV escapes of `text` into `out` (replacing its contents).
void UnescapeTsv(std::string_view text, std::string* out);

// Parses all rows of `data` into `builder`. `header_lines` is 0, 1 (names) or 2 (names, types);
// `raw` disables escape decoding.
absl::Status ParseTabSeparated(std::string_view data, int header_lines, bool raw,
                               InputBlockBuilder* builder);

}  // namespace granite::coordinator
