#include "coordinator/system_tables.h"

#include <grpcpp/grpcpp.h>

#include <map>

#include "core/error.h"
#include "core/rpc_status.h"

namespace granite::coordinator {

namespace pb = granite::worker::v1;
using core::TypeId;

namespace {

// Builds a LocalTable column by column.
class TableBuilder {
 public:
  TableBuilder(std::vector<std::string> names, std::vector<TypeId> types) {
    table_.names = std::move(names);
    table_.types = std::move(types);
    for (TypeId type : table_.types) columns_.push_back(std::make_shared<core::Column>(type));
  }
  core::Column& operator[](size_t i) { return *columns_[i]; }
  LocalTable Build() {
    table_.block.rows_without_columns = columns_.empty() ? 0 : columns_[0]->size();
    for (auto& column : columns_) table_.block.columns.push_back(std::move(column));
    return std::move(table_);
  }

 private:
  LocalTable table_;
  std::vector<core::MutableColumnPtr> columns_;
};

// Asks every worker for its tables; a worker that does not answer gets an empty response and
// `up[i] = false`.
std::vector<pb::ListTablesResponse> ListTablesEverywhere(const WorkerSet& workers,
                                                         std::vector<bool>* up) {
  std::vector<pb::ListTablesResponse> responses(workers.size());
  up->assign(workers.size(), false);
  workers.CallAll([&](size_t i) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    (*up)[i] = workers.stub(i)->ListTables(&context, pb::ListTablesRequest(), &responses[i]).ok();
    return absl::OkStatus();
  });
  return responses;
}

}  // namespace

absl::StatusOr<LocalTable> BuildSystemTable(const std::string& name, const WorkerSet& workers,
                                            const Catalog& catalog) {
  if (name == "tables") {
    std::vector<bool> up;
    auto responses = ListTablesEverywhere(workers, &up);
    std::map<std::string, std::pair<uint64_t, uint64_t>> totals;  // rows, bytes
    for (const auto& response : responses) {
      for (const auto& table : response.tables()) {
        auto& total = totals[table.schema().name()];
        total.first += table.rows();
        total.second += table.bytes_on_disk();
      }
    }
    TableBuilder t({"database", "name", "engine", "total_rows", "total_bytes"},
                   {TypeId::kString, TypeId::kString, TypeId::kString, TypeId::kUInt64,
                    TypeId::kUInt64});
    for (const auto& schema : catalog.All()) {
      t[0].AppendString("default");
      t[1].AppendString(schema.name());
      t[2].AppendString(schema.engine());
      t[3].Append<uint64_t>(totals[schema.name()].first);
      t[4].Append<uint64_t>(totals[schema.name()].second);
    }
    return t.Build();
  }
  if (name == "workers") {
    std::vector<bool> up;
    auto responses = ListTablesEverywhere(workers, &up);
    TableBuilder t({"index", "address", "state", "tables", "rows"},
                   {TypeId::kUInt32, TypeId::kString, TypeId::kString, TypeId::kUInt64,
                    TypeId::kUInt64});
    for (size_t i = 0; i < workers.size(); ++i) {
      uint64_t rows = 0;
      for (const auto& table : responses[i].tables()) rows += table.rows();
      t[0].Append<uint32_t>(i);
      t[1].AppendString(workers.address(i));
      t[2].AppendString(up[i] ? "up" : "down");
      t[3].Append<uint64_t>(responses[i].tables_size());
      t[4].Append<uint64_t>(rows);
    }
    return t.Build();
  }
  if (name == "parts") {
    std::vector<pb::ListPartsResponse> responses(workers.size());
    workers.CallAll([&](size_t i) {
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
      workers.stub(i)->ListParts(&context, pb::ListPartsRequest(), &responses[i]);
      return absl::OkStatus();
    });
    TableBuilder t({"database", "table", "partition", "name", "rows", "bytes_on_disk", "level",
                    "active", "worker"},
                   {TypeId::kString, TypeId::kString, TypeId::kString, TypeId::kString,
                    TypeId::kUInt64, TypeId::kUInt64, TypeId::kUInt32, TypeId::kUInt8,
                    TypeId::kUInt32});
    for (size_t i = 0; i < workers.size(); ++i) {
      for (const auto& part : responses[i].parts()) {
        t[0].AppendString("default");
        t[1].AppendString(part.table());
        t[2].AppendString(part.partition());
        t[3].AppendString(part.name());
        t[4].Append<uint64_t>(part.rows());
        t[5].Append<uint64_t>(part.bytes_on_disk());
        t[6].Append<uint32_t>(part.level());
        t[7].Append<uint8_t>(part.active() ? 1 : 0);
        t[8].Append<uint32_t>(i);
      }
    }
    return t.Build();
  }
  return core::Error(core::ErrorCode::kUnknownTable, "Table system." + name + " does not exist");
}

}  // namespace granite::coordinator
