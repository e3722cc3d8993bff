// The command line of `granite gen` (RunGenerator, declared in tools/hits_generator.h).
#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>

#include "tools/hits_generator.h"

namespace granite::tools {
namespace {

constexpr char kUsage[] =
    "usage: granite gen hits [--rows N] [--seed S] [--format TabSeparated|CSV]\n"
    "  Writes a synthetic ClickBench `hits` table (105 columns) to stdout.\n"
    "  N accepts a k/M/G suffix (1M = 1000000); default 1M rows, seed 1, TabSeparated.\n";

// Parses "123", "10k", "1M", "2G" into *out; false on anything else.
bool ParseCount(std::string_view text, uint64_t* out) {
  if (text.empty()) return false;
  uint64_t multiplier = 1;
  char last = text.back();
  if (last == 'k' || last == 'K') multiplier = 1000;
  if (last == 'm' || last == 'M') multiplier = 1000000;
  if (last == 'g' || last == 'G') multiplier = 1000000000;
  if (multiplier != 1) text.remove_suffix(1);
  if (text.empty() || text.size() > 18) return false;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = value * multiplier;
  return true;
}

int UsageError(const std::string& message) {
  std::fprintf(stderr, "granite gen: %s\n%s", message.c_str(), kUsage);
  return 2;
}

}  // namespace

int RunGenerator(int argc, char** argv) {
  if (argc < 1 || std::string_view(argv[0]) == "--help" || std::string_view(argv[0]) == "-h") {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::string_view table = argv[0];
  if (table != "hits") return UsageError("unknown table \"" + std::string(table) + "\" (known: hits)");
  GeneratorOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string_view name = arg, value;
    size_t eq = arg.find('=');
    if (eq != std::string_view::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return UsageError("missing value for " + std::string(arg));
    }
    if (name == "--rows") {
      if (!ParseCount(value, &options.rows)) {
        return UsageError("cannot parse \"" + std::string(value) + "\" as a row count");
      }
    } else if (name == "--seed") {
      if (!ParseCount(value, &options.seed)) {
        return UsageError("cannot parse \"" + std::string(value) + "\" as a seed");
      }
    } else if (name == "--format") {
      if (value == "TabSeparated" || value == "TSV") {
        options.format = TextFormat::kTabSeparated;
      } else if (value == "CSV") {
        options.format = TextFormat::kCsv;
      } else {
        return UsageError("unknown format \"" + std::string(value) + "\" (TabSeparated, TSV, CSV)");
      }
    } else {
      return UsageError("unknown option " + std::string(name));
    }
  }
  std::ios::sync_with_stdio(false);
  absl::Status status = GenerateHits(options, std::cout);
  if (!status.ok()) {
    std::fprintf(stderr, "granite gen: %s\n", std::string(status.message()).c_str());
    return 1;
  }
  return 0;
}

}  // namespace granite::tools
