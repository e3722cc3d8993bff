#include "coordinator/exec/ddl_executor.h"

#include <algorithm>

#include <map>
#include <optional>
#include <set>

#include "core/codec_spec.h"
#include "core/error.h"
#include "core/mutex.h"
#include "core/settings/settings.h"
#include "core/status_macros.h"
#include "core/types.h"
#include "coordinator/cluster/sharding_key.h"
#include "coordinator/cluster/table_name.h"
#include "coordinator/cluster/worker_client.h"
#include "coordinator/exec/column_defaults.h"
#include "coordinator/sql/parser.h"

namespace granite::coordinator {

using core::ErrorCode;
using core::worker_api::CreateTableRequest;

namespace {

constexpr auto kDdlTimeout = std::chrono::seconds(60);

// Table settings ALTER TABLE ... MODIFY / RESET SETTING changes in place.
bool IsInPlaceTableSetting(const std::string& name) {
  return name == "min_bytes_for_wide_part" || name == "min_rows_for_wide_part";
}

// Arrays have no bounds, partition ids or key hashes in granite yet: a key over an Array column
// is refused (ClickHouse allows it).
absl::Status RefuseArrayKeyColumn(const core::TableSchema& schema, int index,
                                  std::string_view key) {
  if (index < 0 || !core::IsArray(schema.columns[index].type)) return absl::OkStatus();
  return core::Error(ErrorCode::kNotImplemented,
                     "An Array column in the " + std::string(key) + " key is not supported yet: " +
                         schema.columns[index].name + " of type " +
                         std::string(core::TypeName(schema.columns[index].type)));
}

// Refuses what a Tuple or Map column cannot have yet: NULL / NOT NULL, a codec, a default.
absl::Status CheckCompoundDefinition(const sql::ColumnDef& column,
                                     const core::CompoundLayout& layout) {
  std::string what;
  if (column.nullable || column.not_null) what = "NULL or NOT NULL";
  if (!column.codec.empty()) what = "a CODEC";
  if (!column.default_kind.empty()) what = column.default_kind;
  if (what.empty()) return absl::OkStatus();
  return core::Error(ErrorCode::kNotImplemented,
                     "A " + layout.type_name + " column with " + what +
                         " is not supported yet (column " + column.name + ")");
}

// Returns the columns of `schema` with each compound column's placeholder replaced by its
// subcolumns (core/compound_column.h); `seen` holds the names declared so far. The names of
// Nested columns (which keep no compound column) are appended to `nested`.
absl::StatusOr<std::vector<core::ColumnSchema>> WithSubcolumns(const core::TableSchema& schema,
                                                              std::set<std::string>* seen,
                                                              std::vector<std::string>* nested) {
  std::vector<core::ColumnSchema> columns;
  size_t next = 0;
  for (const core::ColumnSchema& column : schema.columns) {
    if (next >= schema.compound_columns.size() ||
        column.name != schema.compound_columns[next].name) {
      columns.push_back(column);
      continue;
    }
    ASSIGN_OR_RETURN(std::optional<core::CompoundLayout> layout,
                     core::ParseCompoundType(schema.compound_columns[next++].type));
    if (layout->nested) nested->push_back(column.name);
    for (size_t i = 0; i < layout->suffixes.size(); ++i) {
      core::ColumnSchema sub{core::SubcolumnName(column.name, layout->suffixes[i]),
                             layout->types[i]};
      if (!seen->insert(sub.name).second) {
        return core::Error(ErrorCode::kDuplicateColumn,
                           "Column " + sub.name + " is declared twice in table " + schema.name +
                               " (a subcolumn of " + column.name + ")");
      }
      sub.comment = column.comment;
      columns.push_back(std::move(sub));
    }
  }
  return columns;
}

absl::StatusOr<core::TableSchema> SchemaFrom(const sql::CreateTableStatement& create,
                                           size_t worker_count) {
  core::TableSchema schema;
  schema.name = create.name;
  std::set<std::string> seen;
  for (const sql::ColumnDef& column : create.columns) {
    if (!seen.insert(column.name).second) {
      return core::Error(ErrorCode::kDuplicateColumn,
                         "Column " + column.name + " is declared twice in table " + create.name);
    }
    ASSIGN_OR_RETURN(std::optional<core::CompoundLayout> compound,
                     core::ParseCompoundType(column.type));
    if (compound) {
      // A placeholder until ResolveColumnDefaults, which pairs definitions and columns by index;
      // a Nested one becomes its array columns there, with no compound column.
      RETURN_IF_ERROR(CheckCompoundDefinition(column, *compound));
      schema.columns.push_back(core::ColumnSchema{column.name, core::TypeId::kUInt8});
      schema.compound_columns.push_back(core::CompoundColumn{column.name, compound->type_name});
      continue;
    }
    // A column declared by its expression only (`c DEFAULT 1`) is typed by
    // ResolveColumnDefaults below.
    std::optional<core::EnumType> enum_type;
    absl::StatusOr<core::TypeId> type =
        column.type.empty() ? core::TypeId::kUInt8 : core::ParseColumnType(column.type, &enum_type);
    if (!type.ok()) {
      // Nullable(Nullable(T)) keeps its own code (ILLEGAL_TYPE_OF_ARGUMENT), an unknown time
      // zone its BAD_ARGUMENTS, and a bad enum definition its own, as in ClickHouse.
      const ErrorCode code = core::CodeOf(type.status());
      const bool kept = code == ErrorCode::kIllegalTypeOfArgument ||
                        code == ErrorCode::kBadArguments || core::MentionsEnum(column.type);
      return core::Error(kept ? code : ErrorCode::kUnknownType,
                         std::string(type.status().message()) + " (column " + column.name +
                             ", at position " + std::to_string(column.position + 1) + ")");
    }
    if (column.nullable) {
      // `x T NULL` is ClickHouse's Nullable(T).
      if (core::IsNullable(*type)) {
        return core::Error(ErrorCode::kIllegalTypeOfArgument,
                           "Column " + column.name + " is declared " +
                               std::string(core::TypeName(*type)) + " NULL: nested Nullable");
      }
      type = core::MakeNullable(*type);
    }
    if (column.not_null && core::IsNullable(*type)) {
      return core::Error(ErrorCode::kIllegalTypeOfArgument,
                         "Column " + column.name + " of type " +
                             std::string(core::TypeName(*type)) + " is declared NOT NULL");
    }
    std::string codec;
    if (!column.codec.empty()) {
      // Stored as ClickHouse prints it (Delta -> Delta(8), ZSTD -> ZSTD(1)).
      absl::StatusOr<core::CodecSpec> spec = core::ParseCodecSpec(column.codec, *type, column.name);
      if (!spec.ok()) return spec.status();
      codec = spec->ToString();
    }
    schema.columns.push_back(core::ColumnSchema{column.name, *type, std::move(codec)});
    schema.columns.back().low_cardinality = core::DeclaresLowCardinality(column.type, *type);
    schema.columns.back().enum_type = std::move(enum_type);
  }
  if (create.columns.empty()) {
    return core::Error(ErrorCode::kEmptyListOfColumnsPassed,
                       "Table " + create.name + " must have at least one column");
  }
  RETURN_IF_ERROR(ResolveColumnDefaults(create.columns, &schema));
  std::vector<std::string> nested;
  ASSIGN_OR_RETURN(schema.columns, WithSubcolumns(schema, &seen, &nested));
  std::erase_if(schema.compound_columns, [&](const core::CompoundColumn& compound) {
    return std::find(nested.begin(), nested.end(), compound.name) != nested.end();
  });
  // Keys are stored as written; storage uses plain column names, and checks them below.
  auto add_keys = [&](const std::vector<sql::ExprPtr>& exprs,
                      std::vector<std::string>* out) -> absl::Status {
    for (const auto& expr : exprs) {
      std::string name = sql::ColumnName(*expr);
      for (const core::CompoundColumn& compound : schema.compound_columns) {
        if (compound.name == name) {
          return core::Error(ErrorCode::kNotImplemented,
                             "A " + compound.type + " column in a key is not supported yet: " +
                                 name + " of table " + create.name);
        }
      }
      if (expr->kind == sql::ExprKind::kIdentifier && !seen.count(expr->name)) {
        return core::Error(ErrorCode::kUnknownIdentifier,
                           "Missing column " + expr->name + " in the key of table " + create.name);
      }
      if (expr->kind == sql::ExprKind::kIdentifier) {
        // ClickHouse's default (allow_nullable_key = 0): part pruning has no NULL bounds.
        const int index = schema.ColumnIndex(expr->name);
        RETURN_IF_ERROR(RefuseArrayKeyColumn(schema, index, "sorting"));
        if (index >= 0 && core::IsNullable(schema.columns[index].type)) {
          return core::Error(ErrorCode::kIllegalColumn,
                             "Sorting key contains nullable columns (" + expr->name +
                                 " of table " + create.name +
                                 "), but merge tree setting `allow_nullable_key` is disabled");
        }
      }
      out->push_back(std::move(name));
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(add_keys(create.order_by, &schema.order_by));
  RETURN_IF_ERROR(add_keys(create.primary_key, &schema.primary_key));
  if (create.partition_by) {
    schema.partition_by = sql::ColumnName(*create.partition_by);
    const int index = schema.ColumnIndex(schema.partition_by);
    RETURN_IF_ERROR(RefuseArrayKeyColumn(schema, index, "partition"));
    if (index >= 0 && core::IsNullable(schema.columns[index].type)) {
      return core::Error(ErrorCode::kIllegalColumn,
                         "Partition key contains nullable columns (" + schema.partition_by +
                             " of table " + create.name +
                             "), but merge tree setting `allow_nullable_key` is disabled");
    }
  }
  schema.engine = create.engine.empty() ? "MergeTree" : create.engine;
  for (const auto& [key, value] : create.settings) {
    RETURN_IF_ERROR(core::TableSettings().Set(key, value));  // UNKNOWN_SETTING, BAD_ARGUMENTS
    if (key == kShardingKeySetting) {
      // Kept in its own fields (with the worker count the routing depends on), not as a setting.
      ASSIGN_OR_RETURN(std::vector<std::string> columns, ParseShardingKey(value, schema));
      for (const std::string& column : columns) {
        RETURN_IF_ERROR(RefuseArrayKeyColumn(schema, schema.ColumnIndex(column), "sharding"));
      }
      schema.sharding_key = std::move(columns);
      schema.shard_count = static_cast<uint32_t>(worker_count);
      continue;
    }
    schema.settings[key] = value;
  }
  return schema;
}

// Every worker's answer to ListTables; `statuses[i]` says whether worker i answered.
struct Listing {
  std::vector<core::worker_api::TableListing> responses;
  std::vector<absl::Status> statuses;
};

Listing ListEverywhere(const WorkerSet& workers) {
  Listing listing;
  listing.responses.resize(workers.size());
  listing.statuses.resize(workers.size());
  workers.CallAll([&](size_t i) {
    auto answer = WorkerClient(workers).ListTables(i, kDdlTimeout);
    listing.statuses[i] = answer.status();
    if (answer.ok()) listing.responses[i] = *std::move(answer);
    return absl::OkStatus();
  }).IgnoreError();
  return listing;
}

// Returns the number of rows of table `name` summed over every worker; fails if a worker does not
// answer (then emptiness cannot be proven).
absl::StatusOr<uint64_t> ClusterRowCount(const std::string& name, const WorkerSet& workers) {
  Listing listing = ListEverywhere(workers);
  // Each shard's rows once: the most any of its replicas holds (a lagging one holds fewer).
  std::vector<uint64_t> shard_rows(workers.shard_count(), 0);
  for (size_t i = 0; i < workers.size(); ++i) {
    RETURN_IF_ERROR(listing.statuses[i]);
    for (const auto& table : listing.responses[i].tables) {
      if (table.schema.name == name) {
        uint64_t& rows = shard_rows[workers.ShardOf(i)];
        rows = std::max<uint64_t>(rows, table.rows);
      }
    }
  }
  uint64_t total = 0;
  for (uint64_t rows : shard_rows) total += rows;
  return total;
}

// Runs CreateTable on worker i.
absl::Status CreateOn(const WorkerSet& workers, size_t i, const CreateTableRequest& request) {
  return WorkerClient(workers).CreateTable(i, request, kDdlTimeout);
}

// Runs DROP TABLE IF EXISTS `name` on worker i.
absl::Status DropOn(const WorkerSet& workers, size_t i, const std::string& name) {
  return WorkerClient(workers).DropTable(i, name, /*if_exists=*/true, kDdlTimeout);
}

// Sends `request` to every worker, then records its schema in the catalog. On failure the workers
// may disagree: the catalog is loaded again by the next query.
absl::Status CreateOnWorkers(const CreateTableRequest& request, const WorkerSet& workers,
                             Catalog* catalog) {
  absl::Status status = workers.CallAll([&](size_t i) {
    return CreateOn(workers, i, request);
  });
  if (!status.ok()) {
    catalog->Invalidate();
    return status;
  }
  catalog->Put(request.schema);
  return absl::OkStatus();
}

std::string WorkerName(const WorkerSet& workers, size_t i) {
  return "worker " + std::to_string(i) + " (" + workers.address(i) + ")";
}

std::string WorkerNames(const WorkerSet& workers, const std::vector<size_t>& indices) {
  std::string out;
  for (size_t i : indices) {
    if (!out.empty()) out += ", ";
    out += WorkerName(workers, i);
  }
  return out;
}

// Fails unless every worker answered: DDL changes every worker or none, so it must first see
// them all. `what` names the statement.
absl::Status RequireAllAnswered(const Listing& listing, const WorkerSet& workers,
                                const std::string& what) {
  for (size_t i = 0; i < workers.size(); ++i) {
    if (listing.statuses[i].ok()) continue;
    return core::Error(core::CodeOf(listing.statuses[i]),
                       "Cannot " + what + ": " + WorkerName(workers, i) +
                           " does not answer, and DDL changes every worker or none, so nothing "
                           "was changed (" + std::string(listing.statuses[i].message()) + ")");
  }
  return absl::OkStatus();
}

// Where one table is, among the workers that answered.
struct Placement {
  std::vector<size_t> holders;  // hold it (usable on that worker)
  std::vector<size_t> broken;   // hold it, broken (storage/store.h)
  std::vector<size_t> missing;  // answered without it
  std::vector<core::TableSchema> schemas;  // of holders, same order
  std::vector<std::string> broken_errors;
  bool Exists() const { return !holders.empty() || !broken.empty(); }
  bool SameSchemas() const {
    for (const auto& schema : schemas) {
      if (schema != schemas[0]) return false;
    }
    return true;
  }
};

std::map<std::string, Placement> PlacementsOf(const Listing& listing) {
  std::map<std::string, Placement> out;
  for (size_t i = 0; i < listing.responses.size(); ++i) {
    if (!listing.statuses[i].ok()) continue;
    for (const auto& table : listing.responses[i].tables) {
      Placement& placement = out[table.schema.name];
      placement.holders.push_back(i);
      placement.schemas.push_back(table.schema);
    }
    for (const auto& table : listing.responses[i].broken_tables) {
      Placement& placement = out[table.name];
      placement.broken.push_back(i);
      placement.broken_errors.push_back(table.error);
    }
  }
  for (auto& [name, placement] : out) {
    for (size_t i = 0; i < listing.responses.size(); ++i) {
      bool here = std::count(placement.holders.begin(), placement.holders.end(), i) +
                  std::count(placement.broken.begin(), placement.broken.end(), i);
      if (listing.statuses[i].ok() && !here) placement.missing.push_back(i);
    }
  }
  return out;
}

// Returns the catalog entry of table `name` placed as `placement`: usable only when every
// answering worker holds it, unbroken, with one schema.
Catalog::Entry EntryOf(const std::string& name, const Placement& placement,
                       const WorkerSet& workers) {
  Catalog::Entry entry;
  if (!placement.schemas.empty()) {
    entry.schema = placement.schemas[0];
  } else {
    entry.schema.name = name;
  }
  const std::string table = "Table " + DisplayTableName(name);
  if (!placement.broken.empty()) {
    entry.unusable = core::Error(
        ErrorCode::kCorruptedData,
        table + " is broken on " + WorkerNames(workers, placement.broken) + ": " +
            placement.broken_errors[0] + " (DROP TABLE " + name +
            " removes it from every worker, CREATE OR REPLACE TABLE re-creates it)");
  } else if (!placement.missing.empty()) {
    entry.unusable = core::Error(
        ErrorCode::kUnknownTable,
        table + " is incomplete: it exists on " + WorkerNames(workers, placement.holders) +
            " but is missing on " + WorkerNames(workers, placement.missing) +
            " (an interrupted CREATE or DROP). CREATE TABLE " + name +
            " with the same columns creates it where it is missing; DROP TABLE " + name +
            " removes it everywhere");
  } else if (!placement.SameSchemas()) {
    entry.unusable = core::Error(
        ErrorCode::kIncorrectData,
        table + " has different schemas on " + WorkerNames(workers, placement.holders) +
            ": DROP TABLE " + name + " and create it again, or CREATE OR REPLACE TABLE " + name);
  }
  return entry;
}

std::vector<Catalog::Entry> EntriesOf(const Listing& listing, const WorkerSet& workers) {
  std::vector<Catalog::Entry> entries;
  for (const auto& [name, placement] : PlacementsOf(listing)) {
    entries.push_back(EntryOf(name, placement, workers));
  }
  return entries;
}

// Creates the table of `request` on the workers `targets`. If any fails, drops it again from
// every target whose create did not fail with TABLE_ALREADY_EXISTS (compensation), and returns
// the first error, saying whether the compensation succeeded.
absl::Status CreateAllOrNothing(const CreateTableRequest& request,
                                const std::vector<size_t>& targets, const WorkerSet& workers,
                                Catalog* catalog) {
  std::vector<absl::Status> results(workers.size());
  workers.CallEach(targets, [&](size_t i) {
    results[i] = CreateOn(workers, i, request);
    return absl::OkStatus();
  }).IgnoreError();
  absl::Status first;
  std::vector<size_t> undo;
  for (size_t i : targets) {
    if (first.ok() && !results[i].ok()) first = results[i];
    if (core::CodeOf(results[i]) != ErrorCode::kTableAlreadyExists) undo.push_back(i);
  }
  if (first.ok()) return absl::OkStatus();
  std::vector<absl::Status> undone(workers.size());
  workers.CallEach(undo, [&](size_t i) {
    undone[i] = DropOn(workers, i, request.schema.name);
    return absl::OkStatus();
  }).IgnoreError();
  std::vector<size_t> left;
  for (size_t i : undo) {
    if (!undone[i].ok()) left.push_back(i);
  }
  std::string outcome = "; the table was created on no worker";
  if (!left.empty()) {
    catalog->Invalidate();
    outcome = "; the table may remain on " + WorkerNames(workers, left) +
              ", where it could not be dropped again (DROP TABLE " + request.schema.name +
              " removes it)";
  }
  return core::Error(core::CodeOf(first), std::string(first.message()) + outcome);
}

}  // namespace

absl::Status AlterTableSettings(const sql::AlterSettingsStatement& alter, const WorkerSet& workers,
                                Catalog* catalog) {
  core::MutexLock ddl(DdlMutex());
  RETURN_IF_ERROR(EnsureCatalog(workers, catalog));
  ASSIGN_OR_RETURN(core::TableSchema schema, catalog->Lookup(alter.table));
  // Settings read when a part is written change in place: the schema's settings, on every
  // worker, parts untouched (the next inserts and merges follow them).
  bool in_place = !alter.reset.empty() || !alter.modify.empty();
  for (const std::string& name : alter.reset) in_place = in_place && IsInPlaceTableSetting(name);
  for (const auto& [name, value] : alter.modify) {
    RETURN_IF_ERROR(core::TableSettings().Set(name, value));
    in_place = in_place && IsInPlaceTableSetting(name);
  }
  if (in_place) {
    core::TableSchema next = schema;
    for (const std::string& name : alter.reset) next.settings.erase(name);
    for (const auto& [name, value] : alter.modify) next.settings[name] = value;
    if (next == schema) return absl::OkStatus();
    core::worker_api::CatalogOpRequest request;
    request.kind = core::worker_api::CatalogOpRequest::Kind::kAlterSchema;
    request.name = next.name;
    request.schema = next;
    absl::Status status = workers.CallAll([&](size_t i) {
      return WorkerClient(workers).CatalogOp(i, request, kDdlTimeout);
    });
    if (!status.ok()) {
      catalog->Invalidate();
      return status;
    }
    catalog->Put(next);
    return absl::OkStatus();
  }
  auto only_sharding_key = [&](const std::string& name) -> absl::Status {
    if (name == kShardingKeySetting) return absl::OkStatus();
    return core::Error(ErrorCode::kNotImplemented,
                       "ALTER TABLE " + DisplayTableName(alter.table) + " cannot change setting " +
                           name + ": only " + kShardingKeySetting +
                           ", min_bytes_for_wide_part and min_rows_for_wide_part can be changed" +
                           " (sharding_key alone in its statement)");
  };
  for (const std::string& name : alter.reset) {
    RETURN_IF_ERROR(only_sharding_key(name));
    schema.sharding_key.clear();
    schema.shard_count = 0;
  }
  for (const auto& [name, value] : alter.modify) {
    RETURN_IF_ERROR(core::TableSettings().Set(name, value));
    RETURN_IF_ERROR(only_sharding_key(name));
    ASSIGN_OR_RETURN(std::vector<std::string> columns, ParseShardingKey(value, schema));
    schema.sharding_key = std::move(columns);
    schema.shard_count = static_cast<uint32_t>(workers.shard_count());
  }
  ASSIGN_OR_RETURN(uint64_t rows, ClusterRowCount(alter.table, workers));
  if (rows > 0) {
    return core::Error(ErrorCode::kBadArguments,
                       "Cannot change sharding_key of table " + DisplayTableName(alter.table) +
                           ": it holds " + std::to_string(rows) +
                           " rows (the key decides which worker each row lives on, so it can be "
                           "changed only while the table is empty)");
  }
  CreateTableRequest request;
  request.schema = schema;
  request.or_replace = true;  // the table is empty: replacing it loses nothing
  return CreateOnWorkers(request, workers, catalog);
}

core::Mutex& DdlMutex() {
  // Two DDL at once could both find a table missing and half-create it.
  static core::Mutex* mu = new core::Mutex("coordinator_ddl");
  return *mu;
}

absl::Status EnsureCatalog(const WorkerSet& workers, Catalog* catalog) {
  if (catalog->loaded()) return absl::OkStatus();
  const uint64_t generation = catalog->generation();
  // The union of every reachable worker's tables: one worker being down must not stop queries
  // that do not need it (system.workers, or tables the others hold a copy of the schema of).
  Listing listing = ListEverywhere(workers);
  size_t answered = 0;
  for (const absl::Status& status : listing.statuses) answered += status.ok();
  if (answered == 0) return listing.statuses[0];
  catalog->Reset(EntriesOf(listing, workers));
  std::set<std::string> databases;
  for (size_t i = 0; i < workers.size(); ++i) {
    if (!listing.statuses[i].ok()) continue;
    databases.insert(listing.responses[i].databases.begin(),
                     listing.responses[i].databases.end());
  }
  catalog->ResetDatabases(databases);
  // A change applied while the workers were listed (a DDL of this or another coordinator) may
  // be missing from the listing: this query uses it as it is, the next one loads again.
  if (catalog->generation() != generation) catalog->Invalidate();
  return absl::OkStatus();
}

absl::Status CreateTable(const sql::CreateTableStatement& create, const WorkerSet& workers,
                         Catalog* catalog) {
  ASSIGN_OR_RETURN(core::TableSchema schema, SchemaFrom(create, workers.shard_count()));
  return CreateTableWithSchema(schema, create.or_replace, create.if_not_exists, workers, catalog);
}

absl::Status CreateTableWithSchema(const core::TableSchema& schema, bool or_replace,
                                   bool if_not_exists, const WorkerSet& workers,
                                   Catalog* catalog) {
  sql::CreateTableStatement create;
  create.name = schema.name;
  create.or_replace = or_replace;
  create.if_not_exists = if_not_exists;
  const std::string table = DisplayTableName(create.name);
  core::MutexLock ddl(DdlMutex());
  Listing listing = ListEverywhere(workers);
  RETURN_IF_ERROR(RequireAllAnswered(listing, workers, "create table " + table));
  catalog->Reset(EntriesOf(listing, workers));  // every worker answered: the catalog is exact
  std::map<std::string, Placement> placements = PlacementsOf(listing);
  const Placement placement = placements[create.name];
  CreateTableRequest request;
  request.schema = schema;
  if (create.or_replace) {
    request.or_replace = true;
    return CreateOnWorkers(request, workers, catalog);
  }
  std::vector<size_t> all(workers.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  if (!placement.Exists()) {
    RETURN_IF_ERROR(CreateAllOrNothing(request, all, workers, catalog));
    catalog->Put(schema);
    return absl::OkStatus();
  }
  if (!placement.broken.empty()) {
    return core::Error(ErrorCode::kTableAlreadyExists,
                       "Table " + table + " already exists but is broken on " +
                           WorkerNames(workers, placement.broken) + ": " +
                           placement.broken_errors[0] + " (DROP TABLE " + create.name +
                           " or CREATE OR REPLACE TABLE " + create.name + ")");
  }
  if (placement.missing.empty() && placement.SameSchemas()) {
    if (create.if_not_exists) return absl::OkStatus();
    return core::Error(ErrorCode::kTableAlreadyExists, "Table " + table + " already exists");
  }
  // Held by some workers only, or with different schemas: finish the table where it is missing
  // if every copy has the schema asked for.
  for (size_t k = 0; k < placement.schemas.size(); ++k) {
    if (placement.schemas[k] == schema) continue;
    return core::Error(
        ErrorCode::kTableAlreadyExists,
        "Table " + table + " already exists on " + WorkerName(workers, placement.holders[k]) +
            " with another schema" +
            (placement.missing.empty()
                 ? std::string()
                 : " and is missing on " + WorkerNames(workers, placement.missing)) +
            ": DROP TABLE " + create.name + " first, or use CREATE OR REPLACE TABLE");
  }
  request.if_not_exists = true;  // a worker that got it meanwhile keeps it
  absl::Status status = workers.CallEach(placement.missing, [&](size_t i) {
    return CreateOn(workers, i, request);
  });
  if (!status.ok()) {
    catalog->Invalidate();
    return core::Error(core::CodeOf(status),
                       "Cannot complete table " + table + ", which is missing on " +
                           WorkerNames(workers, placement.missing) + ": " +
                           std::string(status.message()));
  }
  catalog->Put(schema);
  return absl::OkStatus();
}

absl::Status DropTable(const sql::DropTableStatement& drop, const WorkerSet& workers,
                       Catalog* catalog) {
  const std::string table = DisplayTableName(drop.name);
  core::MutexLock ddl(DdlMutex());
  Listing listing = ListEverywhere(workers);
  RETURN_IF_ERROR(RequireAllAnswered(listing, workers, "drop table " + table));
  catalog->Reset(EntriesOf(listing, workers));
  std::map<std::string, Placement> placements = PlacementsOf(listing);
  const Placement placement = placements[drop.name];
  if (!placement.Exists()) {
    if (drop.if_exists) return absl::OkStatus();
    return core::Error(ErrorCode::kUnknownTable, "Table " + table + " does not exist");
  }
  // Every worker that has it, usable or broken; the others have nothing to drop.
  std::vector<size_t> targets = placement.holders;
  targets.insert(targets.end(), placement.broken.begin(), placement.broken.end());
  absl::Status status = workers.CallEach(targets, [&](size_t i) {
    return DropOn(workers, i, drop.name);
  });
  if (!status.ok()) {
    catalog->Invalidate();
    return core::Error(core::CodeOf(status),
                       std::string(status.message()) + " (DROP TABLE " + drop.name +
                           " again removes it from the workers that still have it)");
  }
  catalog->Remove(drop.name);
  return absl::OkStatus();
}

}  // namespace granite::coordinator
