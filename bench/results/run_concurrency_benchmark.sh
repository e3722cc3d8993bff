#!/usr/bin/env bash
# Runs `granite benchmark` with 1, 8, 64 and 256 concurrent clients of short queries
# (short_queries.sql) against `granite local` (2 workers) and prints one JSON report per level.
#
#   bench/results/run_concurrency_benchmark.sh [GRANITE_BINARY] [SECONDS_PER_LEVEL]
#
# Environment: LEVELS (default "1 8 64 256"); GENERATOR_NICE (default 0): the load generator runs
# under `nice -n GENERATOR_NICE`. It shares the 2 cores with the servers it measures and its own
# CPU per query grows with its outstanding calls (+25-40% from 8 to 256); nice 19 lets the servers
# win the cores, closer to clients on other machines.
set -euo pipefail
levels="${LEVELS:-1 8 64 256}"
generator_nice="${GENERATOR_NICE:-0}"
here="$(cd "$(dirname "$0")" && pwd)"
granite="${1:-$here/../../build/granite}"
seconds="${2:-10}"
data="$(mktemp -d /tmp/granite-bench-XXXXXX)"
log="$data/local.log"
"$granite" local --workers 2 --data "$data" --port 0 > "$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 100); do
  port="$(sed -n 's/.*granite local listening on [0-9.]*:\([0-9]*\).*/\1/p' "$log")"
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { cat "$log"; exit 1; }
client() { "$granite" client --port "$port" --query "$1"; }
client "CREATE TABLE bench_kv (k UInt64, v UInt64, g UInt8) ENGINE = MergeTree ORDER BY k"
client "INSERT INTO bench_kv SELECT number, number * 3, number % 16 FROM numbers(100000)"
# Warm-up, then the levels.
"$granite" benchmark --port "$port" --concurrency 8 --timelimit 2 --server_report=false \
  --queries_file "$here/short_queries.sql" > /dev/null
for c in $levels; do
  nice -n "$generator_nice" "$granite" benchmark --port "$port" --concurrency "$c" --timelimit "$seconds" --json \
    --queries_file "$here/short_queries.sql"
done
