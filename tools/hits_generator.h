// `granite gen hits`: writes a synthetic look-alike of ClickBench's `hits` table (105 columns) as
// TabSeparated or CSV text, deterministically from (rows, seed). The data follows the public facts
// in shared/hits-data-profile.md and is scaled so that every one of the 43 benchmark queries
// selects rows from 1M rows on; bench/clickbench/README.md lists every choice.
//
// Data flow: HitsLayout plans counters and pools; for each counter (in CounterID order) the
// generator draws every row's key (day, user, time, watch id), sorts the keys in primary-key
// order, and HitsRowWriter writes the full rows through a buffered FieldWriter.
#pragma once

#include <cstdint>
#include <ostream>

#include "absl/status/status.h"
#include "tools/field_writer.h"

namespace granite::tools {

struct GeneratorOptions {
  uint64_t rows = 1000000;
  uint64_t seed = 1;
  TextFormat format = TextFormat::kTabSeparated;
};

// Writes options.rows rows of `hits` to `out`. The same options always give the same bytes.
// Returns an error when the stream fails (e.g. the reader of a pipe went away).
absl::Status GenerateHits(const GeneratorOptions& options, std::ostream& out);

// Runs `granite gen <table> [--rows N] [--seed S] [--format TabSeparated|TSV|CSV]` writing to
// stdout; argv[0] is the table name ("hits"). Prints usage or errors to stderr; returns the exit
// status (0 ok, 1 write error, 2 usage error).
int RunGenerator(int argc, char** argv);

}  // namespace granite::tools
