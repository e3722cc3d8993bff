// Sparse serialization of mostly-default columns, as ClickHouse's
// `ratio_of_defaults_for_sparse_serialization`: PartWriter decides per column and per part, from
// the part's actual rows, whether a column's granules hold every value (kDefault, the layout of
// storage/part_format.h) or only the values that are not the type's default and their positions
// (kSparse). The part records the choice per column (PartMeta::serializations); Part rebuilds a
// dense column from a sparse granule by filling defaults and scattering the values.
//
// A row is default when it is NULL (Nullable(T)), else when its bytes are all zero: 0, 0.0, '',
// FixedString's zero bytes, the zero UUID. Comparing bytes (not values) keeps -0.0 exact.
//
// Raw layout of a sparse granule of n non-default rows, before the column's codec chain:
//   values  the n values in T's dense layout (fixed width: the values; String-layout: n u32
//           lengths, then the chars); for Nullable(T) the non-NULL values, with no null map
//   gaps    per value, a LEB128 varint: its row minus the previous value's row minus 1 (the
//           first value's row itself)
//   count   u32 n
// Values come first so that a preprocessing codec (Delta, T64...) still sees aligned values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/column.h"
#include "core/types.h"

namespace granite::storage {

// How one column of a part is laid out; ClickHouse's serialization kinds.
enum class ColumnSerialization : uint8_t {
  kDefault = 0,  // every row's value
  kSparse = 1,   // only the non-default values and their rows
  // LowCardinality: the part's distinct values once (PartMeta::dictionaries), and per row its
  // value's code (storage/dictionary_serialization.h).
  kDictionary = 2,
};

// Returns ClickHouse's name of the kind: "Default" or "Sparse".
std::string_view SerializationName(ColumnSerialization serialization);

// ClickHouse's default `ratio_of_defaults_for_sparse_serialization`.
inline constexpr double kDefaultSparseRatio = 0.9375;

// Returns the number of default rows of `column` (see above).
size_t CountDefaultRows(const core::Column& column);

// Returns kSparse when more than `ratio` of the rows of `column`, of declared type `type`, are
// default (strictly, as ClickHouse: a ratio of 1.0 never chooses sparse), else kDefault. A
// Nullable(T) column without a null map has no NULL, so no default.
ColumnSerialization ChooseSerialization(const core::Column& column, core::TypeId type,
                                        double ratio);

// Returns the raw sparse granule of rows [begin, end) of `column`, built in `*scratch`.
// REQUIRES: begin <= end <= column.size(); ChooseSerialization chose kSparse for the column.
std::string_view EncodeSparseGranule(const core::Column& column, size_t begin, size_t end,
                                     std::string* scratch);

// Decodes a raw sparse granule of `rows` rows of a column of declared type `type`:
//   fixed-width T: writes rows * ValueSize(T) bytes at `values`;
//   String-layout T: appends the rows to `*strings` (values is unused);
//   Nullable(T): also appends the rows' null map (1 = NULL) to `*nulls`.
// Returns false when `raw` is malformed (then `*strings` and `*nulls` may hold a partial granule).
// REQUIRES: `strings` is a column of T for String-layout T (its null map, if any, is not
// written); `nulls` is not null for Nullable(T).
bool DecodeSparseGranule(std::string_view raw, size_t rows, core::TypeId type, char* values,
                         core::Column* strings, std::vector<uint8_t>* nulls);

// Writes the byte lengths of the `rows` rows of a raw sparse String granule to `sizes` and
// returns the total length of the values, or -1 when `raw` is malformed.
// REQUIRES: type String (not Nullable).
int64_t SparseStringSizes(std::string_view raw, size_t rows, uint64_t* sizes);

// Returns the upper bound of the chars a sparse String-layout granule of `raw_size` raw bytes and
// `rows` rows decodes to (to reserve before decoding).
inline uint64_t SparseCharsBound(uint64_t raw_size, uint64_t rows, core::TypeId type) {
  return raw_size + rows * core::FixedStringSizeOf(type);
}

}  // namespace granite::storage
