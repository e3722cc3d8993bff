#!/usr/bin/env python3
"""Checks what the JSON schemas cannot: that rendered granite manifests hang together.

For each multi-document YAML file given (a kustomize or helm rendering):
  - the coordinator's GRANITE_WORKERS names exactly the worker StatefulSet's pods, in order
    (<sts>-{0..replicas-1}.<headless service>.$(POD_NAMESPACE).svc:<worker grpc port>);
  - the StatefulSet's serviceName is a headless Service (clusterIP: None) selecting its pods;
  - every granite container has Guaranteed QoS with an integer CPU count (requests == limits),
    which the kubelet's static CPU manager needs to give it exclusive CPUs;
  - readiness and liveness probes are native gRPC probes on the container's "grpc" port;
  - prometheus.io/port names the container's "metrics" port; a ServiceMonitor, if any, selects
    Services that have a "metrics" port;
  - the PodDisruptionBudget selects the worker pods;
  - pods run as non-root.
Prints one line per file and exits 1 on the first file with problems (listing all of them).
usage: check_k8s_invariants.py RENDERED.yaml...
"""
import re
import sys

import yaml


def containers(doc):
    return doc["spec"]["template"]["spec"]["containers"]


def port_of(container, name):
    for port in container.get("ports", []):
        if port.get("name") == name:
            return port["containerPort"]
    return None


def matches(selector, labels):
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items())


def check(docs):
    problems = []
    by_kind = {}
    for doc in docs:
        by_kind.setdefault(doc["kind"], []).append(doc)
    workers = [d for d in by_kind.get("StatefulSet", [])
               if d["metadata"]["name"].endswith("worker")]
    coordinators = [d for d in by_kind.get("Deployment", [])
                    if d["metadata"]["name"].endswith("coordinator")]
    if len(workers) != 1 or len(coordinators) != 1:
        return [f"expected one worker StatefulSet and one coordinator Deployment, found "
                f"{len(workers)} and {len(coordinators)}"]
    sts, deploy = workers[0], coordinators[0]
    sts_name = sts["metadata"]["name"]
    replicas = sts["spec"].get("replicas", 1)
    pod_labels = sts["spec"]["template"]["metadata"]["labels"]
    worker = containers(sts)[0]
    worker_port = port_of(worker, "grpc")

    # The headless Service behind the StatefulSet.
    services = {s["metadata"]["name"]: s for s in by_kind.get("Service", [])}
    headless = services.get(sts["spec"]["serviceName"])
    if headless is None:
        problems.append(f"serviceName {sts['spec']['serviceName']} is not a Service here")
    else:
        if headless["spec"].get("clusterIP") != "None":
            problems.append(f"Service {headless['metadata']['name']} is not headless")
        if not matches({"matchLabels": headless["spec"]["selector"]}, pod_labels):
            problems.append(f"Service {headless['metadata']['name']} does not select the workers")

    # The coordinator's worker list.
    env = {e["name"]: e.get("value") for e in containers(deploy)[0].get("env", [])}
    pattern = env.get("GRANITE_WORKERS") or ""
    expected = (f"{sts_name}-{{0..{replicas - 1}}}.{sts['spec']['serviceName']}"
                f".$(POD_NAMESPACE).svc:{worker_port}")
    if pattern != expected:
        problems.append(f"GRANITE_WORKERS is {pattern!r}; with {replicas} replicas it must be "
                        f"{expected!r}")
    if "POD_NAMESPACE" in pattern and "POD_NAMESPACE" not in [
            e["name"] for e in containers(deploy)[0]["env"]
            [:list(env).index("GRANITE_WORKERS")]]:
        problems.append("POD_NAMESPACE must be defined before GRANITE_WORKERS to be expanded")

    for owner in (sts, deploy):
        name = f"{owner['kind']} {owner['metadata']['name']}"
        pod = owner["spec"]["template"]
        for c in containers(owner):
            res = c.get("resources", {})
            requests, limits = res.get("requests", {}), res.get("limits", {})
            if requests != limits or "cpu" not in limits or "memory" not in limits:
                problems.append(f"{name}/{c['name']}: requests must equal limits (cpu and memory) "
                                f"for Guaranteed QoS")
            cpu = str(limits.get("cpu", ""))
            if not re.fullmatch(r"[1-9][0-9]*", cpu):
                problems.append(f"{name}/{c['name']}: cpu {cpu!r} must be an integer count for "
                                f"the static CPU manager")
            grpc_port = port_of(c, "grpc")
            for probe in ("readinessProbe", "livenessProbe"):
                spec = c.get(probe, {})
                if spec.get("grpc", {}).get("port") != grpc_port:
                    problems.append(f"{name}/{c['name']}: {probe} must be a gRPC probe on port "
                                    f"{grpc_port}")
            annotations = pod["metadata"].get("annotations", {})
            if annotations.get("prometheus.io/scrape") == "true" and \
                    str(annotations.get("prometheus.io/port")) != str(port_of(c, "metrics")):
                problems.append(f"{name}: prometheus.io/port does not name the metrics port")
        security = pod["spec"].get("securityContext", {})
        if not security.get("runAsNonRoot"):
            problems.append(f"{name}: pods must run as non-root")

    pdbs = by_kind.get("PodDisruptionBudget", [])
    if not any(matches(p["spec"]["selector"], pod_labels) for p in pdbs):
        problems.append("no PodDisruptionBudget selects the worker pods")

    for monitor in by_kind.get("ServiceMonitor", []):
        selected = [s for s in services.values()
                    if matches(monitor["spec"]["selector"], s["metadata"].get("labels", {}))]
        wanted = {e.get("port") for e in monitor["spec"]["endpoints"]}
        if len(selected) < 2:
            problems.append(f"ServiceMonitor {monitor['metadata']['name']} selects "
                            f"{len(selected)} Services; expected the coordinator's and the workers'")
        for s in selected:
            if not wanted & {p.get("name") for p in s["spec"]["ports"]}:
                problems.append(f"ServiceMonitor port {wanted} missing on Service "
                                f"{s['metadata']['name']}")
    return problems


def main():
    failed = False
    for path in sys.argv[1:]:
        with open(path) as f:
            docs = [d for d in yaml.safe_load_all(f) if d]
        problems = check(docs)
        if problems:
            failed = True
            print(f"{path}: FAILED")
            for problem in problems:
                print(f"  - {problem}")
        else:
            print(f"{path}: invariants hold ({len(docs)} objects)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
