// Tuple and Map table columns (ClickHouse's compound types). A part stores only scalar and array
// columns, so a compound column is kept as its subcolumns, as ClickHouse names them on disk:
// `t Tuple(a UInt8, b String)` is stored as `t.a UInt8` and `t.b String` (an unnamed tuple's
// elements as `t.1`, `t.2`), and `m Map(K, V)` as `m.keys Array(K)` and `m.values Array(V)`.
// TableSchema::compound_columns keeps the declarations (name and type text); the subcolumns are
// ordinary columns of the schema, right after one another. The coordinator rewrites a reference
// to the column into the subcolumns (coordinator/planner/compound_columns.h) and puts the value
// together only for the final result (coordinator/exec/tuple_results.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/column.h"
#include "core/types.h"

namespace granite::core {

// One declared Tuple or Map column.
struct CompoundColumn {
  std::string name;
  std::string type;  // as ClickHouse prints it: "Tuple(a UInt8, b String)", "Map(String, UInt64)"

  bool operator==(const CompoundColumn&) const = default;
};

// What a compound type declares.
struct CompoundLayout {
  bool map = false;
  // Nested(a T, b U): no compound column at all; the table gets Array columns `n.a Array(T)` and
  // `n.b Array(U)` (ClickHouse's flatten_nested = 1), whose arrays an INSERT keeps equal in size.
  bool nested = false;
  // Array(Tuple(a T, b U)): subcolumns `c.a Array(T)` and `c.b Array(U)` (an unnamed tuple's as
  // `c.1`, `c.2`), whose arrays an INSERT keeps equal in size, as ClickHouse stores them.
  bool array = false;
  // A named tuple's element names; empty for an unnamed tuple and a map.
  std::vector<std::string> element_names;
  // Per subcolumn: its name after "column." ("a", "1", "keys", "values") and its type (a map's
  // are Array(K) and Array(V)).
  std::vector<std::string> suffixes;
  std::vector<TypeId> types;
  std::string type_name;  // the declaration as ClickHouse prints it
  std::string pretty_name;  // as toTypeName and DESCRIBE show it (core::PrettyTypeName)
};

// Parses a column type written as Tuple(...), Map(K, V), Array(Tuple(...)) or
// Nested(name Type, ...) (any case;
// tuple elements `name Type` or `Type`); nullopt for any other type text. Elements are ParseType's types (LowCardinality read
// as its type). Errors: UNKNOWN_TYPE for an element that is not a type, NOT_IMPLEMENTED for a
// compound inside a compound or an Enum element, BAD_ARGUMENTS for a Map without exactly two
// arguments, a Nullable or Array key, or duplicate element names.
absl::StatusOr<std::optional<CompoundLayout>> ParseCompoundType(std::string_view text);

// Returns the layout of one element of an Array(Tuple(...)) layout: the tuple, its types the
// arrays' element types. REQUIRES: array.array.
CompoundLayout ArrayElementLayout(const CompoundLayout& array);

// Returns the subcolumn name: "t.a".
std::string SubcolumnName(std::string_view column, std::string_view suffix);

// Parses one value's text into the subcolumns (`columns`, one per suffix of `layout`, each of
// its type), appending one row to each: a tuple as (e1, e2) or [e1, e2], a named tuple also as a
// JSON object {"a": e1, "b": e2}, a map as {k: v, ...}, an array of tuples as [tuple, ...];
// elements quoted ('x' or "x") or bare; NULL for an element that is not Nullable is its default.
// Errors: CANNOT_PARSE_INPUT_ASSERTION_FAILED naming the text and the type when it is not such
// a value; an element's own parse error. Leaves
// the columns unchanged on error.
absl::Status ParseCompoundText(std::string_view text, const CompoundLayout& layout,
                               const std::vector<Column*>& columns);

// Returns the subcolumns of a String column holding one value's text per row (an INSERT's
// input for Tuple or Map column `name`); an empty text is the default value (an empty map, a
// tuple of defaults). Errors: ParseCompoundText's, with the row and the column named.
absl::StatusOr<std::vector<ColumnPtr>> ParseCompoundColumn(const Column& text,
                                                           const CompoundLayout& layout,
                                                           std::string_view name);

}  // namespace granite::core
