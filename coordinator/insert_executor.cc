#include "coordinator/insert_executor.h"

#include <grpcpp/grpcpp.h>

#include <random>
#include <string>

#include "core/block_codec.h"
#include "core/block_sort.h"
#include "core/error.h"
#include "core/expression.h"
#include "core/rpc_status.h"
#include "core/status_macros.h"
#include "core/value_text.h"
#include "coordinator/formats/input_parser.h"

namespace granite::coordinator {

namespace pb = granite::worker::v1;
using core::ErrorCode;
using core::TypeId;

namespace {

// The target columns of an insert: names, types and positions in the table.
struct Target {
  std::vector<std::string> names;
  std::vector<TypeId> types;
  std::vector<int> positions;
};

absl::StatusOr<Target> ResolveTarget(const sql::InsertStatement& insert,
                                     const pb::TableSchema& schema) {
  Target target;
  auto add = [&](int position) {
    target.names.push_back(schema.columns(position).name());
    target.types.push_back(static_cast<TypeId>(schema.columns(position).type()));
    target.positions.push_back(position);
  };
  if (insert.columns.empty()) {
    for (int i = 0; i < schema.columns_size(); ++i) add(i);
    return target;
  }
  for (const std::string& name : insert.columns) {
    int found = -1;
    for (int i = 0; i < schema.columns_size(); ++i) {
      if (schema.columns(i).name() == name) found = i;
    }
    if (found < 0) {
      return core::Error(ErrorCode::kNoSuchColumnInTable,
                         "No such column " + name + " in table " + schema.name());
    }
    add(found);
  }
  return target;
}

// Converts `column` to `type` with CAST (used for INSERT ... SELECT and computed VALUES).
absl::StatusOr<core::ColumnPtr> ConvertColumn(core::ColumnPtr column, TypeId type) {
  if (column->type() == type) return column;
  pb::Expr cast;
  cast.set_type(static_cast<uint32_t>(type));
  cast.mutable_call()->set_name("CAST");
  pb::Expr* arg = cast.mutable_call()->add_args();
  arg->set_type(static_cast<uint32_t>(column->type()));
  arg->set_column(0);
  pb::Expr* type_arg = cast.mutable_call()->add_args();
  type_arg->set_type(static_cast<uint32_t>(TypeId::kString));
  type_arg->mutable_literal()->set_string_value(std::string(core::TypeName(type)));
  ASSIGN_OR_RETURN(auto expr, core::Expression::FromProto(cast));
  core::Block block;
  block.columns.push_back(std::move(column));
  return expr->Evaluate(block);
}

absl::StatusOr<core::Block> ConvertBlock(const core::Block& block, const Target& target) {
  if (block.columns.size() != target.types.size()) {
    return core::Error(ErrorCode::kNumberOfColumnsDoesntMatch,
                       "Number of columns doesn't match: the query gives " +
                           std::to_string(block.columns.size()) + ", the insert expects " +
                           std::to_string(target.types.size()));
  }
  core::Block out;
  out.rows_without_columns = block.rows();
  for (size_t c = 0; c < block.columns.size(); ++c) {
    ASSIGN_OR_RETURN(core::ColumnPtr column, ConvertColumn(block.columns[c], target.types[c]));
    out.columns.push_back(std::move(column));
  }
  return out;
}

void AppendDefault(core::Column* column) {
  if (column->type() == TypeId::kString) {
    column->AppendString("");
  } else {
    column->Resize(column->size() + 1);
  }
}

// Parses INSERT ... VALUES rows: literals directly, other expressions through a SELECT.
absl::StatusOr<core::Block> ValuesBlock(const sql::InsertStatement& insert, const Target& target,
                                        const SelectRunner& run_select) {
  std::vector<core::MutableColumnPtr> columns;
  for (TypeId type : target.types) columns.push_back(std::make_shared<core::Column>(type));
  for (size_t r = 0; r < insert.values.size(); ++r) {
    const auto& row = insert.values[r];
    if (row.size() != target.types.size()) {
      return core::Error(ErrorCode::kNumberOfColumnsDoesntMatch,
                         "Row " + std::to_string(r + 1) + " has " + std::to_string(row.size()) +
                             " values, expected " + std::to_string(target.types.size()));
    }
    bool all_literal = true;
    for (const auto& value : row) all_literal = all_literal && value->kind == sql::ExprKind::kLiteral;
    if (all_literal) {
      for (size_t c = 0; c < row.size(); ++c) {
        const sql::Expr& value = *row[c];
        // granite has no Nullable columns yet: NULL inserts the type's default value.
        if (value.is_null) {
          AppendDefault(columns[c].get());
          continue;
        }
        absl::Status status = core::AppendValue(value.value, target.types[c], columns[c].get());
        if (!status.ok()) {
          return core::Error(core::CodeOf(status),
                             std::string(status.message()) + ": row " + std::to_string(r + 1) +
                                 ", column " + target.names[c]);
        }
      }
      continue;
    }
    sql::SelectStatement select;
    select.select = row;
    ASSIGN_OR_RETURN(core::Block computed, run_select(select));
    ASSIGN_OR_RETURN(core::Block converted, ConvertBlock(computed, target));
    for (size_t c = 0; c < columns.size(); ++c) columns[c]->AppendFrom(*converted.columns[c], 0);
  }
  core::Block block;
  block.rows_without_columns = insert.values.size();
  for (auto& column : columns) block.columns.push_back(std::move(column));
  return block;
}

// Returns a fresh random token naming one two-phase insert on every worker (32 hex digits).
std::string NewInsertToken() {
  static thread_local std::mt19937_64 random(std::random_device{}());
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (int half = 0; half < 2; ++half) {
    uint64_t bits = random();
    for (int i = 0; i < 16; ++i, bits >>= 4) token.push_back(kHex[bits & 15]);
  }
  return token;
}

// Returns the full-width block in table column order; columns not inserted get default values.
core::Block Widen(const core::Block& block, const Target& target, const pb::TableSchema& schema) {
  core::Block out;
  out.rows_without_columns = block.rows();
  for (int i = 0; i < schema.columns_size(); ++i) {
    int source = -1;
    for (size_t t = 0; t < target.positions.size(); ++t) {
      if (target.positions[t] == i) source = t;
    }
    if (source >= 0) {
      out.columns.push_back(block.columns[source]);
      continue;
    }
    auto column = std::make_shared<core::Column>(static_cast<TypeId>(schema.columns(i).type()));
    for (size_t r = 0; r < block.rows(); ++r) AppendDefault(column.get());
    out.columns.push_back(std::move(column));
  }
  return out;
}

}  // namespace

absl::StatusOr<uint64_t> ExecuteInsert(const sql::InsertStatement& insert, std::string_view input,
                                       const pb::TableSchema& schema, const WorkerSet& workers,
                                       const SelectRunner& run_select) {
  ASSIGN_OR_RETURN(Target target, ResolveTarget(insert, schema));
  core::Block rows;
  if (insert.select) {
    ASSIGN_OR_RETURN(core::Block selected, run_select(*insert.select));
    ASSIGN_OR_RETURN(rows, ConvertBlock(selected, target));
  } else if (insert.format == "Values" || !insert.values.empty()) {
    ASSIGN_OR_RETURN(rows, ValuesBlock(insert, target, run_select));
  } else {
    std::string data = insert.inline_data;
    data.append(input.data(), input.size());
    ASSIGN_OR_RETURN(rows, ParseInput(insert.format, data, target.names, target.types));
  }
  size_t total = rows.rows();
  if (total == 0) return 0;
  core::Block full = Widen(rows, target, schema);

  // Contiguous, even slices: worker i gets rows [total * i / n, total * (i + 1) / n).
  // Two phases, so that the insert is all-or-nothing across workers: every worker first writes
  // its slice durably but invisibly (PrepareInsert); only when all succeeded does each one make
  // it visible (CommitInsert). If any prepare fails, every worker is told to abort — also those
  // whose answer never came, which refuse the token if their prepare is still running.
  size_t n = workers.size();
  std::string token = NewInsertToken();
  std::vector<bool> has_slice(n, false);
  auto deadline = [] { return std::chrono::system_clock::now() + std::chrono::minutes(10); };
  absl::Status prepared = workers.CallAll([&](size_t i) -> absl::Status {
    size_t begin = total * i / n, end = total * (i + 1) / n;
    if (begin == end) return absl::OkStatus();
    has_slice[i] = true;
    core::Block slice = core::SliceRows(full, begin, end - begin);
    std::string raw = core::EncodeBlock(slice);
    pb::InsertRequest request;
    request.set_table(schema.name());
    request.set_insert_id(token);
    request.mutable_block()->set_rows(slice.rows());
    request.mutable_block()->set_raw_size(raw.size());
    request.mutable_block()->set_data(core::CompressLz4(raw));
    pb::InsertResponse response;
    grpc::ClientContext context;
    context.set_deadline(deadline());
    return core::FromGrpcStatus(workers.stub(i)->PrepareInsert(&context, request, &response),
                                workers.address(i));
  });
  if (!prepared.ok()) {
    workers.CallAll([&](size_t i) -> absl::Status {
      if (!has_slice[i]) return absl::OkStatus();
      pb::AbortInsertRequest request;
      request.set_table(schema.name());
      request.set_token(token);
      pb::AbortInsertResponse response;
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
      (void)workers.stub(i)->AbortInsert(&context, request, &response);  // best effort
      return absl::OkStatus();
    });
    return prepared;
  }
  RETURN_IF_ERROR(workers.CallAll([&](size_t i) -> absl::Status {
    if (!has_slice[i]) return absl::OkStatus();
    pb::CommitInsertRequest request;
    request.set_table(schema.name());
    request.set_token(token);
    pb::CommitInsertResponse response;
    grpc::ClientContext context;
    context.set_deadline(deadline());
    return core::FromGrpcStatus(workers.stub(i)->CommitInsert(&context, request, &response),
                                workers.address(i));
  }));
  return total;
}

}  // namespace granite::coordinator
