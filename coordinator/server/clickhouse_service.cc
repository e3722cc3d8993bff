#include "coordinator/server/clickhouse_service.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <random>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/server/exception_text.h"
#include "coordinator/access/access_control.h"
#include "coordinator/access/current_user.h"
#include "coordinator/access/grant_store.h"
#include "coordinator/access/query_guard.h"
#include "coordinator/access/quota_book.h"
#include "coordinator/access/statement_access.h"
#include "coordinator/formats/output_format.h"
#include "coordinator/exec/query_parameters.h"
#include "coordinator/server/request_input.h"
#include "coordinator/server/query_scheduler.h"
#include "coordinator/server/query_stream_reactor.h"
#include "coordinator/server/result_writer.h"
#include "coordinator/server/stream_compression.h"
#include "coordinator/sql/parser.h"
#include "coordinator/server/utf8_check.h"
#include "core/cancellation_poller.h"
#include "core/error.h"
#include "core/memory/memory_tracker.h"
#include "core/memory/transport_memory_scope.h"
#include "core/process.h"
#include "core/metrics/events.h"
#include "core/metrics/histogram.h"
#include "core/thread_priority.h"

namespace granite::coordinator {

namespace ch = clickhouse::grpc;

namespace {

// Returns a random version 4 UUID. The generator is per thread: no shared state per query.
std::string NewQueryId() {
  thread_local std::mt19937_64 random(std::random_device{}());
  uint64_t high = random();
  uint64_t low = random();
  return absl::StrFormat("%08x-%04x-4%03x-%04x-%012x", high >> 32, (high >> 16) & 0xffff,
                         high & 0xfff, 0x8000 | ((low >> 48) & 0x3fff), low & 0xffffffffffffULL);
}

// Sets Result.exception as ClickHouse does: display_text "Code: N. DB::Exception: ... (NAME)"
// (exception_text.h), always valid UTF-8, never empty.
void SetException(const absl::Status& status, ch::Result* result) {
  core::ErrorCode code = core::CodeOf(status);
  ch::Exception* exception = result->mutable_exception();
  exception->set_code(static_cast<int>(code));
  exception->set_name(std::string(core::ErrorName(code)));
  exception->set_display_text(ExceptionDisplayText(status));
}

// Fails with NOT_IMPLEMENTED for external tables (rather than running the query without them)
// and with BAD_ARGUMENTS for a database name that is not UTF-8.
absl::Status CheckDatabase(const ch::QueryInfo& info) {
  if (info.external_tables_size() > 0) {
    return core::Error(core::ErrorCode::kNotImplemented,
                       absl::StrFormat("External tables are not supported (the request has %d, "
                                       "the first named '%s')",
                                       info.external_tables_size(),
                                       EscapeInvalidUtf8(info.external_tables(0).name())));
  }
  // Its existence is checked when the query runs (the catalog knows the databases).
  if (!FirstInvalidUtf8Byte(info.database())) return absl::OkStatus();
  return core::Error(core::ErrorCode::kUnknownDatabase,
                     absl::StrFormat("Database %s does not exist",
                                     EscapeInvalidUtf8(info.database())));
}

// Fails with BAD_ARGUMENTS naming the first byte of `text` that does not continue valid UTF-8.
// The coordinator's protobuf code takes QueryInfo's text fields as bytes (proto/CMakeLists.txt),
// so such a request reaches the service and is answered with an exception here.
absl::Status CheckUtf8(std::string_view field, std::string_view text) {
  std::optional<size_t> offset = FirstInvalidUtf8Byte(text);
  if (!offset) return absl::OkStatus();
  return core::Error(core::ErrorCode::kBadArguments,
                     absl::StrFormat("The %s is not valid UTF-8: byte 0x%02X at offset %d "
                                     "(0-based, of %d bytes) does not start a valid sequence",
                                     field, static_cast<unsigned char>(text[*offset]), *offset,
                                     text.size()));
}

// Returns the event that counts a finished query of `kind` with this outcome.
core::Event QueryEvent(QueryKind kind, bool ok, bool cancelled) {
  using core::Event;
  static constexpr Event kEvents[4][3] = {
      {Event::kSelectQueriesSucceeded, Event::kSelectQueriesFailed, Event::kSelectQueriesCancelled},
      {Event::kInsertQueriesSucceeded, Event::kInsertQueriesFailed, Event::kInsertQueriesCancelled},
      {Event::kDdlQueriesSucceeded, Event::kDdlQueriesFailed, Event::kDdlQueriesCancelled},
      {Event::kOtherQueriesSucceeded, Event::kOtherQueriesFailed, Event::kOtherQueriesCancelled},
  };
  return kEvents[static_cast<int>(kind)][ok ? 0 : cancelled ? 2 : 1];
}

// Adds the pruning summary as a server log entry when the client asked for debug logs
// (SETTINGS send_logs_level = 'debug' or 'trace'), as ClickHouse reports it: Stats and Progress
// have no field for parts or marks.
void AddPruningLog(const QueryContext& query, ch::Result* result) {
  const std::string& level = query.settings.send_logs_level;
  if (level != "debug" && level != "trace" && level != "test") return;
  uint64_t parts_total = query.parts_total.load();
  if (parts_total == 0) return;
  auto now = std::chrono::system_clock::now().time_since_epoch();
  uint64_t micros = std::chrono::duration_cast<std::chrono::microseconds>(now).count();
  ch::LogEntry* entry = result->add_logs();
  entry->set_time(static_cast<uint32_t>(micros / 1000000));
  entry->set_time_microseconds(static_cast<uint32_t>(micros % 1000000));
  entry->set_query_id(query.query_id());
  entry->set_level(ch::LOG_DEBUG);
  entry->set_source("MergeTreeDataSelectExecutor");
  entry->set_text(absl::StrFormat(
      "Selected %d/%d parts by partition key and primary key, %d/%d marks by primary key "
      "(summed over the workers)",
      query.parts_selected.load(), parts_total, query.granules_selected.load(),
      query.granules_total.load()));
}

// Returns the chunk limits of an insert: settings input_chunk_rows / input_chunk_bytes (tests
// force small chunks with them).
absl::StatusOr<InsertOptions> InsertOptionsOf(const core::Settings& settings) {
  InsertOptions options;
  if (settings.input_chunk_rows == 0 || settings.input_chunk_bytes == 0) {
    return core::Error(core::ErrorCode::kBadArguments,
                       "Settings input_chunk_rows and input_chunk_bytes must be positive");
  }
  options.chunk.max_rows = settings.input_chunk_rows;
  options.chunk.max_bytes = settings.input_chunk_bytes;
  options.null_as_default = settings.input_format_null_as_default;
  return options;
}

// Returns the settings a request starts from: its user's profile, its session's changes
// (QueryInfo.session_id), then its own QueryInfo.settings — each change allowed by the profile
// (readonly, constraints: access/statement_access.h).
absl::StatusOr<core::Settings> RequestSettings(const ch::QueryInfo& info, const access::User& user,
                                               SessionStore* sessions) {
  core::Settings settings = user.settings;
  if (!info.session_id().empty()) {
    absl::StatusOr<core::Settings> session =
        sessions->Begin(info.session_id(), info.session_check(), info.session_timeout());
    if (!session.ok()) return session.status();
    std::map<std::string, std::string> changes = session->Changes();
    absl::Status allowed = access::CheckSettingChanges(user, changes);
    if (!allowed.ok()) return allowed;
    (void)settings.Apply(changes);
  }
  // param_<name> values are query parameters (query_parameters.h), not settings.
  std::map<std::string, std::string> changes = WithoutQueryParameters(info.settings());
  absl::Status applied = access::CheckSettingChanges(user, changes);
  if (applied.ok()) applied = settings.Apply(changes);
  if (!applied.ok()) return applied;
  return settings;
}

// Reads the input of a streamed query: the input_data of each further QueryInfo while the one
// before said next_query_info. A cancel message ends the input with QUERY_WAS_CANCELLED.
class StreamInput : public InputSource {
 public:
  using Read = std::function<bool(ch::QueryInfo*)>;
  StreamInput(bool more, Read read) : more_(more), read_(std::move(read)) {}

  absl::StatusOr<bool> Next(std::string* piece) override {
    while (more_) {
      if (!read_(&next_)) break;  // the client closed its side: the input ends
      if (next_.cancel()) {
        more_ = false;
        cancelled_ = true;
        return core::Error(core::ErrorCode::kQueryWasCancelled,
                           "The client cancelled the query while it sent the input");
      }
      more_ = next_.next_query_info();
      if (next_.input_data().empty()) continue;
      piece->swap(*next_.mutable_input_data());
      return true;
    }
    more_ = false;
    if (cancelled_) {
      return core::Error(core::ErrorCode::kQueryWasCancelled,
                         "The client cancelled the query while it sent the input");
    }
    return false;
  }

  bool HasMore() const override { return more_; }

  // Reads all remaining input into *out (for queries that take their input at once).
  void ReadAll(std::string* out) {
    std::string piece;
    while (true) {
      absl::StatusOr<bool> got = Next(&piece);
      if (!got.ok() || !*got) return;
      out->append(piece);
    }
  }

  bool cancelled() const { return cancelled_; }

 private:
  bool more_;
  Read read_;
  ch::QueryInfo next_;
  bool cancelled_ = false;
};

// The query's max_memory_usage: its settings, then its statement's SETTINGS clause — a SELECT's,
// or that of an INSERT's SELECT (checked against readonly and the profile's constraints by the
// guard and the executor).
uint64_t MemoryLimitOf(const core::Settings& settings, const sql::Statement& statement) {
  const auto* select = std::get_if<sql::SelectStatement>(&statement);
  if (const auto* insert = std::get_if<sql::InsertStatement>(&statement)) {
    select = insert->select.get();
  }
  if (select == nullptr || select->settings.empty()) return settings.max_memory_usage;
  core::Settings with_clause = settings;
  (void)with_clause.Apply(select->settings);
  return with_clause.max_memory_usage;
}

}  // namespace

void ClickHouseService::Run(const ClientGone& client_gone, const std::string& peer,
                            const ch::QueryInfo& info,
                            const absl::StatusOr<sql::Statement>& parsed, const std::string& input,
                            InputSource* more_input, const Emit& emit,
                            bool extremes_in_output) {
  absl::Status refused;
  std::unique_ptr<QueryContext> query = StartQuery(info, peer, &refused);
  query->extremes_in_output = extremes_in_output;
  int nice = refused.ok() ? PriorityOf(TraitsOf(parsed, info.query().size() + input.size(),
                                                more_input != nullptr && more_input->HasMore()))
                          : 0;
  ch::Result last =
      RunStarted(client_gone, info, parsed, input, more_input, emit, query.get(), refused, nice);
  emit(last);
}

std::unique_ptr<QueryContext> ClickHouseService::StartQuery(const ch::QueryInfo& info,
                                                            const std::string& peer,
                                                            absl::Status* refused) {
  // An id that is not UTF-8 is refused and replaced: the Result echoes the id, and clients
  // parse it as a proto3 string.
  absl::Status id_status = CheckUtf8("query_id", info.query_id());
  auto query = std::make_unique<QueryContext>(
      info.query_id().empty() || !id_status.ok() ? NewQueryId() : info.query_id(), info.query());
  absl::StatusOr<std::shared_ptr<const access::User>> user =
      access::AccessControl::Current()->Authenticate(info.user_name(), info.password(), peer);
  if (user.ok()) query->user = *std::move(user);
  *refused = user.status();
  if (refused->ok()) *refused = CheckUtf8("query", info.query());
  if (refused->ok()) *refused = id_status;
  if (refused->ok()) *refused = registry_->Start(query.get());
  return query;
}

int ClickHouseService::PriorityOf(const StatementTraits& traits) {
  if (traits.lowered) return core::HeavyWorkPriority(executor_->select_nice());
  if (traits.insert) core::MarkSmallWrite();
  return 0;
}

ch::Result ClickHouseService::RunStarted(const ClientGone& client_gone,
                                         const ch::QueryInfo& info,
                                         const absl::StatusOr<sql::Statement>& parsed,
                                         const std::string& input, InputSource* more_input,
                                         const Emit& emit,
                                         QueryContext* query, const absl::Status& admitted,
                                         int nice) {
  Produced produced;
  ch::Result last;
  absl::Status status;
  {
    // A SELECT's coordinator path (parse, bind, admission wait, merge, result encoding and its
    // streamed chunks) runs at the query priority (PriorityOf), not only its execution, and so
    // does a bulk INSERT's (more input to come, or not a short one: an INSERT SELECT, or more
    // than kInlineInsertBytes, statement_kind.h): small INSERTs and DDL keep the normal priority
    // and never wait for that CPU work. The registry and query log, whose locks INSERTs take
    // too, are left at normal priority, so a preempted SCHED_IDLE thread never holds them.
    core::ScopedThreadNice lowered(nice);
    status =
        Serve(client_gone, info, parsed, input, more_input, emit, query, admitted, &produced,
              &last);
  }
  // Logged before the last message goes out, so a client that sees the end of its query finds it
  // in system.query_log.
  Record(query, status, produced);
  return last;
}

absl::Status ClickHouseService::Serve(const ClientGone& client_gone,
                                      const ch::QueryInfo& info,
                                      const absl::StatusOr<sql::Statement>& parsed,
                                      const std::string& input,
                                      InputSource* more_input, const Emit& emit,
                                      QueryContext* query_context, const absl::Status& admitted,
                                      Produced* produced, ch::Result* last) {
  QueryContext& query = *query_context;
  absl::StatusOr<QueryResult> outcome;
  absl::StatusOr<core::Settings> settings =
      admitted.ok() ? RequestSettings(info, *query.user, &sessions_)
                    : absl::StatusOr<core::Settings>(admitted);
  absl::StatusOr<InsertOptions> insert_options =
      settings.ok() ? InsertOptionsOf(*settings) : absl::StatusOr<InsertOptions>(settings.status());
  absl::Status database = CheckDatabase(info);
  // The transport fields: output compression, input delimiter and decompression (checked before
  // anything runs, so an INSERT never writes and then fails on them).
  absl::StatusOr<std::unique_ptr<StreamCompressor>> compressor =
      MakeStreamCompressor(info.output_compression_type(), info.output_compression_level());
  absl::StatusOr<std::unique_ptr<RequestInput>> request_input =
      RequestInput::Make(info, more_input);
  const std::string* query_input = &input;
  std::string transformed_input;
  if (request_input.ok() && !(*request_input)->passthrough()) {
    absl::StatusOr<std::string> first = (*request_input)->First(input);
    if (first.ok()) {
      transformed_input = *std::move(first);
      query_input = &transformed_input;
      if (more_input != nullptr) more_input = request_input->get();
    } else {
      request_input = first.status();
    }
  }
  // The user's limits and rights (access/query_guard.h): checked before the query runs, its
  // time while it runs, its reads and result once it ran.
  std::optional<access::QueryGuard> guard;
  if (settings.ok()) guard.emplace(*query.user, *settings, query.start());
  std::optional<core::MemoryTrackerScope> charged;
  // The output settings in force (the query's, then its statement's SETTINGS clause) and the
  // writer that formats and sends the result; a SELECT streams its rows into it as they come.
  core::Settings output_settings;
  std::optional<ResultWriter> writer;
  const std::string default_format =
      !info.output_format().empty() ? info.output_format() : "TabSeparated";
  absl::Status allowed = guard ? guard->Admit(info.query(), parsed) : absl::OkStatus();
  if (!admitted.ok()) {
    outcome = admitted;
  } else if (!database.ok()) {
    outcome = database;
  } else if (!compressor.ok()) {
    outcome = compressor.status();
  } else if (!request_input.ok()) {
    outcome = request_input.status();
  } else if (!insert_options.ok()) {
    outcome = insert_options.status();
  } else if (!allowed.ok()) {
    outcome = allowed;
  } else if (!parsed.ok()) {
    outcome = parsed.status();  // SYNTAX_ERROR, sent and logged like any other error
  } else {
    // A client that goes away cancels the query (and with it every worker stream), and so does
    // max_execution_time.
    access::QueryGuard* limits = &*guard;
    // So does going over max_memory_usage (or the server's limit) on the coordinator; the
    // query's memory is charged from here to the end of its result.
    core::MemoryTracker* memory = &query.memory();
    memory->set_limit(static_cast<int64_t>(MemoryLimitOf(*settings, *parsed)));
    charged.emplace(memory);
    core::CancellationPoller::Registration watch = core::CancellationPoller::Global().Watch(
        [&client_gone, limits, memory] {
          return client_gone() || limits->TimedOut() || memory->exceeded();
        },
        [&query] { query.Cancel(); });
    query.settings = *std::move(settings);
    // The current database and the query parameters: the session's, then the request's.
    SessionStore::Context session;
    if (!info.session_id().empty()) session = sessions_.ContextOf(info.session_id());
    query.database = !info.database().empty() ? info.database()
                     : !session.database.empty() ? session.database
                                                 : "default";
    query.parameters = std::move(session.parameters);
    query.current_roles = std::move(session.roles);
    for (auto& [name, value] : QueryParametersOf(info.settings())) query.parameters[name] = value;
    std::optional<sql::Statement> bound =
        access::BindCurrentUser(*parsed, info.query(), query.user->name);  // currentUser()
    output_settings = query.settings;
    const auto* select = std::get_if<sql::SelectStatement>(&*parsed);
    if (select != nullptr) (void)output_settings.Apply(select->settings);  // checked later
    writer.emplace(output_settings, default_format, info.send_output_columns(), compressor->get(),
                   &emit, &query, last, query.extremes_in_output);
    if (select != nullptr) query.result_sink = &*writer;
    query.progress_hook = [&writer] { writer->SendProgress(); };
    outcome = executor_->Execute(info.query(), bound ? *bound : *parsed, *query_input, &query,
                                 more_input, *insert_options);
    if (memory->exceeded()) {
      outcome = memory->ExceededStatus();
      core::JemallocPurge();  // the query's pages go back now, not after jemalloc's decay
    }
    query.result_sink = nullptr;
    query.progress_hook = nullptr;
    // The result limits apply as the writer takes the rows (result_writer.h).
    absl::Status limited = guard->Finish(outcome.status(), query.read_rows.load(),
                                         query.read_bytes.load(), nullptr);
    if (!limited.ok()) outcome = limited;
    if (outcome.ok() && outcome->has_rows && !outcome->streamed) {
      absl::Status written = writer->Begin(outcome->names, outcome->types, outcome->format);
      if (written.ok()) written = writer->PushWhole(outcome->block);
      outcome->block = core::Block();
      if (!written.ok()) outcome = written;
    }
    if (outcome.ok() && !info.session_id().empty() && !query.session_changes.empty()) {
      sessions_.Apply(info.session_id(), query.session_changes);
    }
    if (outcome.ok() && !info.session_id().empty() && query.roles_changed) {
      sessions_.ApplyRoles(info.session_id(), query.current_roles);
    }
    if (outcome.ok() && !info.session_id().empty() &&
        (!query.session_database.empty() || !query.session_parameters.empty())) {
      sessions_.ApplyContext(info.session_id(), query.session_database, query.session_parameters);
    }
  }
  ch::Result& result = *last;
  result.set_query_id(query.query_id());
  // The zone of the result's zoneless date-times: session_timezone, else the server's (UTC).
  result.set_time_zone(output_settings.session_timezone.empty() ? "UTC"
                                                                 : output_settings.session_timezone);
  if (!outcome.ok()) {
    if (query.cancelled() && core::CodeOf(outcome.status()) == core::ErrorCode::kQueryWasCancelled) {
      result.set_cancelled(true);
    }
    SetException(outcome.status(), &result);
    return outcome.status();
  }
  produced->written_rows = outcome->written_rows;
  uint64_t rows = 0;
  absl::Status finished =
      outcome->has_rows ? writer->Finish(outcome->totals) : writer->FinishWithoutRows();
  if (!finished.ok()) {
    SetException(finished, &result);
    return finished;
  }
  if (outcome->has_rows) {
    rows = writer->rows();
    produced->result_rows = rows;
  }
  // The progress since the last message (Progress is incremental, as ClickHouse's).
  ch::Progress* progress = result.mutable_progress();
  writer->FillProgress(progress);
  progress->set_written_rows(outcome->written_rows);
  AddPruningLog(query, &result);
  ch::Stats* stats = result.mutable_stats();
  stats->set_rows(rows);
  stats->set_blocks(rows > 0 ? 1 : 0);
  stats->set_applied_limit(false);
  stats->set_rows_before_limit(rows);
  return absl::OkStatus();
}

void ClickHouseService::MarkCancelledByClient(ch::Result* last) {
  last->set_cancelled(true);
  if (last->has_exception() &&
      last->exception().code() == static_cast<int>(core::ErrorCode::kQueryWasCancelled)) {
    last->clear_exception();
  }
}

void ClickHouseService::Record(QueryContext* query, const absl::Status& status,
                               const Produced& produced) {
  auto finished = std::chrono::steady_clock::now();
  uint64_t duration_us =
      std::chrono::duration_cast<std::chrono::microseconds>(finished - query->start()).count();
  bool cancelled = !status.ok() && (query->cancelled() || core::CodeOf(status) ==
                                                              core::ErrorCode::kQueryWasCancelled);
  core::CountEvent(QueryEvent(query->kind(), status.ok(), cancelled));
  core::QueryDurationHistogram().ObserveMicroseconds(duration_us);
  core::CountEvent(core::Event::kReadRows, query->read_rows.load());
  core::CountEvent(core::Event::kReadBytes, query->read_bytes.load());
  core::CountEvent(core::Event::kInsertedRows, produced.written_rows);
  core::CountEvent(core::Event::kMergeMicroseconds, query->merge_ns.load() / 1000);

  QueryLogEntry entry;
  entry.query_id = query->query_id();
  if (query->user != nullptr) entry.user = query->user->name;
  entry.query = query->query();
  entry.kind = query->kind();
  entry.start_time = query->start_time();
  entry.finish_time = std::chrono::system_clock::now();
  entry.duration_us = duration_us;
  entry.read_rows = query->read_rows.load();
  entry.read_bytes = query->read_bytes.load();
  entry.written_rows = produced.written_rows;
  entry.result_rows = produced.result_rows;
  entry.memory_usage = std::max<uint64_t>(query->peak_memory(),
                                          static_cast<uint64_t>(query->memory().peak()));
  entry.worker_elapsed_us = query->WorkerElapsed();
  entry.final_merge_skipped = query->final_merge_skipped.load();
  entry.selected_parts = query->parts_selected.load();
  entry.selected_parts_total = query->parts_total.load();
  entry.selected_marks = query->granules_selected.load();
  entry.selected_marks_total = query->granules_total.load();
  entry.queue_wait_us = query->queue_wait_us.load();
  if (!status.ok()) {
    entry.exception_code = static_cast<int32_t>(core::CodeOf(status));
    entry.exception = std::string(status.message());
    entry.cancelled = cancelled;
  }
  registry_->Finish(query, std::move(entry));
  if (query->user != nullptr) {  // what the query consumed of its user's quotas
    std::vector<access::QuotaSpec> quotas = access::GrantStore::Current().QuotasOf(*query->user);
    if (!quotas.empty()) {
      access::QuotaConsumption used;
      used.error = !status.ok();
      used.result_rows = produced.result_rows;
      used.read_rows = query->read_rows.load();
      used.read_bytes = query->read_bytes.load();
      used.execution_us = duration_us;
      access::QuotaBook::Current().Finish(query->user->name, quotas, used);
    }
  }
}

grpc::Status ClickHouseService::ExecuteQuery(grpc::ServerContext* context, const ch::QueryInfo* info,
                                             ch::Result* result) {
  // One Result holds everything: output chunks are concatenated once at the end (no copy of the
  // output so far per chunk); the first chunk's format and columns, the last one's progress,
  // stats and exception are kept (MergeFrom: later non-empty fields win, repeated ones append).
  std::string output;
  ch::Progress progress;
  Run([context] { return context->IsCancelled(); }, context->peer(), *info, sql::ParseStatement(info->query()),
      info->input_data(), nullptr, [&](ch::Result& part) {
    output += part.output();
    part.clear_output();
    AddProgress(part.progress(), &progress);
    result->MergeFrom(part);
    return true;
  });
  *result->mutable_progress() = progress;
  result->set_output(std::move(output));
  return grpc::Status::OK;
}

// The stream-input methods hand an INSERT the first message's input and then the stream itself,
// which the insert reads chunk by chunk as it parses: the input is never held whole. Any other
// query gets all its input first.
grpc::Status ClickHouseService::ExecuteQueryWithStreamInput(
    grpc::ServerContext* context, grpc::ServerReader<ch::QueryInfo>* reader, ch::Result* result) {
  ch::QueryInfo first;
  if (!reader->Read(&first)) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no query");
  StreamInput stream(first.next_query_info(), [reader](ch::QueryInfo* next) {
    core::ScopedNormalPriority grpc_call;  // a bulk INSERT's reads: core/thread_priority.h
    return reader->Read(next);
  });
  std::string input = std::move(*first.mutable_input_data());
  const absl::StatusOr<sql::Statement> parsed = sql::ParseStatement(first.query());
  const bool streamed = TraitsOf(parsed, 0, false).insert;
  if (!streamed) {
    stream.ReadAll(&input);
    if (stream.cancelled()) {
      result->set_cancelled(true);
      return grpc::Status::OK;
    }
  }
  // As ExecuteQuery: one Result, the output concatenated once, the Progress increments summed.
  std::string output;
  ch::Progress progress;
  Run([context] { return context->IsCancelled(); }, context->peer(), first, parsed, input,
      streamed ? &stream : nullptr, [&](ch::Result& part) {
    output += part.output();
    part.clear_output();
    AddProgress(part.progress(), &progress);
    result->MergeFrom(part);
    return true;
  });
  result->set_output(std::move(output));
  *result->mutable_progress() = progress;
  if (stream.cancelled()) MarkCancelledByClient(result);
  return grpc::Status::OK;
}

grpc::Status ClickHouseService::ExecuteQueryWithStreamOutput(
    grpc::ServerContext* context, const ch::QueryInfo* info,
    grpc::ServerWriter<ch::Result>* writer) {
  Run([context] { return context->IsCancelled(); }, context->peer(), *info, sql::ParseStatement(info->query()),
      info->input_data(), nullptr, [&](ch::Result& part) {
        core::ScopedNormalPriority grpc_call;  // a lowered SELECT's writes: core/thread_priority.h
        core::TransportMemoryScope transport;  // gRPC's slices are not the query's
        return writer->Write(part);
      });
  return grpc::Status::OK;
}

void ClickHouseService::RunQuery(const ch::QueryInfo& info, const std::string& peer,
                                 InputSource* more_input, const ClientGone& client_gone,
                                 const Emit& emit) {
  Run(client_gone, peer, info, sql::ParseStatement(info.query()), info.input_data(), more_input, emit,
      /*extremes_in_output=*/true);
}

grpc::ServerBidiReactor<ch::QueryInfo, ch::Result>* ClickHouseService::ExecuteQueryWithStreamIO(
    grpc::CallbackServerContext* context) {
  return new QueryStreamReactor(this, context);
}

}  // namespace granite::coordinator
