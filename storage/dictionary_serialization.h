// Dictionary serialization of LowCardinality(String) columns (ClickHouse's LowCardinality
// serialization, one dictionary per part): PartWriter collects a LowCardinality column's distinct
// values in a part; when there are at most kMaxDictionarySize of them taking at most
// kMaxDictionaryBytes, the part stores them once in its meta (PartMeta::dictionaries, code
// order) and every granule stores its rows' codes — 1, 2 or 4 bytes each by the dictionary's
// size — then, for Nullable(T), the null map. Past either limit the part falls back to the plain
// layouts (Default or Sparse), as ClickHouse falls back when a dictionary grows too big. The
// part records the choice per column (ColumnSerialization::kDictionary), so parts written before
// the column was LowCardinality, or that fell back, read unchanged, and a merge re-encodes.
//
// The granules keep their codec chain and marks (bounds are those of the values), so pruning,
// the uncompressed cache (which then holds codes) and checksums work as for other layouts.
// Part materializes the strings from the dictionary and attaches the codes
// (core/dictionary_codes.h) for the fast paths of filters and GROUP BY.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/column.h"

namespace granite::storage {

// ClickHouse's default low_cardinality_max_dictionary_size.
inline constexpr size_t kMaxDictionarySize = 8192;
// Keeps a part's meta (read whole when the part loads) small.
inline constexpr size_t kMaxDictionaryBytes = size_t{1} << 20;

// Sets *values to the distinct values of `column` (a String-layout column; under a NULL, its
// stored default '') in order of first appearance and *codes to each row's index into them, and
// returns true; returns false (outputs unspecified) past kMaxDictionarySize values or
// kMaxDictionaryBytes bytes of values.
bool BuildDictionary(const core::Column& column, std::vector<std::string>* values,
                     std::vector<uint32_t>* codes);

// Returns the bytes of one code in a granule of a dictionary of `size` values: 1, 2 or 4.
size_t CodeWidth(size_t size);

// Returns the raw granule of rows [begin, end): codes[begin, end) at `width` bytes each, then with
// `null_map` the rows' null map of `column` (zeros when it has none), built in *scratch.
std::string_view EncodeDictionaryGranule(const std::vector<uint32_t>& codes, size_t width,
                                         const core::Column& column, size_t begin, size_t end,
                                         bool null_map, std::string* scratch);

// Decodes a raw granule of `rows` rows of a dictionary of `size` values: appends the codes to
// *codes and, with `nulls`, the null map to *nulls. Returns false when `raw` is malformed (wrong
// size, a code out of the dictionary).
bool DecodeDictionaryGranule(std::string_view raw, size_t rows, size_t size,
                             std::vector<uint32_t>* codes, std::vector<uint8_t>* nulls);

// Returns the dictionary column (type `type` without Nullable) of `values`.
core::ColumnPtr DictionaryColumn(core::TypeId type, const std::vector<std::string>& values);

// Appends the values codes[0 .. count) of `dictionary` to `out`, a String-layout column of the
// same type (its null map, if any, is not written).
void AppendDictionaryValues(const core::Column& dictionary, const uint32_t* codes, size_t count,
                            core::Column* out);

}  // namespace granite::storage
