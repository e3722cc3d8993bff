// CSV input (CSV and the WithNames / WithNamesAndTypes variants); the rules are in
// coordinator/formats/input_parser.h.
#pragma once

#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "coordinator/formats/input_block_builder.h"
#include "coordinator/formats/input_progress.h"

namespace granite::coordinator {

// Parses whole rows from the front of `data` into `builder` and returns the bytes consumed (never
// a partial row: quoted fields may span lines). `last` says no text follows `data`. `header_lines`
// is 0, 1 (names) or 2 (names, types), read by the first call. `progress` carries state between
// calls.
absl::StatusOr<size_t> ParseCsv(std::string_view data, bool last, const InputLimits& limits,
                                int header_lines, InputProgress* progress,
                                InputBlockBuilder* builder);

// Returns where the next chunk of `data` ends (after its headers were read), as ParseCsv would
// cut it, without converting values; sets *final when the cut ends all the text (see CutChunk).
size_t CutCsv(std::string_view data, bool last, const InputLimits& limits, bool* final);

}  // namespace granite::coordinator
