#!/usr/bin/env bash
# Installs ClickHouse's official Node.js client (@clickhouse/client, from npm) into
# tests/integration/node/node_modules for tests/integration/node_client_test.py. Idempotent and
# quiet; skips (exit 0) when npm is not installed, and the test then skips itself.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/tests/integration/node"
if ! command -v npm >/dev/null 2>&1; then
  echo "install-node-clients: npm not found, skipping @clickhouse/client" >&2
  exit 0
fi
if [ -f "$dir/node_modules/@clickhouse/client/package.json" ]; then
  exit 0
fi
npm install --prefix "$dir" --no-audit --no-fund --silent >/dev/null
