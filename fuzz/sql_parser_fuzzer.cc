// Fuzz target: the SQL parser (coordinator/sql/parser.h) on arbitrary text. Besides not crashing,
// every expression of a parsed SELECT must have a column name (ColumnName walks the whole tree).
// With GRANITE_FUZZ_VALUES the text follows "INSERT INTO t VALUES ", so the fuzzer spends its time
// in VALUES rows (the Values input format is parsed by the SQL parser).
#include <string>
#include <string_view>
#include <variant>

#include "coordinator/sql/parser.h"
#include "fuzz/fuzz_check.h"

namespace sql = granite::coordinator::sql;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 16) return 0;  // deep nesting is refused by depth, not by length
#ifdef GRANITE_FUZZ_VALUES
  std::string text = "INSERT INTO t VALUES ";
  text.append(reinterpret_cast<const char*>(data), size);
#else
  std::string text(reinterpret_cast<const char*>(data), size);
#endif
  absl::StatusOr<sql::Statement> statement = sql::ParseStatement(text);
  if (!statement.ok()) {
    FUZZ_CHECK(!statement.status().message().empty(), "a parse error has a message");
    return 0;
  }
  if (const auto* select = std::get_if<sql::SelectStatement>(&*statement)) {
    for (const sql::ExprPtr& item : select->select) {
      if (item) sql::ColumnName(*item);
    }
  }
  return 0;
}
