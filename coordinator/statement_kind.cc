#include "coordinator/statement_kind.h"

#include <variant>

namespace granite::coordinator {

namespace {

bool ReadsThroughWorkers(const sql::SelectStatement& select) {
  return select.from.has_value() && select.from->database != "system";
}

}  // namespace

StatementTraits TraitsOf(const sql::Statement& statement, size_t bytes, bool more_input) {
  StatementTraits traits;
  if (const auto* select = std::get_if<sql::SelectStatement>(&statement)) {
    traits.select = true;
    traits.admitted_select =
        ReadsThroughWorkers(*select) && !select->settings.contains("queue_max_wait_ms");
  } else if (const auto* insert = std::get_if<sql::InsertStatement>(&statement)) {
    traits.insert = true;
    traits.short_insert = insert->select == nullptr && !more_input && bytes <= kInlineInsertBytes;
  }
  traits.lowered = traits.select || (traits.insert && !traits.short_insert);
  return traits;
}

StatementTraits TraitsOf(const absl::StatusOr<sql::Statement>& parsed, size_t bytes,
                         bool more_input) {
  if (!parsed.ok()) return StatementTraits{};
  return TraitsOf(*parsed, bytes, more_input);
}

}  // namespace granite::coordinator
