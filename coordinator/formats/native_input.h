// Native input: ClickHouse's column-oriented block format (the layout of native_output.h), as
// clickhouse-connect and other clients send an INSERT's data over HTTP. Each block's columns are
// mapped to the table's by name; a column the block lacks gets default values; a column type
// must be the table column's type name exactly (TYPE_MISMATCH otherwise); a name the table lacks
// is INCORRECT_DATA. A block is parsed only once all of it arrived.
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "coordinator/formats/input_block_builder.h"
#include "coordinator/formats/input_progress.h"

namespace granite::coordinator {

// Parses whole blocks from the front of `data` into `builder`; returns the bytes consumed (0
// while the first block is incomplete). With `last`, a truncated block is
// CANNOT_PARSE_INPUT_ASSERTION_FAILED.
absl::StatusOr<size_t> ParseNative(std::string_view data, bool last, InputProgress* progress,
                                   InputBlockBuilder* builder);

}  // namespace granite::coordinator
