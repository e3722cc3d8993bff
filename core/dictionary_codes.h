// DictionaryCodes: the in-memory form of a LowCardinality(String) column read from a part that
// stores it dictionary-encoded (storage/dictionary_serialization.h): the part's distinct values
// once, and per row the index of its value. A Column attaches it (Column::dictionary_codes)
// beside its ordinary strings, so every kernel reads the strings as before while the fast paths
// work per distinct value: Expression evaluates a one-column expression over the dictionary and
// spreads the results by code, and the Aggregator maps each distinct key to its group once per
// block.
#pragma once

#include <cstdint>
#include <vector>

#include "core/column.h"
#include "core/plan/expr.h"

namespace granite::core {

// Holds the codes of one column's rows into a shared dictionary.
// Thread-safety: immutable once attached; shared by every reader of the column.
// Invariants: dictionary holds distinct values of the column's type (no null map);
//             every code < dictionary->size(); codes.size() == the column's size(). A NULL row of
//             a Nullable column has some valid code (the column's null map decides).
struct DictionaryCodes {
  ColumnPtr dictionary;
  std::vector<uint32_t> codes;
};

// Returns the input column `expr` reads when it is a call that reads exactly one String-layout
// column and no lambda or random function (its value for a row depends on that row's value
// alone: Expression evaluates it once per distinct value of a column with codes), else -1.
int DictionaryColumnOf(const plan::Expr& expr);

}  // namespace granite::core
