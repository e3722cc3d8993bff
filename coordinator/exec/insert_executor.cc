#include "coordinator/exec/insert_executor.h"

#include <algorithm>
#include <map>
#include <atomic>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include "core/block_sort.h"
#include "core/error.h"
#include "core/expression.h"
#include "core/function_error_codes.h"
#include "core/functions/expr_builder.h"
#include "core/metrics/events.h"
#include "core/status_macros.h"
#include "core/thread_priority.h"
#include "core/value_text.h"
#include "coordinator/formats/input_parser.h"
#include "coordinator/cluster/sharding_key.h"
#include "coordinator/cluster/two_phase_insert.h"
#include "coordinator/cluster/worker_client.h"
#include "coordinator/exec/chunk_queue.h"
#include "coordinator/exec/column_defaults.h"
#include "coordinator/exec/replicated_insert.h"

namespace granite::coordinator {

using core::ErrorCode;

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
using core::TypeId;

namespace {

// The target columns of an insert: names, types and positions in the table.
// An enum column is read as text (`types`: String in its wrappers) and turned into values
// (`values`: Int8 / Int16) by Widen, which checks every name and number (core/enum_type.h).
// A Tuple or Map column is read as text too and parsed into its subcolumns (at positions
// [position, position + its subcolumn count) of the stored schema) by Widen.
struct Target {
  std::vector<std::string> names;
  std::vector<TypeId> types;   // as the input is read and converted
  std::vector<TypeId> values;  // as stored
  std::vector<const core::EnumType*> enums;  // per column: its enum, or null
  std::vector<int> positions;
  std::vector<std::optional<core::CompoundLayout>> compounds;  // per column: its layout, if any
};

// Resolves the insert's columns against `schema` (as declared); positions are in
// schema.Stored(). Without a column list: the columns that are neither MATERIALIZED nor ALIAS.
absl::StatusOr<Target> ResolveTarget(const sql::InsertStatement& insert,
                                     const core::TableSchema& schema) {
  Target target;
  std::vector<int> stored_position(schema.columns.size(), -1);
  int next = 0;
  for (size_t i = 0; i < schema.columns.size(); ++i) {
    if (schema.columns[i].stored()) stored_position[i] = next++;
  }
  auto add = [&](int position) {
    const core::ColumnSchema& column = schema.columns[position];
    target.names.push_back(column.name);
    target.types.push_back(column.enum_type ? core::EnumTextType(column.type) : column.type);
    target.values.push_back(column.type);
    target.enums.push_back(column.enum_type ? &*column.enum_type : nullptr);
    target.positions.push_back(stored_position[position]);
    target.compounds.emplace_back();
  };
  const std::vector<core::DeclaredColumn> declared = core::DeclaredColumns(schema);
  auto add_compound = [&](const core::DeclaredColumn& column) -> absl::Status {
    ASSIGN_OR_RETURN(std::optional<core::CompoundLayout> layout,
                     core::ParseCompoundType(column.column.compound_type));
    target.names.push_back(column.column.name);
    target.types.push_back(TypeId::kString);
    target.values.push_back(TypeId::kString);
    target.enums.push_back(nullptr);
    target.positions.push_back(stored_position[column.first]);
    target.compounds.push_back(std::move(layout));
    return absl::OkStatus();
  };
  // CSV writes a tuple's elements as fields of their own (as ClickHouse reads and writes it):
  // then they are read as the subcolumns they are.
  const bool tuples_as_fields = insert.format == "CSV";
  auto tuple_as_fields = [&](const core::DeclaredColumn& column) {
    if (!tuples_as_fields || column.column.compound_type.empty()) return false;
    absl::StatusOr<std::optional<core::CompoundLayout>> layout =
        core::ParseCompoundType(column.column.compound_type);
    if (!layout.ok() || !*layout || (*layout)->map || (*layout)->array) return false;
    for (size_t k = 0; k < column.count; ++k) add(column.first + k);
    return true;
  };
  if (insert.columns.empty()) {
    for (const core::DeclaredColumn& column : declared) {
      const core::DefaultKind kind = column.column.default_kind;
      if (kind != core::DefaultKind::kNone && kind != core::DefaultKind::kDefault) continue;
      if (tuple_as_fields(column)) continue;
      if (!column.column.compound_type.empty()) {
        RETURN_IF_ERROR(add_compound(column));
      } else {
        add(column.first);
      }
    }
    return target;
  }
  for (const std::string& name : insert.columns) {
    auto compound = std::find_if(declared.begin(), declared.end(), [&](const auto& column) {
      return !column.column.compound_type.empty() && column.column.name == name;
    });
    if (compound != declared.end()) {
      if (!tuple_as_fields(*compound)) RETURN_IF_ERROR(add_compound(*compound));
      continue;
    }
    int found = -1;
    for (size_t i = 0; i < schema.columns.size(); ++i) {
      if (schema.columns[i].name == name) found = i;
    }
    if (found < 0 || !schema.columns[found].stored()) {
      return core::Error(ErrorCode::kNoSuchColumnInTable,
                         "No such column " + name + " in table " + schema.name);
    }
    if (schema.columns[found].default_kind == core::DefaultKind::kMaterialized) {
      return core::Error(ErrorCode::kIllegalColumn, "Cannot insert column " + name +
                                                        ", because it is MATERIALIZED column");
    }
    add(found);
  }
  return target;
}

// Converts `column` to `type` with CAST (used for INSERT ... SELECT and computed VALUES).
// A NULL bound for a column that is not Nullable becomes its default (ClickHouse's
// insert_null_as_default): the value under a NULL already is the default.
absl::StatusOr<core::ColumnPtr> ConvertColumn(core::ColumnPtr column, TypeId type) {
  if (column->logical_type() == type) return column;
  if (core::IsTuple(column->type()) && type == TypeId::kString) {
    // A tuple or map for a Tuple or Map column: its text, which Widen parses into subcolumns.
    auto text = std::make_shared<core::Column>(TypeId::kString);
    core::AppendRowTexts(*column, text.get());
    return core::ColumnPtr(std::move(text));
  }
  if (column->nullable() && !core::IsNullable(type)) {
    auto values = std::make_shared<core::Column>(*column);
    values->DropNullMap();
    column = std::move(values);
    if (column->logical_type() == type) return column;
  }
  if (!column->nullable() && core::IsNullable(type) && column->type() == core::RemoveNullable(type)) {
    auto nullable = std::make_shared<core::Column>(*column);
    nullable->MakeNullable();
    return core::ColumnPtr(std::move(nullable));
  }
  core::plan::Expr cast =
      core::Call("CAST", type,
                 {core::Col(0, column->logical_type()),
                  core::Lit(std::string(core::TypeName(type)), TypeId::kString)});
  ASSIGN_OR_RETURN(auto expr, core::Expression::Compile(cast));
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
  if (column->nullable()) {
    column->AppendNull();
  } else if (column->type() == TypeId::kString) {
    column->AppendString("");
  } else if (core::IsFixedString(column->type())) {
    column->AppendString(std::string(core::FixedStringSizeOf(column->type()), '\0'));
  } else {
    column->Resize(column->size() + 1);
  }
}

// Parses INSERT ... VALUES rows: literals directly, other expressions through a SELECT.
absl::StatusOr<core::Block> ValuesBlock(const sql::InsertStatement& insert, const Target& target,
                                        const SelectRunner& run_select, bool null_as_default) {
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
        // NULL: a Nullable column's NULL; another column's default (input_format_null_as_default)
        if (value.is_null) {
          if (!columns[c]->nullable() && !null_as_default) {
            return core::Error(ErrorCode::kTypeMismatch,
                               "Cannot insert NULL value into a column of type '" +
                                   std::string(core::TypeName(target.types[c])) + "': row " +
                                   std::to_string(r + 1) + ", column " + target.names[c]);
          }
          AppendDefault(columns[c].get());
          continue;
        }
        // A fractional literal goes into a Decimal column from its text, exactly.
        const TypeId value_type = core::RemoveNullable(target.types[c]);
        absl::Status status =
            core::IsDecimal(value_type) && !value.number_text.empty()
                ? core::ParseValueText(value.number_text, value_type, columns[c].get())
                : core::AppendValue(value.value, value_type, columns[c].get());
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

// Checks that the arrays of each Nested column (Array columns `n.a`, `n.b`, ... that are no
// Tuple's or Map's subcolumns) and of each Array(Tuple(...)) column have equal sizes in every row of `block` (the stored columns),
// as ClickHouse does. Errors: SIZES_OF_ARRAYS_DONT_MATCH naming the two columns and the row.
absl::Status CheckNestedSizes(const core::TableSchema& stored, const core::Block& block) {
  std::map<std::string, size_t> first_of_group;  // nested name -> its first array column
  for (size_t c = 0; c < stored.columns.size() && c < block.columns.size(); ++c) {
    const std::string& name = stored.columns[c].name;
    const size_t dot = name.find('.');
    if (dot == std::string::npos || !core::IsArray(stored.columns[c].type)) continue;
    const std::string group = name.substr(0, dot);
    if (const core::CompoundColumn* compound = core::FindCompoundColumn(stored, group)) {
      absl::StatusOr<std::optional<core::CompoundLayout>> layout =
          core::ParseCompoundType(compound->type);
      if (!layout.ok() || !*layout || !(*layout)->array) continue;  // a Tuple's or Map's
    }
    auto [first, inserted] = first_of_group.emplace(group, c);
    if (inserted) continue;
    const core::Column& a = *block.columns[first->second];
    const core::Column& b = *block.columns[c];
    for (size_t row = 0; row < block.rows(); ++row) {
      if (a.ArraySizeAt(row) == b.ArraySizeAt(row)) continue;
      return core::Error(core::kSizesOfArraysDontMatch,
                         "Elements '" + stored.columns[first->second].name + "' and '" + name +
                             "' of Nested data structure '" + group +
                             "' (Array columns) have different array sizes (row " +
                             std::to_string(row + 1) + ")");
    }
  }
  return absl::OkStatus();
}

// Returns the block of every stored column in table order (`stored` is schema.Stored()): the
// inserted ones from `block`, the others their DEFAULT / MATERIALIZED expression's value over the
// row (column_defaults.h), else their type's default.
// `omitted`, when set, lists per target column the rows whose field the input format left out:
// a DEFAULT column gets its expression's value there too (FillOmittedDefaults).
absl::StatusOr<core::Block> Widen(const core::Block& block, const Target& target,
                                  const core::TableSchema& schema,
                                  const core::TableSchema& stored,
                                  const std::vector<std::vector<uint32_t>>* omitted = nullptr) {
  core::Block out;
  out.rows_without_columns = block.rows();
  std::vector<bool> given(stored.columns.size(), false);
  // Tuple and Map columns: their text parsed into the subcolumns, by stored position.
  std::map<int, core::ColumnPtr> subcolumns;
  for (size_t t = 0; t < target.compounds.size(); ++t) {
    if (!target.compounds[t]) continue;
    ASSIGN_OR_RETURN(std::vector<core::ColumnPtr> parsed,
                     core::ParseCompoundColumn(*block.columns[t], *target.compounds[t],
                                               target.names[t]));
    for (size_t k = 0; k < parsed.size(); ++k) {
      subcolumns[target.positions[t] + static_cast<int>(k)] = std::move(parsed[k]);
    }
  }
  for (size_t i = 0; i < stored.columns.size(); ++i) {
    if (auto sub = subcolumns.find(static_cast<int>(i)); sub != subcolumns.end()) {
      out.columns.push_back(sub->second);
      given[i] = true;
      continue;
    }
    int source = -1;
    for (size_t t = 0; t < target.positions.size(); ++t) {
      if (target.positions[t] == static_cast<int>(i)) source = t;
    }
    if (source >= 0) {
      core::ColumnPtr given_column = block.columns[source];
      if (target.enums[source] != nullptr) {
        ASSIGN_OR_RETURN(given_column, core::EnumValuesOf(*given_column, target.values[source],
                                                          *target.enums[source]));
      }
      out.columns.push_back(std::move(given_column));
      given[i] = true;
      continue;
    }
    auto column = std::make_shared<core::Column>(stored.columns[i].type);
    for (size_t r = 0; r < block.rows(); ++r) AppendDefault(column.get());
    const std::optional<core::EnumType>& enum_type = stored.columns[i].enum_type;
    if (enum_type && !column->nullable() && !core::IsArray(column->type())) {
      // An enum's default is its smallest value, as in ClickHouse.
      for (size_t r = 0; r < column->size(); ++r) {
        if (enum_type->wide) {
          column->Data<int16_t>()[r] = enum_type->default_value();
        } else {
          column->Data<int8_t>()[r] = static_cast<int8_t>(enum_type->default_value());
        }
      }
    }
    out.columns.push_back(std::move(column));
  }
  RETURN_IF_ERROR(FillDefaults(schema, given, &out));
  RETURN_IF_ERROR(CheckNestedSizes(stored, out));
  if (omitted != nullptr && !omitted->empty()) {
    std::vector<std::vector<uint32_t>> by_stored(stored.columns.size());
    for (size_t t = 0; t < target.positions.size() && t < omitted->size(); ++t) {
      if (target.positions[t] >= 0) by_stored[target.positions[t]] = (*omitted)[t];
    }
    RETURN_IF_ERROR(FillOmittedDefaults(schema, by_stored, &out));
  }
  return out;
}

// Sends the chunks of one insert to the workers under one token, then commits or aborts them.
// Without a sharding key each chunk is cut into n contiguous even slices, and slice i goes to
// worker (first + i) % n, where `first` moves on by one with every chunk the process sends: a
// stream of small inserts (one row each: only one slice has rows) spreads over all workers
// instead of all landing on the last one. With a key, worker hash(key) % n gets the row.
// Two phases, so that the insert is all-or-nothing across workers: every worker first writes
// its slices durably but invisibly (PrepareInsert, chunk 0, 1, ... of the token); only when all
// chunks succeeded everywhere does each one make them visible (CommitInsert). If anything fails,
// every worker that was sent a chunk is told to abort — also those whose answer never came,
// which refuse the token if their prepare is still running.
// An insert whose rows come in one chunk and all go to one worker needs no second phase: that
// worker's Insert writes and publishes them in one call, atomically on its own (storage/table.h),
// which saves a round trip and a wake-up on both sides — most small INSERTs are such.
// Slices go to a worker on this host uncompressed unless the query set
// network_compression_method (InsertOptions::compression).
class ChunkedInsert : public InsertSink {
 public:
  ChunkedInsert(const core::TableSchema& schema, const WorkerSet& workers,
                std::optional<core::WireCompression> compression)
      : workers_(workers), key_columns_(ShardingKeyColumns(schema)),
        phases_(workers, schema.name, NewInsertToken()) {
    for (size_t i = 0; i < workers.size(); ++i) {
      compression_.push_back(compression ? *compression
                             : OnLoopback(workers.address(i)) ? core::WireCompression::kNone
                                                              : core::WireCompression::kLz4);
    }
  }

  // Splits the rows of `full` (all table columns, in order) into the workers' slices and encodes
  // each. Safe on several threads at once.
  absl::StatusOr<EncodedChunk> Encode(const core::Block& full) const override {
    EncodedChunk chunk;
    chunk.rows = full.rows();
    if (chunk.rows == 0) return chunk;
    const size_t n = workers_.size();
    std::vector<core::Block> slices;
    if (!key_columns_.empty()) {
      slices = SplitByShard(full, key_columns_, n);
    } else {
      static std::atomic<uint64_t> next_first{0};
      slices = SplitEvenly(full, n, next_first.fetch_add(1, std::memory_order_relaxed) % n);
    }
    chunk.slices.resize(n);
    for (size_t i = 0; i < n; ++i) {
      if (slices[i].rows() == 0) continue;
      chunk.slices[i] = EncodeInsertBlock(slices[i], compression_[i]);
      slices[i] = core::Block();  // its columns are not needed once encoded
    }
    return chunk;
  }

  // Prepares the chunk's slices on their workers. `last`: no chunk follows; if it is also the
  // first, one worker's share is inserted at once (see above).
  absl::Status SendEncoded(EncodedChunk chunk, bool last) override {
    if (chunk.rows == 0) return absl::OkStatus();
    std::vector<size_t> receivers;
    for (size_t i = 0; i < chunk.slices.size(); ++i) {
      if (chunk.slices[i].rows > 0) receivers.push_back(i);
    }
    if (last && receivers.size() == 1 && phases_.Touched().empty()) {
      const size_t receiver = receivers[0];
      core::ScopedNormalPriority grpc_call;  // as every gRPC call (core/thread_priority.h)
      core::worker_api::InsertRequest request;
      request.table = table();
      request.block = std::move(chunk.slices[receiver]);
      RETURN_IF_ERROR(WorkerClient(workers_)
                          .Insert(receiver, std::move(request), std::chrono::minutes(10))
                          .status());
      inserted_ = true;
      rows_ += chunk.rows;
      return absl::OkStatus();
    }
    RETURN_IF_ERROR(workers_.CallEach(receivers, [&](size_t i) {
      return phases_.Prepare(i, std::move(chunk.slices[i]));
    }));
    rows_ += chunk.rows;
    return absl::OkStatus();
  }

  // Discards every chunk on every worker that was sent one (best effort).
  void Abort() override { phases_.AbortTouched(); }

  // Makes every chunk visible; returns the rows inserted.
  absl::StatusOr<uint64_t> Commit() override {
    if (inserted_) return rows_;  // visible already
    RETURN_IF_ERROR(workers_.CallEach(phases_.Touched(),
                                      [&](size_t i) { return phases_.Commit(i); }));
    return rows_;
  }

 private:
  const std::string& table() const { return phases_.table(); }

  const WorkerSet& workers_;
  const std::vector<size_t> key_columns_;
  std::vector<core::WireCompression> compression_;  // per worker
  TwoPhaseInsert phases_;
  uint64_t rows_ = 0;
  bool inserted_ = false;  // the one-chunk, one-worker case: written and visible by Insert
};

// One chunk of text input made ready on the parse pool (ChunkQueue) and sent in order.
struct PreparedChunk {
  absl::StatusOr<EncodedChunk> encoded = EncodedChunk();
  bool last = false;  // no chunk follows
  // A chunk cut ahead: the data rows and lines it held, and on a parse error its text (parsed
  // again where it starts in the whole text, so that the error names the right row and line).
  size_t rows = 0;
  size_t lines = 0;
  std::shared_ptr<const std::string> failed_text;
  std::string_view failed_chunk;
  bool final = false;
};

// Feeds the text of an INSERT ... FORMAT to the parser chunk by chunk and sends each chunk.
// Holds the unparsed rest of the text plus about one chunk (limits.max_bytes) of new text, and
// with a parse pool up to options.parse_window chunks being prepared (ChunkQueue): the first
// chunk is parsed here (headers, byte order mark), the later ones of a text format are cut ahead
// (InputParser::CutAhead) and parsed on the pool by copies of the parser.
absl::Status SendText(const sql::InsertStatement& insert, std::string_view input,
                      InputSource* more_input, const Target& target,
                      const core::TableSchema& schema, const InsertOptions& options,
                      InsertSink* session) {
  const InputLimits& limits = options.chunk;
  const core::TableSchema stored = schema.Stored();
  ASSIGN_OR_RETURN(InputParser parser,
                   InputParser::Create(insert.format, target.names, target.types));
  std::vector<bool> verbatim;
  for (const auto& compound : target.compounds) verbatim.push_back(compound.has_value());
  parser.set_verbatim(std::move(verbatim));
  parser.set_null_as_default(options.null_as_default);
  std::string pending = insert.inline_data;
  size_t offset = 0;       // parsed bytes at the front of `pending`
  size_t input_at = 0;     // bytes of `input` moved to `pending`
  bool exhausted = false;  // every piece of text is in `pending`
  std::string piece;
  const size_t slice = std::max<size_t>(limits.max_bytes, 1 << 20);
  auto cancelled = [&]() -> absl::Status {
    if (options.cancelled && options.cancelled()) {
      return core::Error(core::ErrorCode::kQueryWasCancelled,
                         "INSERT into " + schema.name + " was cancelled; nothing was written");
    }
    return absl::OkStatus();
  };
  // Appends the next piece of text to `pending`; sets `exhausted` at the end. A streamed input
  // is polled for KILL QUERY before each piece: a slow client's chunk may take long to fill.
  auto read_more = [&]() -> absl::Status {
    if (offset > 0) {
      pending.erase(0, offset);
      offset = 0;
    }
    if (input_at < input.size()) {
      size_t take = std::min(input.size() - input_at, slice);
      pending.append(input.data() + input_at, take);
      input_at += take;
      return absl::OkStatus();
    }
    if (more_input != nullptr) {
      RETURN_IF_ERROR(cancelled());
      ASSIGN_OR_RETURN(bool got, more_input->Next(&piece));
      if (got) {
        pending.append(piece);
        return absl::OkStatus();
      }
    }
    exhausted = true;
    return absl::OkStatus();
  };

  // Widens `rows` to all table columns and encodes them for sending (on the pool).
  auto prepare = [&target, &schema, &stored, session](
                     const core::Block& rows, const std::vector<std::vector<uint32_t>>& omitted)
      -> absl::StatusOr<EncodedChunk> {
    ASSIGN_OR_RETURN(core::Block full, Widen(rows, target, schema, stored, &omitted));
    return session->Encode(full);
  };
  // Declared after everything its work uses: its destructor waits for work that has started.
  std::optional<ChunkQueue<PreparedChunk>> queue;
  if (options.parse_pool != nullptr) {
    queue.emplace(options.parse_pool, options.parse_window > 0 ? options.parse_window
                                                              : options.parse_pool->size() + 1);
  }
  // Data rows and lines of the chunks cut ahead and sent so far; those parsed here are counted by
  // `parser` itself, which parses nothing once chunks are cut ahead.
  size_t rows_ahead = 0, lines_ahead = 0;
  // Sends the oldest prepared chunk.
  auto send_next = [&]() -> absl::Status {
    PreparedChunk chunk = queue->Pop();
    if (!chunk.encoded.ok()) {
      if (chunk.failed_text != nullptr) {
        InputParser again =
            parser.ChunkParser(parser.rows() + rows_ahead, parser.lines() + lines_ahead);
        absl::StatusOr<core::Block> reparsed = again.ParseCut(chunk.failed_chunk, chunk.final);
        if (!reparsed.ok()) return reparsed.status();
      }
      return chunk.encoded.status();
    }
    rows_ahead += chunk.rows;
    lines_ahead += chunk.lines;
    RETURN_IF_ERROR(cancelled());
    return session->SendEncoded(*std::move(chunk.encoded), chunk.last);
  };
  // Queues the work of one chunk; sends chunks while the queue is full, and all at the end.
  auto enqueue = [&](std::function<PreparedChunk()> work, bool last) -> absl::Status {
    queue->Add(std::move(work));
    while (queue->full() || (last && !queue->empty())) RETURN_IF_ERROR(send_next());
    return absl::OkStatus();
  };

  while (true) {
    while (!exhausted && pending.size() - offset < limits.max_bytes) RETURN_IF_ERROR(read_more());
    if (queue && parser.CanCutAhead()) {
      const std::string_view rest = std::string_view(pending).substr(offset);
      bool final;
      const size_t cut = parser.CutAhead(rest, exhausted, limits, &final);
      if (cut == 0 && !final) {
        if (exhausted) {
          return core::Error(ErrorCode::kLogicalError, "The input parser made no progress");
        }
        RETURN_IF_ERROR(read_more());  // a row longer than the text so far
        continue;
      }
      const bool last = exhausted && cut == rest.size();
      // The chunk's text goes with its work: the smaller of the chunk and the rest is copied.
      std::shared_ptr<const std::string> text;
      std::string_view chunk;
      if (rest.size() - cut < cut) {
        auto whole = std::make_shared<std::string>(std::move(pending));
        if (!exhausted) pending.reserve(whole->capacity());  // it fills up to a chunk again
        pending.assign(*whole, offset + cut, std::string::npos);
        chunk = std::string_view(*whole).substr(offset, cut);
        text = std::move(whole);
      } else {
        auto copy = std::make_shared<std::string>(rest.substr(0, cut));
        chunk = *copy;
        text = std::move(copy);
        pending.erase(0, offset + cut);
      }
      offset = 0;
      InputParser chunk_parser = parser.ChunkParser(0, 0);
      auto work = [chunk_parser, text, chunk, final, last, prepare]() mutable -> PreparedChunk {
        PreparedChunk out;
        out.last = last;
        absl::StatusOr<core::Block> rows = chunk_parser.ParseCut(chunk, final);
        if (!rows.ok()) {
          out.encoded = rows.status();
          out.failed_text = std::move(text);
          out.failed_chunk = chunk;
          out.final = final;
          return out;
        }
        text.reset();  // parsed: the text is not needed any more
        core::CountEvent(core::Event::kParallelParsedInputChunks);
        out.rows = chunk_parser.rows();
        out.lines = chunk_parser.lines();
        out.encoded = prepare(*rows, chunk_parser.omitted());
        return out;
      };
      RETURN_IF_ERROR(enqueue(std::move(work), last));
      if (last) return absl::OkStatus();
      continue;
    }
    size_t consumed;
    ASSIGN_OR_RETURN(core::Block rows,
                     parser.Parse(std::string_view(pending).substr(offset), exhausted, limits,
                                  &consumed));
    offset += consumed;
    bool last = exhausted && offset == pending.size();
    const size_t parsed_rows = rows.rows();
    if (queue) {
      std::vector<std::vector<uint32_t>> omitted = parser.omitted();
      RETURN_IF_ERROR(enqueue(
          [rows = std::move(rows), omitted = std::move(omitted), last, prepare] {
            PreparedChunk out;
            out.last = last;
            if (rows.rows() > 0) out.encoded = prepare(rows, omitted);
            return out;
          },
          last));
    } else {
      RETURN_IF_ERROR(cancelled());
      if (rows.rows() > 0) {
        ASSIGN_OR_RETURN(core::Block full, Widen(rows, target, schema, stored, &parser.omitted()));
        RETURN_IF_ERROR(session->Send(full, last));
      }
    }
    if (last) return absl::OkStatus();
    if (consumed == 0 && !exhausted) {
      RETURN_IF_ERROR(read_more());  // a row longer than the text so far
    } else if (consumed == 0 && parsed_rows == 0) {
      return core::Error(ErrorCode::kLogicalError, "The input parser made no progress");
    }
  }
}

// Takes an INSERT ... SELECT's rows as the SELECT produces them: converts them to the target
// columns, gathers them into chunks of about `limits` rows (or bytes) and sends each chunk.
class InsertSelectSink : public ResultSink {
 public:
  InsertSelectSink(const Target& target, const core::TableSchema& schema,
                   const core::TableSchema& stored, const InputLimits& limits,
                   InsertSink* session)
      : target_(target), schema_(schema), stored_(stored), limits_(limits), session_(session) {}

  absl::Status Begin(const std::vector<std::string>& names, const std::vector<core::TypeId>&,
                     const std::string&) override {
    if (names.size() != target_.types.size()) {
      return core::Error(ErrorCode::kNumberOfColumnsDoesntMatch,
                         "Number of columns doesn't match: the query gives " +
                             std::to_string(names.size()) + ", the insert expects " +
                             std::to_string(target_.types.size()));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<bool> Push(const core::Block& block) override {
    if (block.rows() == 0) return true;
    ASSIGN_OR_RETURN(core::Block converted, ConvertBlock(block, target_));
    for (const auto& column : converted.columns) pending_bytes_ += column->ByteSize();
    pending_rows_ += converted.rows();
    pending_.push_back(std::move(converted));
    if (pending_rows_ >= limits_.max_rows || pending_bytes_ >= limits_.max_bytes) {
      RETURN_IF_ERROR(Flush(/*last=*/false));
    }
    return true;
  }

  // Sends what is gathered; `last`: nothing follows.
  absl::Status Flush(bool last) {
    if (pending_.empty()) return absl::OkStatus();
    core::Block rows = pending_.size() == 1 ? std::move(pending_[0]) : core::ConcatBlocks(pending_);
    pending_.clear();
    pending_rows_ = pending_bytes_ = 0;
    ASSIGN_OR_RETURN(core::Block full, Widen(rows, target_, schema_, stored_));
    return session_->Send(full, last);
  }

 private:
  const Target& target_;
  const core::TableSchema& schema_;
  const core::TableSchema& stored_;
  const InputLimits limits_;
  InsertSink* const session_;
  std::vector<core::Block> pending_;
  size_t pending_rows_ = 0;
  size_t pending_bytes_ = 0;
};

}  // namespace

absl::StatusOr<uint64_t> ExecuteInsert(const sql::InsertStatement& insert, std::string_view input,
                                       InputSource* more_input, const core::TableSchema& schema,
                                       const WorkerSet& workers, const SelectRunner& run_select,
                                       const InsertOptions& options) {
  ASSIGN_OR_RETURN(Target target, ResolveTarget(insert, schema));
  if (schema.sharding_key.size() > 0 && schema.shard_count != 0 &&
      schema.shard_count != workers.shard_count()) {
    // Routing modulo another worker count would scatter equal keys over workers and silently
    // break the final-merge rule (shard_local_aggregation.h) for the rows already there.
    return core::Error(core::ErrorCode::kBadArguments,
                       "Table " + schema.name + " is sharded by its sharding_key over " +
                           std::to_string(schema.shard_count) + " workers, but the cluster has " +
                           std::to_string(workers.shard_count()) +
                           "; INSERT ... SELECT its rows into a table created on this cluster");
  }
  // Workers' parts hold the stored columns only (not ALIAS ones), so rows travel as those.
  const core::TableSchema stored = schema.Stored();
  std::unique_ptr<InsertSink> sink;
  if (workers.replica_count() > 1) {
    ASSIGN_OR_RETURN(sink, MakeReplicatedInsert(stored, workers, options.replication));
  } else {
    sink = std::make_unique<ChunkedInsert>(stored, workers, options.compression);
  }
  InsertSink& session = *sink;
  absl::Status sent;
  if (insert.select && options.stream_select) {
    // Chunks of at most 16 MB of columns: each is held about four times while it is sent
    // (gathered, concatenated, split by shard, encoded).
    InputLimits limits = options.chunk;
    limits.max_bytes = std::min<size_t>(limits.max_bytes, 16 << 20);
    InsertSelectSink select_sink(target, schema, stored, limits, &session);
    sent = options.stream_select(*insert.select, &select_sink);
    if (sent.ok()) sent = select_sink.Flush(/*last=*/true);
  } else if (insert.select || insert.format == "Values" || !insert.values.empty()) {
    absl::StatusOr<core::Block> rows;
    if (insert.select) {
      ASSIGN_OR_RETURN(core::Block selected, run_select(*insert.select));
      rows = ConvertBlock(selected, target);
    } else {
      rows = ValuesBlock(insert, target, run_select, options.null_as_default);
    }
    if (!rows.ok()) return rows.status();
    absl::StatusOr<core::Block> full = Widen(*rows, target, schema, stored);
    sent = full.ok() ? session.Send(*full, /*last=*/true) : full.status();
  } else {
    sent = SendText(insert, input, more_input, target, schema, options, &session);
  }
  if (!sent.ok()) {
    session.Abort();
    return sent;
  }
  return session.Commit();
}

}  // namespace granite::coordinator
