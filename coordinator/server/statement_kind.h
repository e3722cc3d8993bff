// KindOf and StatementTraits: what the coordinator's metrics and scheduling need to know about a
// client statement, read from its parse tree (sql/parser.h) once, where the request arrives, before the query is
// admitted or scheduled (query_scheduler.h, clickhouse_service.h). The same parsed statement is
// then executed (QueryExecutor::Execute), so a statement is parsed once.
//
// Cost of parsing where the request arrives (a gRPC thread, at normal priority): linear in the
// query text, microseconds for ordinary statements. The text is the first QueryInfo's `query`,
// which may be as large as the server's receive limit (1 GiB, coordinator_server.cc). An INSERT
// ... FORMAT with rows inline in the text costs a scan and one copy of them (inline_data), some
// milliseconds per MiB; an INSERT ... VALUES builds a syntax-tree node per value, about ten times
// that: tens of milliseconds per MiB of VALUES text on this gRPC thread, i.e. a minute for a
// text at the 1 GiB limit (before, the parse ran on the executor at the lowered priority; the
// rest of such an INSERT still does). Clients send bulk rows as input_data, which is not parsed
// here; a 64 KiB VALUES text (kInlineInsertBytes) parses in a few milliseconds.
//
// A statement that fails to parse has no traits (all false): it runs on the other executor,
// where QueryExecutor reports the SYNTAX_ERROR as usual (and the query log records it).
#pragma once

#include <cstddef>

#include "absl/status/statusor.h"
#include "coordinator/server/query_context.h"
#include "coordinator/sql/ast.h"

namespace granite::coordinator {

// An INSERT whose text and input together are at most this many bytes, with all its rows at hand,
// is short: it runs at the normal priority and may run inline (QueryScheduler::ScheduleOther).
inline constexpr size_t kInlineInsertBytes = 64 << 10;

struct StatementTraits {
  // A SELECT: its coordinator path runs at the lowered priority (--query_thread_nice).
  bool select = false;
  // A SELECT that reads a table or a table function through the workers (it has FROM, does not
  // read a system.* table and has no queue_max_wait_ms setting): it waits for an admission slot
  // as a queued callback (QueryScheduler::ScheduleSelect). Other SELECTs reach the admission
  // queue, if at all, from QueryExecutor (blocking their executor thread).
  bool admitted_select = false;
  // An INSERT: only an INSERT reads its input while it runs.
  bool insert = false;
  // An INSERT without SELECT whose rows are all at hand (no more input to come) and whose text
  // and input hold at most kInlineInsertBytes.
  bool short_insert = false;
  // Runs at the lowered priority on the coordinator: a SELECT, or an INSERT that is not short.
  bool lowered = false;
};

// Returns the kind of a parsed statement (the `kind` label of granite_queries_total).
QueryKind KindOf(const sql::Statement& statement);

// Returns the traits of `statement`, whose query text and input so far hold `bytes` bytes, with
// `more_input` true if more input follows in later messages.
StatementTraits TraitsOf(const sql::Statement& statement, size_t bytes, bool more_input);
// As above; a statement that failed to parse has no traits.
StatementTraits TraitsOf(const absl::StatusOr<sql::Statement>& parsed, size_t bytes,
                         bool more_input);

}  // namespace granite::coordinator
