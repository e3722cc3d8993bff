// TabSeparated input (TSV, TSVRaw and the WithNames / WithNamesAndTypes variants); the rules are
// in coordinator/formats/input_parser.h.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "coordinator/formats/input_block_builder.h"
#include "coordinator/formats/input_progress.h"

namespace granite::coordinator {

// Decodes ClickHouse TSV escapes of `text` into `out` (replacing its contents).
void UnescapeTsv(std::string_view text, std::string* out);

// Parses whole rows from the front of `data` into `builder` and returns the bytes consumed (never
// a partial row). `last` says no text follows `data`: then a final row without '\n' is whole and
// trailing blank lines are ignored. `header_lines` is 0, 1 (names) or 2 (names, types), read by
// the first call; `raw` disables escape decoding. `progress` carries state between calls.
absl::StatusOr<size_t> ParseTabSeparated(std::string_view data, bool last,
                                         const InputLimits& limits, int header_lines, bool raw,
                                         InputProgress* progress, InputBlockBuilder* builder);

// Returns where the next chunk of `data` ends (after its headers were read), as ParseTabSeparated
// would cut it, without parsing; sets *final when the cut ends all the text (see CutChunk).
size_t CutTabSeparated(std::string_view data, bool last, const InputLimits& limits, bool raw,
                       bool* final);

}  // namespace granite::coordinator
