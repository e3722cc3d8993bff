#include "client/benchmark.h"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "client/benchmark_clients.h"
#include "client/query_runner.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "grpcpp/grpcpp.h"

namespace granite::client {
namespace {

using clickhouse::grpc::QueryInfo;
using Clock = std::chrono::steady_clock;

std::atomic<bool> interrupted{false};

void OnInterrupt(int) { interrupted = true; }

QueryInfo MakeQuery(const BenchmarkOptions& options, const std::string& sql) {
  QueryInfo info;
  info.set_query(sql);
  info.set_user_name(options.user);
  info.set_password(options.password);
  info.set_output_format("TabSeparated");
  return info;
}

// Runs `sql` and returns its TabSeparated rows split into fields.
absl::StatusOr<std::vector<std::vector<std::string>>> FetchRows(
    const std::shared_ptr<grpc::Channel>& channel, const BenchmarkOptions& options,
    const std::string& sql) {
  ExecuteOptions execute;
  execute.timeout = std::chrono::milliseconds(30000);
  absl::StatusOr<QueryResult> result = ExecuteQuery(channel, MakeQuery(options, sql), execute);
  if (!result.ok()) {
    return core::Error(core::ErrorCode::kAllConnectionTriesFailed,
                       absl::StrCat("Cannot reach ", HostPort(options.host, options.port), ": ",
                                    result.status().message()));
  }
  if (result->exception) {
    return core::Error(static_cast<core::ErrorCode>(result->exception->code()),
                       absl::StrCat(sql, ": ", result->exception->display_text()));
  }
  std::vector<std::vector<std::string>> rows;
  for (absl::string_view line : absl::StrSplit(result->output, '\n', absl::SkipEmpty())) {
    rows.push_back(absl::StrSplit(line, '\t'));
  }
  return rows;
}

// What the servers had counted at one moment: CPU per process and lock totals per (lock, process).
struct ServerCounters {
  std::map<std::string, double> cpu_seconds;
  std::map<std::pair<std::string, std::string>, LockWaitDelta> locks;
};

absl::StatusOr<ServerCounters> ReadServerCounters(const std::shared_ptr<grpc::Channel>& channel,
                                                  const BenchmarkOptions& options) {
  ServerCounters counters;
  std::vector<std::vector<std::string>> rows;
  ASSIGN_OR_RETURN(rows, FetchRows(channel, options,
                                   "SELECT worker, value FROM system.metrics "
                                   "WHERE metric = 'ProcessCpuMicroseconds'"));
  for (const auto& row : rows) {
    double micros = 0;
    if (row.size() == 2 && absl::SimpleAtod(row[1], &micros)) {
      counters.cpu_seconds[row[0]] = micros / 1e6;
    }
  }
  ASSIGN_OR_RETURN(rows, FetchRows(channel, options,
                                   "SELECT name, worker, acquisitions, contended, "
                                   "wait_microseconds FROM system.locks"));
  for (const auto& row : rows) {
    if (row.size() != 5) continue;
    LockWaitDelta lock;
    lock.name = row[0];
    double wait_us = 0;
    if (!absl::SimpleAtoi(row[2], &lock.acquisitions) ||
        !absl::SimpleAtoi(row[3], &lock.contended) || !absl::SimpleAtod(row[4], &wait_us)) {
      continue;
    }
    lock.wait_seconds = wait_us / 1e6;
    counters.locks[{row[0], row[1]}] = lock;
  }
  return counters;
}

// Fills the report's server section with the difference of two readings.
void AddServerDelta(const ServerCounters& before, const ServerCounters& after,
                    BenchmarkReport* report) {
  report->has_server_report = true;
  report->cores = std::max(1u, std::thread::hardware_concurrency());
  for (const auto& [process, seconds] : after.cpu_seconds) {
    auto it = before.cpu_seconds.find(process);
    report->cpu_seconds[process] = seconds - (it == before.cpu_seconds.end() ? 0 : it->second);
  }
  std::map<std::string, LockWaitDelta> by_name;
  for (const auto& [key, lock] : after.locks) {
    LockWaitDelta old;
    auto it = before.locks.find(key);
    if (it != before.locks.end()) old = it->second;
    LockWaitDelta& sum = by_name[lock.name];
    sum.name = lock.name;
    sum.acquisitions += lock.acquisitions - old.acquisitions;
    sum.contended += lock.contended - old.contended;
    sum.wait_seconds += lock.wait_seconds - old.wait_seconds;
  }
  for (auto& [name, lock] : by_name) report->locks.push_back(lock);
  std::sort(report->locks.begin(), report->locks.end(),
            [](const LockWaitDelta& a, const LockWaitDelta& b) {
              return a.wait_seconds != b.wait_seconds ? a.wait_seconds > b.wait_seconds
                                                      : a.name < b.name;
            });
}

double Percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  size_t at = std::min(sorted.size() - 1, static_cast<size_t>(q * sorted.size()));
  return sorted[at];
}

}  // namespace

std::vector<std::string> ReadQueries(std::istream& in) {
  std::vector<std::string> queries;
  for (std::string line; std::getline(in, line);) {
    absl::string_view text = absl::StripAsciiWhitespace(line);
    if (text.empty() || absl::StartsWith(text, "--")) continue;
    queries.emplace_back(text);
  }
  return queries;
}

absl::StatusOr<BenchmarkReport> RunBenchmarkLoad(const BenchmarkOptions& options) {
  if (options.queries.empty()) {
    return core::Error(core::ErrorCode::kBadArguments,
                       "No queries to run: pass --query, --queries_file, or queries on stdin");
  }
  if (options.concurrency < 1) {
    return core::Error(core::ErrorCode::kBadArguments,
                       absl::StrCat("--concurrency must be at least 1, not ", options.concurrency));
  }
  std::shared_ptr<grpc::Channel> control = NewBenchmarkConnection(options.host, options.port, -1);
  ServerCounters before;
  if (options.server_report) {
    ASSIGN_OR_RETURN(before, ReadServerCounters(control, options));
  } else {
    RETURN_IF_ERROR(FetchRows(control, options, "SELECT 1").status());
  }

  BenchmarkClientsOptions clients;
  clients.host = options.host;
  clients.port = options.port;
  clients.user = options.user;
  clients.password = options.password;
  clients.concurrency = options.concurrency;
  clients.threads = options.client_threads > 0
                        ? options.client_threads
                        : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  clients.queries = options.queries;
  clients.iterations = options.iterations;
  clients.stop = &interrupted;
  auto start = Clock::now();
  if (options.timelimit_seconds > 0) {
    clients.deadline = start + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(options.timelimit_seconds));
  }
  std::vector<ClientResult> results = RunBenchmarkClients(clients);

  BenchmarkReport report;
  report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<double> latencies;
  for (ClientResult& result : results) {
    latencies.insert(latencies.end(), result.latencies_ms.begin(), result.latencies_ms.end());
    report.errors += result.errors;
    report.rows_read += result.rows_read;
    if (report.first_error.empty()) report.first_error = result.first_error;
  }
  std::sort(latencies.begin(), latencies.end());
  report.queries = latencies.size();
  report.qps = report.seconds > 0 ? report.queries / report.seconds : 0;
  for (double ms : latencies) report.total_query_seconds += ms / 1000;
  report.mean_ms = latencies.empty() ? 0 : report.total_query_seconds * 1000 / latencies.size();
  report.p50_ms = Percentile(latencies, 0.50);
  report.p90_ms = Percentile(latencies, 0.90);
  report.p99_ms = Percentile(latencies, 0.99);
  report.max_ms = latencies.empty() ? 0 : latencies.back();

  if (options.server_report) {
    absl::StatusOr<ServerCounters> after = ReadServerCounters(control, options);
    if (after.ok()) AddServerDelta(before, *after, &report);
  }
  return report;
}

void PrintBenchmarkReport(const BenchmarkOptions& options, const BenchmarkReport& report,
                          std::ostream& out) {
  double total_wait = 0;
  for (const LockWaitDelta& lock : report.locks) total_wait += lock.wait_seconds;
  double query_seconds = std::max(report.total_query_seconds, 1e-9);
  if (options.json) {
    std::string cpu;
    for (const auto& [process, seconds] : report.cpu_seconds) {
      absl::StrAppend(&cpu, cpu.empty() ? "" : ",", "\"", process, "\":", seconds);
    }
    std::string locks;
    for (const LockWaitDelta& lock : report.locks) {
      absl::StrAppendFormat(&locks,
                            "%s{\"name\":\"%s\",\"acquisitions\":%d,\"contended\":%d,"
                            "\"wait_seconds\":%.6f,\"share_of_query_time\":%.6f}",
                            locks.empty() ? "" : ",", lock.name, lock.acquisitions,
                            lock.contended, lock.wait_seconds, lock.wait_seconds / query_seconds);
    }
    out << absl::StrFormat(
        "{\"concurrency\":%d,\"queries\":%d,\"errors\":%d,\"seconds\":%.3f,\"qps\":%.1f,"
        "\"p50_ms\":%.3f,\"p90_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f,\"mean_ms\":%.3f,"
        "\"rows_read\":%d,\"cores\":%d,\"cpu_seconds\":{%s},\"lock_wait_seconds\":%.6f,"
        "\"lock_wait_share\":%.6f,\"locks\":[%s]}\n",
        options.concurrency, report.queries, report.errors, report.seconds, report.qps,
        report.p50_ms, report.p90_ms, report.p99_ms, report.max_ms, report.mean_ms,
        report.rows_read, report.cores, cpu, total_wait, total_wait / query_seconds, locks);
    return;
  }
  out << absl::StrFormat("%s, concurrency %d: %d queries in %.2f s, %d errors\n",
                         HostPort(options.host, options.port), options.concurrency,
                         report.queries, report.seconds, report.errors);
  out << absl::StrFormat("QPS: %.1f, rows read/s: %.0f\n", report.qps,
                         report.seconds > 0 ? report.rows_read / report.seconds : 0);
  out << absl::StrFormat("latency ms: p50 %.3f  p90 %.3f  p99 %.3f  max %.3f  mean %.3f\n",
                         report.p50_ms, report.p90_ms, report.p99_ms, report.max_ms,
                         report.mean_ms);
  if (!report.first_error.empty()) out << "first error: " << report.first_error << "\n";
  if (!report.has_server_report) return;
  double cpu_total = 0;
  std::string cpu;
  for (const auto& [process, seconds] : report.cpu_seconds) {
    cpu_total += seconds;
    std::string name = process == "coordinator" ? process : "worker " + process;
    absl::StrAppendFormat(&cpu, "  %s %.2f s", name, seconds);
  }
  out << absl::StrFormat("server CPU: %.2f s = %.0f%% of %d cores;%s\n", cpu_total,
                         100 * cpu_total / std::max(1e-9, report.seconds * report.cores),
                         report.cores, cpu);
  out << absl::StrFormat("lock wait: %.4f s = %.3f%% of query time\n", total_wait,
                         100 * total_wait / query_seconds);
  for (const LockWaitDelta& lock : report.locks) {
    if (lock.acquisitions == 0) continue;
    out << absl::StrFormat("  %-24s acquisitions %10d  contended %8d  wait %.4f s (%.3f%%)\n",
                           lock.name, lock.acquisitions, lock.contended, lock.wait_seconds,
                           100 * lock.wait_seconds / query_seconds);
  }
}

int RunBenchmark(const BenchmarkOptions& options) {
  struct sigaction action {};
  action.sa_handler = OnInterrupt;
  sigaction(SIGINT, &action, nullptr);
  absl::StatusOr<BenchmarkReport> report = RunBenchmarkLoad(options);
  if (!report.ok()) {
    std::cerr << "granite benchmark: " << report.status().message() << "\n";
    return 1;
  }
  PrintBenchmarkReport(options, *report, std::cout);
  return report->errors > 0 ? 1 : 0;
}

}  // namespace granite::client
