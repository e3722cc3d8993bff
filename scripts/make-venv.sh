#!/usr/bin/env bash
# Creates the Python venv used by the tests (.venv): grpcio and grpcio-tools for the ClickHouse gRPC
# protocol. Idempotent. Pass --bench to add the benchmark peers (chdb, duckdb).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
want=(grpcio grpcio-tools)
if [ "${1:-}" = "--bench" ]; then
  want+=(chdb duckdb)
fi
need=()
for p in "${want[@]}"; do
  "$venv/bin/python" -m pip show -q "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${need[@]}"
fi
