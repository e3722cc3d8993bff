// ClickHouse's quoted text form of values (its serializeTextQuoted): how a value is written
// inside an array's text, in the Values format and in a SQL literal. Strings in single quotes
// with backslash escapes, dates, times and UUIDs quoted, numbers bare, NULL as NULL, arrays as
// [e1,e2,...] of quoted elements. Also the reverse: parsing an array's text ([1,2], ['a','b'],
// JSON's ["a","b"]) into an Array column. core/value_text.h prints and parses arrays through here.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "core/column.h"
#include "core/types.h"

namespace granite::core {

// Appends `text` escaped for TabSeparated: backslash, tab, newline, \r, \0, \b, \f and the single
// quote become \\ \t \n \r \0 \b \f \' (ClickHouse writeEscapedString).
void AppendTsvEscaped(std::string_view text, std::string* out);

// Appends `text` in single quotes with TabSeparated's escapes (ClickHouse writeQuotedString).
void AppendSqlQuoted(std::string_view text, std::string* out);

// Returns the contents of a quoted string ('...', "..." or `...`, quotes included) with the quotes
// removed and escapes resolved like ClickHouse: \n \t \r \0 \b \f \a \v \e \xHH \\ \' \" \` are
// unescaped, an unknown escape keeps its backslash, and a doubled quote stands for one quote.
// REQUIRES: quoted.size() >= 2 and it starts and ends with the same quote.
std::string UnquoteText(std::string_view quoted);

// Appends row `row` of `column` in the quoted form described above (NULL for a NULL).
// REQUIRES: row < column.size().
void AppendQuotedValueText(const Column& column, size_t row, std::string* out);

// Appends the text of array row `row`: [1,2,3], ['a','b'], [[1],[]], [NULL,'x'].
// REQUIRES: IsArray(column.type()), row < column.size().
void AppendArrayText(const Column& column, size_t row, std::string* out);

// Appends the text of tuple row `row`: (1,'a'), ((1,2),[3]), (NULL); a map's {'a':1,'b':2}.
// REQUIRES: IsTuple(column.type()).
void AppendTupleText(const Column& column, size_t row, std::string* out);

// Parses the text of one array of `type` (surrounding spaces allowed) and appends it to `column`:
// elements quoted ('a' or "a") or bare (1, -2.5, NULL, true), nested arrays in brackets. A
// malformed text is CANNOT_PARSE_TEXT ("Cannot parse \"[1,\" as Array(UInt8)"); an element that
// does not fit is the element type's error (as ParseValueText says it). Leaves `column` unchanged
// on error. REQUIRES: IsArray(type), column->type() == type.
absl::Status ParseArrayText(std::string_view text, TypeId type, Column* column);

// Parses the text of one element as it stands inside an array's text ('a', "a", 1, NULL, [1,2];
// surrounding spaces allowed) and appends it to `column`. Errors and REQUIRES as ParseArrayText,
// for any `type` with column->type() == type (NULL only into a Nullable column).
absl::Status ParseQuotedValueText(std::string_view text, TypeId type, Column* column);

}  // namespace granite::core
