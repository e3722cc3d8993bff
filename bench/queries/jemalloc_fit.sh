#!/usr/bin/env bash
# Peak RSS and page faults of a large two-level GROUP BY (10M groups) run three times in one
# 1-worker `granite local`, with jemalloc's lg_extent_max_active_fit at 6 (jemalloc's default) and
# 8 (granite's compiled-in malloc_conf). MALLOC_CONF overrides the compiled-in value; the worker's
# start-up log line shows the value in force.
#
#   bash bench/queries/jemalloc_fit.sh build/granite
set -euo pipefail
granite=${1:-build/granite}
query="SELECT number % 10000000 AS k, count(), sum(number) FROM numbers_mt(40000000) GROUP BY k ORDER BY k DESC LIMIT 1"
for fit in 6 8; do
  data=$(mktemp -d)
  log=$(mktemp)
  MALLOC_CONF="lg_extent_max_active_fit:$fit" /usr/bin/time -v "$granite" local --workers 1 \
    --data "$data" --port 0 >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do grep -q "listening on" "$log" && break; sleep 0.1; done
  port=$(grep -o "listening on [^ ]*" "$log" | head -1 | sed 's/.*://')
  start=$(date +%s.%N)
  for run in 1 2 3; do "$granite" client --port "$port" --query "$query" >/dev/null; done
  end=$(date +%s.%N)
  kill -TERM "$(pgrep -P "$pid" granite || true)" 2>/dev/null || true
  wait "$pid" || true
  echo "lg_extent_max_active_fit=$fit: $(grep -o 'lg_extent_max_active_fit=[0-9]*' "$log" | sort -u | tr '\n' ' ')"
  echo "  3 runs: $(echo "$end - $start" | bc) s"
  grep -E "Maximum resident set size|Major|Minor" "$log" | sed 's/^\s*/  /'
  rm -rf "$data" "$log"
done
