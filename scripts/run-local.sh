#!/usr/bin/env bash
# `make run`: starts a local cluster (coordinator + workers on loopback), loads sample data, runs a
# few queries, then keeps the cluster in the foreground until Ctrl+C.
set -euo pipefail
granite=${1:-build/granite}
port=${2:-9100}
workers=${3:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
data="$root/data/local"
mkdir -p "$data"
log="$data/cluster.log"

"$granite" local --workers "$workers" --data "$data" --port "$port" >"$data/ready" 2>"$log" &
cluster=$!
trap 'kill -TERM $cluster 2>/dev/null; wait $cluster 2>/dev/null' EXIT INT TERM
for _ in $(seq 1 100); do
  grep -q "listening on" "$data/ready" 2>/dev/null && break
  kill -0 $cluster 2>/dev/null || { echo "cluster failed to start; see $log"; cat "$log"; exit 1; }
  sleep 0.1
done
cat "$data/ready"

q() { "$granite" client --port "$port" --query "$1" "${@:2}"; }
echo "-- loading sample data into table 'visits'"
q "CREATE TABLE IF NOT EXISTS visits (id UInt64, site String, day Date, duration UInt32)
   ENGINE = MergeTree ORDER BY (site, day)"
if [ "$(q 'SELECT count() FROM visits')" = "0" ]; then
  q "INSERT INTO visits SELECT number, multiIf(number % 3 = 0, 'example.com', number % 3 = 1,
     'granite.dev', 'clickhouse.com'), toDate('2026-01-01') + number % 30, number % 600
     FROM numbers(1000000)"
fi
for sql in \
  "SELECT version()" \
  "SELECT count() FROM visits" \
  "SELECT site, count() AS visits, avg(duration) AS avg_duration FROM visits GROUP BY site ORDER BY site" \
  "SELECT toYYYYMM(day) AS month, sum(duration) FROM visits GROUP BY month ORDER BY month" \
  "SELECT number % 10000 AS k, count() AS c FROM numbers_mt(100000000) GROUP BY k ORDER BY k LIMIT 3"; do
  echo
  echo "granite :) $sql"
  q "$sql" --format PrettyCompact
done
echo
echo "The cluster is running: connect with  $granite client --port $port  (Ctrl+C here stops it)."
wait $cluster
