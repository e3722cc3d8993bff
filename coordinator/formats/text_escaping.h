// Escaping rules of the text formats (coordinator/formats): how a raw string is written inside a
// TabSeparated field, a CSV field and a JSON string, and how wide it looks in a Pretty table.
// Each function matches ClickHouse's WriteHelpers byte for byte.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/quoted_text.h"
#include "core/types.h"

namespace granite::coordinator {

// TabSeparated's escapes and the Values format's quoted strings (ClickHouse writeEscapedString,
// writeQuotedString) live in core, where arrays' text uses them too.
using core::AppendSqlQuoted;
using core::AppendTsvEscaped;

// Whether Pretty and Markdown tables align a column of `type` left: ClickHouse aligns text-like
// values (String, FixedString, Bool, UUID, arrays, tuples) left, numbers and dates right.
bool AlignsLeft(core::TypeId type);

// Appends `text` in double quotes with every '"' doubled (ClickHouse writeCSVString).
void AppendCsvQuoted(std::string_view text, std::string* out);

// Appends `text` as a JSON string literal with its quotes: '"' '\\' '/' \b \f \n \r \t are
// backslash-escaped, other bytes 0x00-0x1F become \u00XX (upper-case hex), U+2028 / U+2029 become
// \u2028 / \u2029, everything else (including invalid UTF-8) is copied (ClickHouse writeJSONString).
void AppendJsonString(std::string_view text, std::string* out);

// Returns the display width of UTF-8 `text` counted in code points (continuation bytes are not
// counted). Wide East Asian characters count as one.
size_t Utf8Width(std::string_view text);

// Appends up to `max_bytes` of `text` TSV-escaped, for "before: '...'" snippets in error messages.
void AppendErrorSnippet(std::string_view text, size_t max_bytes, std::string* out);

}  // namespace granite::coordinator
