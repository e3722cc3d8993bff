#include "coordinator/server/statement_kind.h"

#include <string>
#include <variant>

#include "core/settings/settings.h"

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
        ReadsThroughWorkers(*select) &&
        !select->settings.contains(
            std::string(core::Settings::NameOf(&core::Settings::queue_max_wait_ms)));
  } else if (const auto* insert = std::get_if<sql::InsertStatement>(&statement)) {
    traits.insert = true;
    traits.short_insert = insert->select == nullptr && !more_input && bytes <= kInlineInsertBytes;
  }
  traits.lowered = traits.select || (traits.insert && !traits.short_insert);
  return traits;
}

QueryKind KindOf(const sql::Statement& statement) {
  if (std::holds_alternative<sql::SelectStatement>(statement) ||
      std::holds_alternative<sql::ExplainStatement>(statement) ||
      std::holds_alternative<sql::ShowTablesStatement>(statement) ||
      std::holds_alternative<sql::DescribeStatement>(statement) ||
      std::holds_alternative<sql::ShowStatement>(statement)) {
    return QueryKind::kSelect;
  }
  if (std::holds_alternative<sql::InsertStatement>(statement)) return QueryKind::kInsert;
  if (std::holds_alternative<sql::CreateTableStatement>(statement) ||
      std::holds_alternative<sql::DropTableStatement>(statement) ||
      std::holds_alternative<sql::OptimizeStatement>(statement) ||
      std::holds_alternative<sql::AlterSettingsStatement>(statement) ||
      std::holds_alternative<sql::AlterPartStatement>(statement) ||
      std::holds_alternative<sql::DatabaseStatement>(statement) ||
      std::holds_alternative<sql::TruncateStatement>(statement) ||
      std::holds_alternative<sql::RenameStatement>(statement)) {
    return QueryKind::kDdl;
  }
  return QueryKind::kOther;
}

StatementTraits TraitsOf(const absl::StatusOr<sql::Statement>& parsed, size_t bytes,
                         bool more_input) {
  if (!parsed.ok()) return StatementTraits{};
  return TraitsOf(*parsed, bytes, more_input);
}

}  // namespace granite::coordinator
