// Arrow input formats (INSERT ... FORMAT ArrowStream / Arrow), as clickhouse-connect's
// insert_arrow and pyarrow's writers send them: the IPC stream (a Schema message, RecordBatch
// messages, an optional end-of-stream marker) or the IPC file ("ARROW1", the same stream, a
// footer that is not needed and skipped). Messages are parsed as they arrive, so an insert of
// any size holds one record batch at a time; a message is parsed only once all of it arrived.
//
// Columns map to the table's by name, as in ClickHouse: an Arrow column the table lacks is
// skipped, a table column the data lacks is omitted (its DEFAULT; ClickHouse's
// input_format_arrow_allow_missing_columns). Values decode to the granite type arrow_types.h
// reads the Arrow type as, then convert to the column's type like CAST (int64 into UInt32,
// timestamp[ns] into DateTime64(3), utf8 into FixedString). A NULL into a column that is not
// Nullable is its default (input_format_null_as_default), an Arrow NULL list an empty array.
// Buffers compressed with LZ4_FRAME or ZSTD are decompressed. A dictionary-encoded column
// (DictionaryBatch messages, then indexes in the record batches: pandas' categorical) reads as
// its values. Types granite lacks (struct, map, time, interval, ...) are UNKNOWN_TYPE; malformed
// data is INCORRECT_DATA or CANNOT_PARSE_INPUT_ASSERTION_FAILED (truncated), never a crash: the
// flatbuffers metadata is verified before it is read.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/formats/input_block_builder.h"
#include "coordinator/formats/input_progress.h"
#include "core/types.h"

namespace granite::coordinator {

// How one Arrow column's values are laid out: the granite type they read as (an array's whole
// type), whether its offsets are 64-bit (large_list, large_utf8, large_binary), and for a list
// its element's layout.
struct ArrowColumnLayout {
  core::TypeId type = core::TypeId::kNothing;
  bool large_offsets = false;
  std::vector<ArrowColumnLayout> element;  // one entry for a list, else empty
  // A dictionary-encoded column (pandas' categorical): its record batches hold indexes of
  // `index_type` into dictionary `dictionary_id`, whose values are laid out as `element[0]`.
  int64_t dictionary_id = -1;
  core::TypeId index_type = core::TypeId::kInt32;
};

// What an Arrow parse carries from one chunk of input to the next.
struct ArrowInputState {
  bool started = false;  // the file magic was looked for
  bool schema_read = false;
  bool ended = false;    // past the end-of-stream marker: the rest (a file's footer) is skipped
  std::vector<std::string> names;
  std::vector<ArrowColumnLayout> columns;
  // The dictionaries read so far (DictionaryBatch messages), by id; a delta batch appends.
  std::map<int64_t, core::Column> dictionaries;
};

// Parses whole messages from the front of `data` into `builder`; returns the bytes consumed
// (fewer than data.size() while a message is incomplete). With `last`, a truncated message is
// CANNOT_PARSE_INPUT_ASSERTION_FAILED.
absl::StatusOr<size_t> ParseArrow(std::string_view data, bool last, ArrowInputState* state,
                                  InputProgress* progress, InputBlockBuilder* builder);

}  // namespace granite::coordinator
