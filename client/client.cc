#include "client/client.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "client/interrupt_watcher.h"
#include "client/line_editor.h"
#include "client/query_parameters.h"
#include "client/progress_line.h"
#include "client/query_runner.h"
#include "client/statement_splitter.h"
#include "core/error.h"
#include "core/tls.h"

namespace granite::client {
namespace {

constexpr int kNetworkErrorCode = 210;
constexpr int kQueryWasCancelledCode = 394;
constexpr char kInteractiveFormat[] = "PrettyCompact";
constexpr char kPrompt[] = "granite :) ";
constexpr char kContinuationPrompt[] = "granite :-] ";

// Returns the exit status for a ClickHouse error code: the code modulo 256, never 0.
int ExitStatusFor(int code) {
  int status = ((code % 256) + 256) % 256;
  return status == 0 ? 1 : status;
}

// Formats a server exception the way clickhouse-client does:
// "Code: 62. DB::Exception: Syntax error: ... . (SYNTAX_ERROR)". Text that is already in that
// form (a ClickHouse server's display_text) prints unchanged.
std::string FormatException(const clickhouse::grpc::Exception& exception) {
  std::string text = exception.display_text();
  if (absl::StartsWith(text, "Code: ")) return text;
  while (!text.empty() && (text.back() == '.' || absl::ascii_isspace(text.back()))) {
    text.pop_back();
  }
  std::string name = exception.name();
  if (name.empty()) name = core::ErrorName(static_cast<core::ErrorCode>(exception.code()));
  return absl::StrFormat("Code: %d. DB::Exception: %s. (%s)", exception.code(), text, name);
}

// Removes a trailing \G (vertical output) from `statement`; returns whether there was one.
bool TakeVerticalSuffix(std::string* statement) {
  absl::string_view trimmed = absl::StripTrailingAsciiWhitespace(*statement);
  if (!absl::EndsWith(trimmed, "\\G")) return false;
  statement->resize(trimmed.size() - 2);
  return true;
}

// Returns true for the words that end the interactive loop ("exit", "quit", ...), with or without
// a ';'.
bool IsExitCommand(std::string_view line) {
  std::string word = absl::AsciiStrToLower(absl::StripAsciiWhitespace(
      absl::string_view(line.data(), line.size())));
  while (!word.empty() && (word.back() == ';' || absl::ascii_isspace(word.back()))) word.pop_back();
  return word == "exit" || word == "quit" || word == "logout" || word == "q" || word == "\\q" ||
         word == ":q";
}

// Runs the modes described in client.h over one channel and one session.
// Thread-safety: single-threaded (ExecuteQuery runs its writer thread internally).
class ClientShell {
 public:
  // `credentials`: TLS (--secure), or null for plaintext.
  ClientShell(const ClientOptions& options, const ClientStreams& streams,
              std::shared_ptr<grpc::ChannelCredentials> credentials)
      : options_(options),
        streams_(streams),
        target_(HostPort(options.host, options.port)),
        channel_(MakeChannel(options.host, options.port, std::move(credentials))),
        session_id_(RandomUuid()) {}

  int Run() {
    // A query of only comments is still a query (that runs nothing), not a request to read a
    // script from stdin.
    bool has_query = options_.query_given || !IsBlank(options_.query);
    if (has_query) {
      int status = RunScript(options_.query, /*stdin_is_input=*/!streams_.in_is_terminal);
      if (!options_.interactive) return status;
    }
    if (options_.interactive || streams_.in_is_terminal) return RunInteractive();
    std::string script((std::istreambuf_iterator<char>(*streams_.in)),
                       std::istreambuf_iterator<char>());
    return RunScript(script, /*stdin_is_input=*/false);
  }

 private:
  // Runs the statements of `script` in order, stopping at the first failure. With
  // `stdin_is_input`, INSERT statements get stdin as their input data.
  int RunScript(std::string_view script, bool stdin_is_input) {
    SplitResult split = SplitStatements(script);
    std::vector<std::string> statements = std::move(split.statements);
    if (!IsBlank(split.remainder)) {
      statements.emplace_back(absl::StripAsciiWhitespace(split.remainder));
    }
    for (const std::string& statement : statements) {
      InputReader input;
      if (stdin_is_input && FirstKeyword(statement) == "INSERT") {
        input = StreamInputReader(*streams_.in);
      }
      int status = RunStatement(statement, /*interactive=*/false, std::move(input));
      if (status != 0) return status;
    }
    return 0;
  }

  // Runs one statement, printing its output as it arrives and its errors; returns the exit status
  // it deserves.
  int RunStatement(std::string query, bool interactive, InputReader input) {
    std::ostream& out = *streams_.out;
    std::ostream& err = *streams_.err;
    const bool vertical = TakeVerticalSuffix(&query);
    if (!options_.params.empty()) {
      absl::StatusOr<std::string> substituted = SubstituteParameters(query, options_.params);
      if (!substituted.ok()) {
        err << absl::StrFormat("Code: 36. DB::Exception: %s. (BAD_ARGUMENTS)\n",
                               substituted.status().message());
        return ExitStatusFor(36);
      }
      query = *std::move(substituted);
    }
    bool printed = false;
    auto start = std::chrono::steady_clock::now();
    std::optional<ProgressLine> progress;
    if (streams_.err_is_terminal) progress.emplace(&err, start);
    ExecuteOptions execute;
    if (progress) {
      execute.on_progress = [&progress](const clickhouse::grpc::Progress& increment) {
        progress->Add(increment, std::chrono::steady_clock::now());
      };
    }
    execute.on_output = [&out, &printed, &progress](std::string_view bytes) {
      if (progress) progress->Clear();
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      out.flush();
      printed = true;
    };
    execute.input = std::move(input);
    if (watcher_ != nullptr) {
      watcher_->Reset();
      execute.cancel_requested = [watcher = watcher_] { return watcher->Count() > 0; };
    }
    clickhouse::grpc::QueryInfo info = MakeQueryInfo(query, interactive);
    if (vertical) info.set_output_format("Vertical");
    absl::StatusOr<QueryResult> result = ExecuteQuery(channel_, info, execute);
    if (progress) progress->Clear();
    std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;

    if (!result.ok()) {
      out.flush();
      err << NetworkErrorText(result.status()) << "\n";
      return kNetworkErrorCode;
    }
    if (!result->totals.empty()) out << "\n" << result->totals;
    if (!result->extremes.empty()) out << "\n" << result->extremes;
    out.flush();
    if (result->exception.has_value()) {
      if (interactive) err << "Received exception from server:\n";
      err << FormatException(*result->exception) << "\n";
      if (interactive) err << "\n";
      return ExitStatusFor(result->exception->code());
    }
    if (result->cancelled) {
      err << "Query was cancelled.\n";
      if (interactive) err << "\n";
      return ExitStatusFor(kQueryWasCancelledCode);
    }
    if (options_.print_time && !interactive) {
      err << absl::StrFormat("%.3f\n", elapsed.count());
    }
    if (interactive) {
      if (!printed) out << "Ok.\n" << std::flush;
      uint64_t rows = result->stats.rows();
      err << absl::StrFormat("\n%d %s in set. Elapsed: %.3f sec.\n\n", rows,
                             rows == 1 ? "row" : "rows", elapsed.count());
    }
    return 0;
  }

  // Connects, then reads and runs statements until EOF or an exit command.
  int RunInteractive() {
    InterruptWatcher watcher;
    watcher_ = &watcher;
    int status = Greet();
    if (status == 0) ReadEvalPrintLoop(watcher);
    watcher_ = nullptr;
    return status;
  }

  // Asks the server for its version, as the stock client does on connect; returns non-zero if the
  // server cannot be reached or refuses the user.
  int Greet() {
    std::ostream& out = *streams_.out;
    out << "Connecting to " << target_ << " as user " << options_.user << ".\n" << std::flush;
    clickhouse::grpc::QueryInfo info = MakeQueryInfo("SELECT version()", false);
    info.set_output_format("TabSeparated");
    absl::StatusOr<QueryResult> result = ExecuteQuery(channel_, info);
    if (!result.ok()) {
      *streams_.err << NetworkErrorText(result.status()) << "\n";
      return kNetworkErrorCode;
    }
    if (result->exception.has_value()) {
      int code = result->exception->code();
      if (code == static_cast<int>(core::ErrorCode::kAuthenticationFailed)) {
        *streams_.err << FormatException(*result->exception) << "\n";
        return ExitStatusFor(code);
      }
      out << "Connected to granite server at " << target_ << ".\n\n";
    } else {
      out << "Connected to granite server version "
          << absl::StripAsciiWhitespace(result->output) << ".\n\n";
    }
    out.flush();
    return 0;
  }

  void ReadEvalPrintLoop(InterruptWatcher& watcher) {
    std::ostream& out = *streams_.out;
    std::string buffer;  // The unfinished statement typed so far.
    std::string line;
    // Line editing and history on a real terminal; plain reads otherwise (tests, pipes).
    std::unique_ptr<LineEditor> editor;
    if (streams_.in == &std::cin && streams_.in_is_terminal && isatty(STDIN_FILENO) != 0) {
      editor = std::make_unique<LineEditor>();
    }
    while (true) {
      const char* prompt = buffer.empty() ? kPrompt : kContinuationPrompt;
      if (editor == nullptr) out << prompt << std::flush;
      watcher.Reset();
      watcher.SetRestartSystemCalls(false);  // Lets Ctrl+C end the read at once.
      bool got_line = editor != nullptr ? editor->ReadLine(prompt, &line)
                                        : static_cast<bool>(std::getline(*streams_.in, line));
      watcher.SetRestartSystemCalls(true);
      if (watcher.Count() > 0) {  // Ctrl+C at the prompt drops the statement being typed.
        streams_.in->clear();
        if (streams_.in == &std::cin) clearerr(stdin);
        buffer.clear();
        out << "\n";
        continue;
      }
      if (!got_line) break;
      if (buffer.empty() && IsExitCommand(line)) break;
      buffer += line;
      buffer += '\n';
      SplitResult split = SplitStatements(buffer);
      buffer = IsBlank(split.remainder) ? "" : std::move(split.remainder);
      // A statement may end in \G instead of ';' (vertical output).
      std::string rest(absl::StripAsciiWhitespace(buffer));
      if (absl::EndsWith(rest, "\\G")) {
        split.statements.push_back(std::move(rest));
        buffer.clear();
      }
      for (const std::string& statement : split.statements) {
        if (editor != nullptr) editor->Remember(statement);
        if (IsExitCommand(statement)) return Farewell();
        RunStatement(statement, /*interactive=*/true, nullptr);
      }
    }
    Farewell();
  }

  void Farewell() { *streams_.out << "\nBye.\n" << std::flush; }

  clickhouse::grpc::QueryInfo MakeQueryInfo(const std::string& query, bool interactive) const {
    clickhouse::grpc::QueryInfo info;
    info.set_query(query);
    info.set_query_id(RandomUuid());
    info.set_user_name(options_.user);
    info.set_password(options_.password);
    info.set_database(options_.database);
    info.set_session_id(session_id_);
    info.set_output_format(interactive && options_.format.empty() ? kInteractiveFormat
                                                                  : options_.format);
    for (const auto& [name, value] : options_.settings) (*info.mutable_settings())[name] = value;
    return info;
  }

  std::string NetworkErrorText(const absl::Status& status) const {
    std::string message(status.message());
    if (status.code() == absl::StatusCode::kUnavailable) {
      return absl::StrFormat(
          "Code: 210. DB::NetException: Cannot reach granite server at %s: %s. (NETWORK_ERROR)",
          target_, message);
    }
    return absl::StrFormat(
        "Code: 210. DB::NetException: Query call to granite server at %s failed: %s: %s. "
        "(NETWORK_ERROR)",
        target_, absl::StatusCodeToString(status.code()), message);
  }

  const ClientOptions& options_;
  const ClientStreams& streams_;
  const std::string target_;
  const std::shared_ptr<grpc::Channel> channel_;
  const std::string session_id_;
  InterruptWatcher* watcher_ = nullptr;  // Set while the interactive loop runs.
};

}  // namespace

int RunClient(const ClientOptions& options, const ClientStreams& streams) {
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (options.secure) {
    absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> tls =
        core::ChannelCredentialsFromFiles(options.ca_file, options.cert_file, options.key_file);
    if (!tls.ok()) {
      *streams.err << "granite client: " << tls.status().message() << "\n";
      return 1;
    }
    credentials = *std::move(tls);
  }
  return ClientShell(options, streams, std::move(credentials)).Run();
}

int RunClient(const ClientOptions& options) {
  ClientStreams streams{&std::cin, isatty(STDIN_FILENO) != 0, &std::cout, &std::cerr,
                        isatty(STDERR_FILENO) != 0};
  return RunClient(options, streams);
}

}  // namespace granite::client
