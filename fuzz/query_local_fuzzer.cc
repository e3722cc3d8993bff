// Fuzz target: a SELECT without FROM run to the end on a coordinator with no workers
// (QueryExecutor::Execute → bind → the local FragmentPipeline → final stage): the function
// kernels, type rules, aggregates and the final stage on constant inputs. Statements that would
// reach workers (a FROM, INSERT, DDL, KILL) are skipped: with no workers they test nothing real.
// Servers must not die on a user's query, so every outcome but a crash is fine here.
#include <string>
#include <variant>

#include "coordinator/cluster/catalog.h"
#include "coordinator/cluster/worker_set.h"
#include "coordinator/exec/query_executor.h"
#include "coordinator/server/query_context.h"
#include "coordinator/sql/parser.h"
#include "core/thread_pool.h"
#include "fuzz/fuzz_check.h"

namespace coordinator = granite::coordinator;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 12) return 0;
  std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<coordinator::sql::Statement> statement = coordinator::sql::ParseStatement(text);
  if (!statement.ok()) return 0;
  const auto* select = std::get_if<coordinator::sql::SelectStatement>(&*statement);
  if (select == nullptr || select->from.has_value()) return 0;
  static auto* workers = new coordinator::WorkerSet(std::vector<std::string>{});
  static auto* catalog = [] {
    auto* c = new coordinator::Catalog();
    c->Reset(std::vector<granite::core::TableSchema>{});  // loaded: no worker is asked
    return c;
  }();
  static auto* pool = new granite::core::ThreadPool(1);
  static auto* executor = new coordinator::QueryExecutor(workers, catalog, pool);
  coordinator::QueryContext query("fuzz", text);
  absl::StatusOr<coordinator::QueryResult> result = executor->Execute(text, *statement, "", &query);
  if (!result.ok()) FUZZ_CHECK(!result.status().message().empty(), "an error has a message");
  return 0;
}
