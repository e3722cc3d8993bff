#!/usr/bin/env bash
# Creates the Python venv used by the tests (.venv): grpcio and grpcio-tools for the ClickHouse gRPC
# protocol, and the granite_client package (client/python) installed in editable mode, which
# generates its gRPC stubs from proto/, clickhouse-connect (for the HTTP interface's tests), and
# numpy, pandas, pyarrow and SQLAlchemy (the package's [pandas] / [arrow] / [sqlalchemy] extras).
# Idempotent and quiet. Pass --bench to add the benchmark peers (chdb, duckdb) and the TPC-H data
# generator (tpchgen-cli, bench/tpch/tpch.py).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
want=(grpcio grpcio-tools setuptools wheel clickhouse-connect numpy pandas pyarrow sqlalchemy)
if [ "${1:-}" = "--bench" ]; then
  want+=(chdb duckdb tpchgen-cli)
fi
need=()
for p in "${want[@]}"; do
  "$venv/bin/python" -m pip show -q "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${need[@]}"
fi
# granite_client: (re)install when it is missing or installed from another checkout. Importing it
# regenerates the stubs when the .proto is newer than them.
if ! (cd / && "$venv/bin/python" - "$root/client/python" >/dev/null 2>&1) <<'PY'
import os, sys
import granite_client
here = os.path.realpath(os.path.dirname(granite_client.__file__))
sys.exit(0 if here.startswith(os.path.realpath(sys.argv[1]) + os.sep) else 1)
PY
then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation \
    -e "$root/client/python" >/dev/null
fi
# The Node.js client of the HTTP interface's tests (skipped without npm).
bash "$root/scripts/install-node-clients.sh"
