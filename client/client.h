// `granite client`: the command-line client of the granite coordinator, which speaks ClickHouse's
// gRPC protocol (so it also talks to ClickHouse). programs/granite.cc parses the flags into
// ClientOptions and calls RunClient(); query_runner.h does the wire work, statement_splitter.h
// cuts scripts into statements.
//
// Modes:
//   - With a query (`query_given` or a non-blank `query`): runs its statements (split on ';') and streams each result to stdout. If stdin
//     is not a terminal, an INSERT gets stdin streamed as its input_data
//     (`granite client -q "INSERT INTO t FORMAT CSV" < rows.csv`).
//   - Without a query, stdin a terminal (or `interactive` set): an interactive loop. Prompt
//     "granite :) ", statements end with ';' and may span lines, results print in PrettyCompact
//     unless a format was given, then "N rows in set. Elapsed: X sec." on stderr; errors print
//     and the loop goes on; EOF, exit or quit ends it. Ctrl+C cancels the running query (the
//     server is sent QueryInfo{cancel: true}) or, at the prompt, drops the statement being typed.
//     On a terminal, lines are edited with libedit and kept in a history file (line_editor.h).
//     A statement ending in \G instead of ';' prints in Vertical format.
//   - Without a query, stdin not a terminal: batch mode, the statements of stdin run in order and
//     the first error stops the run.
//   - With a query and `interactive`: runs the query, then the interactive loop.
//
// Exit status: 0 on success; on a server exception its code modulo 256 (1 if that is 0), after
// printing "Code: 62. DB::Exception: <text>. (SYNTAX_ERROR)" to stderr; 210 (NETWORK_ERROR) if the
// server cannot be reached or the call fails, with a message naming host:port; 138 (394,
// QUERY_WAS_CANCELLED, modulo 256) if a query was cancelled outside the interactive loop. The
// interactive loop itself returns 0 unless the first connection fails.
#pragma once

#include <istream>
#include <map>
#include <ostream>
#include <string>

namespace granite::client {

struct ClientOptions {
  std::string host = "127.0.0.1";
  int port = 9100;
  std::string query;   // Empty and not query_given: interactive or batch mode.
  // True when a query was passed (-q), even an empty one or one of only comments: that runs
  // nothing and exits 0, as ClickHouse's client does, and stdin is never read as a script.
  bool query_given = false;
  std::string format;  // Output format; empty: the server's default (PrettyCompact interactively).
  std::string user = "default";
  std::string password;
  std::string database;  // Empty: the server's default database.
  bool interactive = false;  // Runs the interactive loop even with a query or a piped stdin.
  bool print_time = false;   // --time: prints each query's elapsed seconds to stderr.
  std::map<std::string, std::string> settings;  // Sent with every query.
  // --param_NAME=VALUE: replaces {NAME:Type} in queries (query_parameters.h).
  std::map<std::string, std::string> params;
  // TLS (--secure): the server is verified with `ca_file` (empty: the system's roots); with
  // `cert_file` and `key_file` the client presents its own certificate (mutual TLS).
  bool secure = false;
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
};

// Where the client reads and writes; RunClient(options) uses stdin/stdout/stderr.
struct ClientStreams {
  std::istream* in;
  bool in_is_terminal;
  std::ostream* out;
  std::ostream* err;
  // A terminal: queries running over 0.5 s draw a live progress line there (progress_line.h).
  bool err_is_terminal = false;
};

// Runs the client on the process's standard streams; returns the process exit status.
int RunClient(const ClientOptions& options);

// Runs the client on `streams`; returns the exit status. Installs a SIGINT handler for the
// duration of the interactive loop.
// REQUIRES: the streams outlive the call; no other RunClient runs concurrently in the process.
int RunClient(const ClientOptions& options, const ClientStreams& streams);

}  // namespace granite::client
