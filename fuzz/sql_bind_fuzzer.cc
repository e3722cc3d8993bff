// Fuzz target: parse + bind (coordinator/planner/binder.h) of a SELECT against a fixed catalog of two
// tables with every column type, one of them sharded, for a 3-worker cluster. Binding types every
// expression through the function registry and the aggregate factory and applies the planner
// rules, so this reaches them with trees nobody wrote a test for.
#include <string>
#include <variant>

#include "coordinator/cluster/catalog.h"
#include "coordinator/planner/binder.h"
#include "coordinator/sql/parser.h"
#include "core/error.h"
#include "fuzz/fuzz_check.h"

namespace {

using granite::core::TypeId;
namespace coordinator = granite::coordinator;

granite::core::TableSchema Table(const std::string& name, bool sharded) {
  granite::core::TableSchema schema;
  schema.name = name;
  const std::pair<const char*, TypeId> columns[] = {
      {"u8", TypeId::kUInt8},   {"u16", TypeId::kUInt16},   {"u32", TypeId::kUInt32},
      {"u64", TypeId::kUInt64}, {"i8", TypeId::kInt8},      {"i16", TypeId::kInt16},
      {"i32", TypeId::kInt32},  {"i64", TypeId::kInt64},    {"f32", TypeId::kFloat32},
      {"f64", TypeId::kFloat64}, {"s", TypeId::kString},    {"d", TypeId::kDate},
      {"dt", TypeId::kDateTime}};
  for (const auto& [column, type] : columns) {
    schema.columns.push_back(granite::core::ColumnSchema{column, type});
  }
  if (sharded) {
    schema.sharding_key = {"u64"};
    schema.shard_count = 3;
  }
  return schema;
}

const coordinator::Catalog& FixedCatalog() {
  static const coordinator::Catalog* catalog = [] {
    auto* c = new coordinator::Catalog();
    c->Reset(std::vector<granite::core::TableSchema>{Table("t", false), Table("s", true)});
    return c;
  }();
  return *catalog;
}

absl::StatusOr<coordinator::LocalTable> NoSystemTables(const std::string&) {
  return granite::core::Error(granite::core::ErrorCode::kUnknownTable, "no system tables");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 14) return 0;
  std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<coordinator::sql::Statement> statement = coordinator::sql::ParseStatement(text);
  if (!statement.ok()) return 0;
  const auto* select = std::get_if<coordinator::sql::SelectStatement>(&*statement);
  if (select == nullptr) return 0;
  coordinator::Binder binder(&FixedCatalog(), NoSystemTables, /*worker_count=*/3);
  absl::StatusOr<coordinator::QueryPlan> plan = binder.Bind(*select);
  if (!plan.ok()) FUZZ_CHECK(!plan.status().message().empty(), "a bind error has a message");
  return 0;
}
