// JSONEachRow input; the rules are in coordinator/formats/input_parser.h.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "coordinator/formats/input_block_builder.h"
#include "coordinator/formats/input_progress.h"

namespace granite::coordinator {

// Parses whole objects from the front of `data` into `builder` and returns the bytes consumed
// (never a partial object). `last` says no text follows `data`. `progress` carries state (the
// opening '[', rows and lines) between calls.
absl::StatusOr<size_t> ParseJsonEachRow(std::string_view data, bool last,
                                        const InputLimits& limits, InputProgress* progress,
                                        InputBlockBuilder* builder);

// Returns where the next chunk of `data` ends (after the first one: an opening '[' was read), as
// ParseJsonEachRow would cut it, without parsing; sets *final when the cut ends all the text.
size_t CutJsonEachRow(std::string_view data, bool last, const InputLimits& limits, bool* final);

}  // namespace granite::coordinator
