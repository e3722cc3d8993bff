#!/usr/bin/env bash
# Checks deploy/systemd offline (ctest: deploy.systemd): `granite-launch install-systemd` on a fake
# two-node machine writes the env files and per-node NUMA drop-ins it should, and
# `systemd-analyze verify` accepts the units with those drop-ins (it prints nothing for good units;
# any line it prints fails the test). A negative control checks that verify does flag a bad
# drop-in (NUMAMask=%i, which systemd does not expand).
# usage: check-systemd.sh [GRANITE_BINARY]      (ExecStart must name an executable to verify)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
binary=$(realpath "${1:-/bin/true}")
command -v systemd-analyze > /dev/null || { echo "systemd-analyze is not installed"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
passed=0
failed=0
step() {
  local name=$1
  shift
  if "$@" > "$out/step.log" 2>&1; then
    passed=$((passed + 1)); echo "ok   $name"
  else
    failed=$((failed + 1)); echo "FAIL $name"; sed 's/^/     /' "$out/step.log"
  fi
}
# A fake machine: nodes 0 (CPUs 0-3) and 1 (CPUs 4-7), all CPUs allowed.
fake="$out/sysfs"
mkdir -p "$fake/sys/devices/system/node/node0" "$fake/sys/devices/system/node/node1" "$fake/proc/self"
echo 0-1 > "$fake/sys/devices/system/node/online"
echo 0-3 > "$fake/sys/devices/system/node/node0/cpulist"
echo 4-7 > "$fake/sys/devices/system/node/node1/cpulist"
printf 'Cpus_allowed_list:\t0-7\n' > "$fake/proc/self/status"
cat > "$out/granite.conf" <<CONF
data = /var/lib/granite
worker.base_port = 9200
coordinator.port = 9100
coordinator.metrics_port = 9363
worker.metrics_base_port = 9364
CONF
step "granite-launch install-systemd" env GRANITE_SYSFS_ROOT="$fake" \
  "$root/deploy/baremetal/granite-launch" --config "$out/granite.conf" install-systemd "$out/root"
etc="$out/root/etc"
step "coordinator.env lists both workers" \
  grep -qx 'GRANITE_WORKERS=127.0.0.1:9200,127.0.0.1:9201' "$etc/granite/coordinator.env"
step "worker-1.env: port, data, metrics" sh -c "
  grep -qx 'GRANITE_PORT=9201' '$etc/granite/worker-1.env' &&
  grep -qx 'GRANITE_DATA=/var/lib/granite/worker-1' '$etc/granite/worker-1.env' &&
  grep -qx 'GRANITE_METRICS_PORT=9365' '$etc/granite/worker-1.env'"
step "NUMA drop-in for node 1" sh -c "
  grep -qx 'NUMAPolicy=bind' '$etc/systemd/system/granite-worker@1.service.d/numa.conf' &&
  grep -qx 'NUMAMask=1' '$etc/systemd/system/granite-worker@1.service.d/numa.conf' &&
  grep -qx 'CPUAffinity=numa' '$etc/systemd/system/granite-worker@1.service.d/numa.conf'"

units="$out/units"
mkdir -p "$units"
cp "$root"/deploy/systemd/* "$units/"
cp -r "$etc"/systemd/system/* "$units/"
sed -i "s#/usr/local/bin/granite#$binary#" "$units"/*.service
verify() {  # verify UNIT...: fails when systemd-analyze prints anything
  local output
  output=$(cd "$units" && SYSTEMD_LOG_COLOR=0 systemd-analyze verify --man=no "$@" 2>&1) || true
  [ -z "$output" ] || { echo "$output"; return 1; }
}
step "systemd-analyze verify" verify "$units/granite-worker@0.service" \
  "$units/granite-worker@1.service" "$units/granite-coordinator.service" "$units/granite.target"
printf '[Service]\nNUMAMask=%%i\n' > "$units/granite-worker@1.service.d/bad.conf"
flags_bad_dropin() { ! verify "$units/granite-worker@1.service"; }
step "systemd-analyze verify flags NUMAMask=%i" flags_bad_dropin

echo "systemd: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
