#!/usr/bin/env bash
# Tests deploy/baremetal/granite-launch.
#   test-baremetal.sh plan            (ctest: deploy.baremetal_plan) which workers it starts on fake
#                                     1-, 2- and 4-node machines, with cpusets across nodes, without
#                                     NUMA, and how it rejects bad configs; needs no binary.
#   test-baremetal.sh run GRANITE     (ctest: deploy.baremetal_run) starts one worker per NUMA node
#                                     of this machine plus a coordinator on free loopback ports, runs
#                                     queries through them, then SIGTERM: everything must exit 0
#                                     within the shutdown deadline. Exits 77 (skipped) when the
#                                     binary has no --numa_node flag yet.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
launch="$root/deploy/baremetal/granite-launch"
out=$(mktemp -d)
cleanup() {
  [ -n "${launcher:-}" ] && kill -KILL "$launcher" 2>/dev/null
  rm -rf "$out"
}
trap cleanup EXIT
passed=0
failed=0
check() {  # check NAME EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then
    passed=$((passed + 1)); echo "ok   $1"
  else
    failed=$((failed + 1)); echo "FAIL $1"; echo "     expected: $2"; echo "     actual:   $3"
  fi
}
# fake_machine DIR ALLOWED NODE_CPULIST...: a sysfs tree with one node per cpulist.
fake_machine() {
  local dir=$1 allowed=$2 node=0
  shift 2
  mkdir -p "$dir/proc/self"
  printf 'Name:\tgranite\nCpus_allowed_list:\t%s\n' "$allowed" > "$dir/proc/self/status"
  if [ $# -gt 0 ]; then
    for cpus in "$@"; do
      mkdir -p "$dir/sys/devices/system/node/node$node"
      echo "$cpus" > "$dir/sys/devices/system/node/node$node/cpulist"
      node=$((node + 1))
    done
    if [ $node -eq 1 ]; then echo 0 > "$dir/sys/devices/system/node/online"
    else echo "0-$((node - 1))" > "$dir/sys/devices/system/node/online"; fi
  fi
}
plan() {  # plan SYSFS [CONFIG]: "node@port ..." of the workers `granite-launch print` starts
  local output
  output=$(GRANITE_SYSFS_ROOT=$1 "$launch" --config "${2:-/dev/null}" print 2>&1) || {
    echo "$output"
    return
  }
  echo "$output" | sed -n 's/.* worker --numa_node=\([^ ]*\) .*--port=\([0-9]*\) .*/\1@\2/p' |
    tr '\n' ' ' | sed 's/ $//'
}

run_plan() {
  fake_machine "$out/one" 0-7 0-7
  check "1 node: one worker" "0@9200" "$(plan "$out/one")"
  fake_machine "$out/two" 0-15 0-7 8-15
  check "2 nodes: one worker per node" "0@9200 1@9201" "$(plan "$out/two")"
  check "2 nodes: coordinator knows both" \
    "granite coordinator --host=127.0.0.1 --port=9100 --workers=127.0.0.1:9200,127.0.0.1:9201 --threads=0" \
    "$(GRANITE_SYSFS_ROOT="$out/two" "$launch" print | tail -n 1)"
  fake_machine "$out/four" 0-63 0-7,32-39 8-15,40-47 16-23,48-55 24-31,56-63
  check "4 nodes with SMT siblings" "0@9200 1@9201 2@9202 3@9203" "$(plan "$out/four")"
  fake_machine "$out/cpuset" 12-20 0-7,32-39 8-15,40-47 16-23,48-55 24-31,56-63
  check "cpuset 12-20 across nodes 1 and 2: two workers" "1@9200 2@9201" "$(plan "$out/cpuset")"
  fake_machine "$out/none" 0-3
  check "no NUMA support: one worker, --numa_node=auto" "auto@9200" "$(plan "$out/none")"

  printf 'worker.numa_nodes = 1,3   # only these\nworker.base_port = 7000\ndata = /srv/g\n' > "$out/some.conf"
  check "worker.numa_nodes picks nodes" "1@7000 3@7001" "$(plan "$out/four" "$out/some.conf")"
  check "worker data directories follow the worker index" "--data=/srv/g/worker-1" \
    "$(GRANITE_SYSFS_ROOT="$out/four" "$launch" --config "$out/some.conf" print | sed -n 2p | grep -o -- '--data=[^ ]*')"
  printf 'replicas = 2\n' > "$out/replicas.conf"
  check "replicas = 2: two workers per node, shard-major" "0@9200 0@9201 1@9202 1@9203" \
    "$(plan "$out/two" "$out/replicas.conf")"
  check "replicas = 2: the coordinator groups them" \
    "granite coordinator --host=127.0.0.1 --port=9100 --workers=127.0.0.1:9200,127.0.0.1:9201,127.0.0.1:9202,127.0.0.1:9203 --threads=0 --replicas=2" \
    "$(GRANITE_SYSFS_ROOT="$out/two" "$launch" --config "$out/replicas.conf" print | tail -n 1)"
  printf 'coordinator.etcd = e1:2379,e2:2379\n' > "$out/etcd.conf"
  check "coordinator.etcd becomes --etcd" \
    "granite coordinator --host=127.0.0.1 --port=9100 --workers=127.0.0.1:9200 --threads=0 --etcd=e1:2379,e2:2379" \
    "$(GRANITE_SYSFS_ROOT="$out/one" "$launch" --config "$out/etcd.conf" print | tail -n 1)"
  GRANITE_SYSFS_ROOT="$out/one" "$launch" --config "$out/etcd.conf" install-systemd "$out/etcd-root" > /dev/null
  check "install-systemd writes GRANITE_ETCD" "GRANITE_ETCD=e1:2379,e2:2379" \
    "$(grep GRANITE_ETCD "$out/etcd-root/etc/granite/coordinator.env")"
  printf 'worker.numa_nodes = 9\n' > "$out/bad-node.conf"
  check "a node that does not exist" "granite-launch: NUMA node 9 does not exist (online: 0-3)" \
    "$(plan "$out/four" "$out/bad-node.conf")"
  printf 'coordinator.port = 9100\nworker.base_prot = 9200\n' > "$out/typo.conf"
  check "an unknown key names the line" "granite-launch: $out/typo.conf:2: unknown key \"worker.base_prot\"" \
    "$(GRANITE_SYSFS_ROOT="$out/two" "$launch" --config "$out/typo.conf" print 2>&1)"
  printf 'shutdown_timeout = soon\n' > "$out/nan.conf"
  check "a non-numeric value" "granite-launch: shutdown_timeout must be a number, got \"soon\"" \
    "$(GRANITE_SYSFS_ROOT="$out/two" "$launch" --config "$out/nan.conf" print 2>&1)"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

run_real() {
  local granite
  granite=$(realpath "$1")
  local flags
  flags=$("$granite" worker --helpfull 2>&1 || true)
  if ! grep -q -- '--numa_node' <<< "$flags"; then
    echo "skip: $granite has no --numa_node flag yet (see docs/deploy.md, wiring)"
    exit 77
  fi
  local coordinator_port worker_port
  coordinator_port=$(free_port)
  worker_port=$(free_port)
  cat > "$out/granite.conf" <<CONF
binary = $granite
data = $out/data
coordinator.port = $coordinator_port
coordinator.http_port = 0
worker.base_port = $worker_port
shutdown_timeout = 15
CONF
  "$launch" --config "$out/granite.conf" run > "$out/launch.log" 2>&1 &
  launcher=$!
  for _ in $(seq 1 300); do
    grep -q "granite-launch: ready" "$out/launch.log" && break
    kill -0 $launcher 2>/dev/null || break
    sleep 0.1
  done
  check "launcher reports ready" "yes" "$(grep -q 'granite-launch: ready' "$out/launch.log" && echo yes || { cat "$out/launch.log"; echo no; })"
  local nodes
  nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
  [ "$nodes" -gt 0 ] || nodes=1
  check "each worker logged its NUMA placement" "$nodes" "$(grep -c 'worker-[0-9]*: .*NUMA: ' "$out/launch.log" || true)"
  q() { "$granite" client --port "$coordinator_port" --query "$1"; }
  check "system.workers lists one worker per node" "$nodes" "$(q 'SELECT count() FROM system.workers' 2>&1)"
  check "a query runs on the workers" "4950" "$(q 'SELECT sum(number) FROM numbers(100)' 2>&1)"
  # A query still running at SIGTERM: the coordinator gives it its deadline, then cancels it; the
  # client gets an answer or an error, never a hang.
  q 'SELECT count() FROM numbers(100000000000) WHERE number % 3 = 1' > "$out/long.log" 2>&1 &
  local long=$!
  sleep 1
  local start=$SECONDS status=0
  kill -TERM $launcher
  wait $launcher || status=$?
  launcher=
  check "SIGTERM: the launcher and every process exit 0" "0" "$status"
  check "SIGTERM: stopped within the deadline" "yes" "$([ $((SECONDS - start)) -lt 20 ] && echo yes || echo "no: $((SECONDS - start)) s")"
  check "no granite process left" "" "$(pgrep -f -- "--data=$out/data" || true)"
  local client_status=0
  wait $long || client_status=$?
  check "the running query ended with an error, not a hang" "failed Code:" \
    "$([ $client_status -ne 0 ] && echo failed || echo "exit 0") $(head -c 5 "$out/long.log")"
  sed 's/^/     client: /' "$out/long.log"
  grep -h "shutting down" "$out"/data/logs/*.log | sed 's/^/     /' || true
}

case "${1:-}" in
  plan) run_plan ;;
  run) [ -n "${2:-}" ] || { echo "usage: $0 run GRANITE_BINARY"; exit 2; }; run_real "$2" ;;
  *) echo "usage: $0 plan | run GRANITE_BINARY"; exit 2 ;;
esac
echo "baremetal ${1}: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
