#!/usr/bin/env bash
# Validates every Kubernetes manifest offline (ctest: deploy.k8s):
#   1. renders the kustomize base and the example overlay (kustomize build), and the Helm chart
#      with default and with all-options values (helm lint, helm template);
#   2. kubeconform -strict on each rendering and on the raw ServiceMonitor, against the Kubernetes
#      schemas localized from kubernetes-validate plus deploy/k8s/schemas (ServiceMonitor);
#   3. kubernetes-validate --strict on each rendering, as a second, independent validator;
#   4. check_k8s_invariants.py: worker list vs replicas, Guaranteed QoS with integer CPUs, gRPC
#      probes, metrics ports, PDB, non-root;
#   5. a negative control: a rendering with an unknown field and a wrong type must be rejected,
#      so a validator that silently accepts everything fails this test.
# Needs scripts/install-deploy-tools.sh to have run (the ctest fixture does it).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tools=${GRANITE_TOOLS:-$HOME/.cache/granite-tools}
# shellcheck source=/dev/null
. "$tools/tools.env" 2>/dev/null || { echo "no $tools/tools.env: run scripts/install-deploy-tools.sh"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
passed=0
failed=0
step() {  # step NAME COMMAND...
  local name=$1
  shift
  if "$@" > "$out/step.log" 2>&1; then
    passed=$((passed + 1))
    echo "ok   $name"
  else
    failed=$((failed + 1))
    echo "FAIL $name"
    sed 's/^/     /' "$out/step.log"
  fi
}
kubeconform() {
  "$KUBECONFORM" -strict -summary \
    -schema-location "$K8S_SCHEMAS/{{ .ResourceKind }}{{ .KindSuffix }}.json" \
    -schema-location "$root/deploy/k8s/schemas/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json" \
    "$@"
}
# kubernetes-validate knows no CRDs: it warns about the ServiceMonitor and fails on real errors.
kubernetes_validate() { "$KUBERNETES_VALIDATE" --strict --quiet -k "$K8S_VERSION" "$@"; }

renderings=()
step "kustomize build base" sh -c "'$KUSTOMIZE' build '$root/deploy/k8s/base' > '$out/kustomize-base.yaml'"
step "kustomize build overlays/example" \
  sh -c "'$KUSTOMIZE' build '$root/deploy/k8s/overlays/example' > '$out/kustomize-example.yaml'"
renderings+=("$out/kustomize-base.yaml" "$out/kustomize-example.yaml")
if [ -x "$HELM" ]; then
  chart="$root/deploy/helm/granite"
  step "helm lint" "$HELM" lint --strict "$chart" -f "$chart/ci-values.yaml"
  step "helm template (defaults)" sh -c "'$HELM' template granite '$chart' > '$out/helm-default.yaml'"
  step "helm template (ci-values)" \
    sh -c "'$HELM' template granite '$chart' -f '$chart/ci-values.yaml' > '$out/helm-ci.yaml'"
  renderings+=("$out/helm-default.yaml" "$out/helm-ci.yaml")
else
  echo "skip helm: not installed (scripts/install-deploy-tools.sh --no-helm?)"
fi

for file in "${renderings[@]}"; do
  name=$(basename "$file" .yaml)
  step "kubeconform -strict $name" kubeconform "$file"
  step "kubernetes-validate --strict $name" kubernetes_validate "$file"
done
step "kubeconform -strict components/prometheus-operator/servicemonitor.yaml" \
  kubeconform "$root/deploy/k8s/components/prometheus-operator/servicemonitor.yaml"
step "invariants" "$tools/venv/bin/python" "$root/deploy/validate/check_k8s_invariants.py" \
  "${renderings[@]}"

# Negative controls: each validator must reject a broken manifest.
sed 's/^  serviceName: \(.*\)$/  serviceName: \1\n  replicasTypo: 3/; s/periodSeconds: 2$/periodSeconds: "2"/' \
  "$out/kustomize-example.yaml" > "$out/broken.yaml"
sed 's/interval: 15s/interval: 15 seconds/' "$out/kustomize-example.yaml" > "$out/broken-monitor.yaml"
step "kubeconform rejects an unknown field and a wrong type" sh -c "
  ! '$KUBECONFORM' -strict -schema-location '$K8S_SCHEMAS/{{ .ResourceKind }}{{ .KindSuffix }}.json' \
      -skip ServiceMonitor '$out/broken.yaml' > '$out/neg.log' 2>&1 &&
  grep -q \"additional properties 'replicasTypo' not allowed\" '$out/neg.log' &&
  grep -q 'periodSeconds' '$out/neg.log'"
step "kubernetes-validate rejects an unknown field" sh -c "! '$KUBERNETES_VALIDATE' --strict --quiet -k '$K8S_VERSION' '$out/broken.yaml'"
step "the ServiceMonitor schema rejects a bad duration" sh -c "
  ! '$KUBECONFORM' -strict -schema-location '$K8S_SCHEMAS/{{ .ResourceKind }}{{ .KindSuffix }}.json' \
      -schema-location '$root/deploy/k8s/schemas/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json' \
      '$out/broken-monitor.yaml' > /dev/null 2>&1"
sed 's/^  replicas: 4$/  replicas: 5/' "$out/kustomize-example.yaml" > "$out/mismatch.yaml"
step "invariants reject a worker list that misses a replica" sh -c "
  ! '$tools/venv/bin/python' '$root/deploy/validate/check_k8s_invariants.py' '$out/mismatch.yaml' > /dev/null"

echo "k8s: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
