#include "coordinator/access/privilege_check.h"

#include <set>
#include <variant>

#include "absl/strings/str_cat.h"
#include "coordinator/cluster/table_name.h"
#include "core/absl_compat.h"
#include "core/error.h"

namespace granite::coordinator::access {
namespace {

// Collects the tables a SELECT reads, skipping names of common table expressions in scope.
class SelectWalker {
 public:
  SelectWalker(std::string_view current_database, std::vector<Requirement>* out)
      : current_database_(current_database), out_(*out) {}

  void Walk(const sql::SelectStatement& select, std::set<std::string> ctes) {
    for (const sql::WithItem& with : select.with) {
      if (with.subquery) {
        Walk(*with.subquery, ctes);
        ctes.insert(with.name);
      }
      Expr(with.expr, ctes);
    }
    for (const sql::ExprPtr& item : select.select) Expr(item, ctes);
    if (select.from) Table(*select.from, ctes);
    for (const sql::JoinClause& join : select.joins) {
      Table(join.table, ctes);
      Expr(join.on, ctes);
    }
    Expr(select.where, ctes);
    for (const sql::ExprPtr& key : select.group_by) Expr(key, ctes);
    for (const auto& set : select.grouping_sets) {
      for (const sql::ExprPtr& key : set) Expr(key, ctes);
    }
    Expr(select.having, ctes);
    Expr(select.qualify, ctes);
    for (const auto& [name, window] : select.windows) Window(window, ctes);
    for (const sql::OrderItem& item : select.order_by) Expr(item.expr, ctes);
    for (const sql::ExprPtr& key : select.limit_by) Expr(key, ctes);
    for (const auto& [op, operand] : select.set_operands) {
      if (operand) Walk(*operand, ctes);
    }
  }

  void Expr(const sql::ExprPtr& expr, const std::set<std::string>& ctes) {
    if (expr == nullptr) return;
    if (expr->subquery) Walk(*expr->subquery, ctes);
    for (const sql::ExprPtr& arg : expr->args) Expr(arg, ctes);
    if (expr->over) Window(*expr->over, ctes);
  }

 private:
  void Table(const sql::TableRef& ref, const std::set<std::string>& ctes) {
    if (ref.subquery) {
      Walk(*ref.subquery, ctes);
      return;
    }
    if (ref.is_function) {
      for (const sql::ExprPtr& arg : ref.args) Expr(arg, ctes);
      return;
    }
    if (ref.name.empty()) return;
    if (ref.database.empty() && ctes.count(ref.name)) return;
    const std::string database = ref.database.empty() ? std::string(current_database_)
                                                      : ref.database;
    if (database == kSystemDatabase) return;
    out_.push_back(Requirement{kSelect, database, ref.name});
  }

  void Window(const sql::WindowSpec& window, const std::set<std::string>& ctes) {
    for (const sql::ExprPtr& key : window.partition_by) Expr(key, ctes);
    for (const sql::OrderItem& item : window.order_by) Expr(item.expr, ctes);
  }

  std::string_view current_database_;
  std::vector<Requirement>& out_;
};

Requirement On(uint32_t privileges, const std::string& catalog_name) {
  QualifiedTable name = SplitTableName(catalog_name);
  return Requirement{privileges, std::move(name.database), std::move(name.table)};
}

}  // namespace

std::vector<Requirement> RequirementsOf(const sql::Statement& statement,
                                        std::string_view current_database) {
  std::vector<Requirement> out;
  SelectWalker walker(current_database, &out);
  auto table = [&](uint32_t privileges, const std::string& catalog_name) {
    Requirement requirement = On(privileges, catalog_name);
    if (requirement.database != kSystemDatabase) out.push_back(std::move(requirement));
  };
  if (const auto* select = std::get_if<sql::SelectStatement>(&statement)) {
    walker.Walk(*select, {});
  } else if (const auto* explain = std::get_if<sql::ExplainStatement>(&statement)) {
    walker.Walk(explain->select, {});
  } else if (const auto* insert = std::get_if<sql::InsertStatement>(&statement)) {
    table(kInsert, insert->table);
    if (insert->select) walker.Walk(*insert->select, {});
    for (const auto& row : insert->values) {
      for (const sql::ExprPtr& value : row) walker.Expr(value, {});
    }
  } else if (const auto* create = std::get_if<sql::CreateTableStatement>(&statement)) {
    table(kCreate, create->name);
    if (create->view) walker.Walk(*create->view, {});
  } else if (const auto* drop = std::get_if<sql::DropTableStatement>(&statement)) {
    table(kDrop, drop->name);
  } else if (const auto* optimize = std::get_if<sql::OptimizeStatement>(&statement)) {
    table(kAlter, optimize->table);
  } else if (const auto* alter = std::get_if<sql::AlterSettingsStatement>(&statement)) {
    table(kAlter, alter->table);
  } else if (const auto* part = std::get_if<sql::AlterPartStatement>(&statement)) {
    table(kAlter, part->table);
  } else if (const auto* check = std::get_if<sql::CheckTableStatement>(&statement)) {
    table(kSelect, check->table);
  } else if (const auto* describe = std::get_if<sql::DescribeStatement>(&statement)) {
    table(0, describe->table);
  } else if (const auto* show = std::get_if<sql::ShowStatement>(&statement)) {
    if (show->kind == sql::ShowStatement::Kind::kCreateTable ||
        show->kind == sql::ShowStatement::Kind::kExists) {
      table(0, show->table);
    }
  } else if (const auto* truncate = std::get_if<sql::TruncateStatement>(&statement)) {
    table(kTruncate, truncate->table);
  } else if (const auto* rename = std::get_if<sql::RenameStatement>(&statement)) {
    for (const auto& [from, to] : rename->renames) {
      table(kDrop, from);
      table(kCreate | kInsert, to);
    }
  } else if (const auto* kill = std::get_if<sql::KillQueryStatement>(&statement)) {
    walker.Expr(kill->where, {});  // subqueries of its condition
  } else if (const auto* database = std::get_if<sql::DatabaseStatement>(&statement)) {
    out.push_back(Requirement{database->drop ? kDrop : kCreate, database->name, "*"});
  }
  return out;
}

absl::Status NotEnoughPrivileges(std::string_view user, uint32_t privileges,
                                 std::string_view database, std::string_view table) {
  AccessRule rule;
  rule.database = std::string(database);
  rule.table = std::string(table);
  if (privileges == 0) {
    return core::Error(core::ErrorCode::kAccessDenied,
                       absl::StrCat(core::ToAbsl(user), ": Not enough privileges. To execute this "
                                    "query, it's necessary to have any grant on ",
                                    rule.ObjectText()));
  }
  return core::Error(core::ErrorCode::kAccessDenied,
                     absl::StrCat(core::ToAbsl(user), ": Not enough privileges. To execute this "
                                  "query, it's necessary to have the grant ",
                                  PrivilegeNames(privileges), " ON ", rule.ObjectText()));
}

absl::Status CheckRequirements(std::string_view user, const AccessRights& rights,
                               const std::vector<Requirement>& requirements) {
  for (const Requirement& requirement : requirements) {
    const bool allowed =
        requirement.privileges == 0
            ? rights.AllowsAny(requirement.database, requirement.table)
            : rights.Allows(requirement.privileges, requirement.database, requirement.table);
    if (allowed) continue;
    // Name only the privileges missing.
    uint32_t missing = 0;
    for (uint32_t bit = 1; bit & kAllPrivileges; bit <<= 1) {
      if ((requirement.privileges & bit) &&
          !rights.Allows(bit, requirement.database, requirement.table)) {
        missing |= bit;
      }
    }
    return NotEnoughPrivileges(user, missing, requirement.database, requirement.table);
  }
  return absl::OkStatus();
}

}  // namespace granite::coordinator::access
