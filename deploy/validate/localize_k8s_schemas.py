#!/usr/bin/env python3
"""Copies one Kubernetes version's JSON schemas out of the kubernetes-validate package into a
directory kubeconform can read offline.

kubernetes-validate ships draft 2020-12 schemas, one file per kind (statefulset-apps-v1.json, named
as kubeconform's "{{ .ResourceKind }}{{ .KindSuffix }}.json" template expects) plus a shared
_definitions.json. Each file carries "$id": "https://kubernetes.io/api/..." and refers to
"/api/_definitions.json#/$defs/...", which a validator resolves against that $id, i.e. over the
network. This script drops the $id and rewrites those references to the sibling file
"_definitions.json", so every reference resolves on disk.

usage: localize_k8s_schemas.py KUBERNETES_VERSION OUT_DIR     (e.g. 1.33.0 ~/.cache/...)
"""
import importlib.util
import json
import os
import sys

REMOTE_DEFINITIONS = "/api/_definitions.json"


def localize(node):
    """Rewrites remote $refs in place; returns the number rewritten."""
    count = 0
    if isinstance(node, dict):
        node.pop("$id", None)
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(REMOTE_DEFINITIONS):
            node["$ref"] = "_definitions.json" + ref[len(REMOTE_DEFINITIONS):]
            count += 1
        for key, value in node.items():
            if key != "$ref":
                count += localize(value)
    elif isinstance(node, list):
        for value in node:
            count += localize(value)
    return count


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    version, out_dir = sys.argv[1], sys.argv[2]
    # Locate the package without importing it (its import pulls in its validator's dependencies).
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("kubernetes-validate is not installed in this Python")
    package = list(spec.submodule_search_locations)[0]
    source = os.path.join(package, "kubernetes-json-schema", f"v{version}-local-strict")
    if not os.path.isdir(source):
        available = sorted(os.listdir(os.path.join(package, "kubernetes-json-schema")))
        sys.exit(f"no schemas for Kubernetes {version} in kubernetes-validate; "
                 f"available: {', '.join(available)}")
    os.makedirs(out_dir, exist_ok=True)
    files = rewritten = 0
    for name in sorted(os.listdir(source)):
        if not name.endswith(".json") or name == "all.json":
            continue
        with open(os.path.join(source, name)) as f:
            schema = json.load(f)
        rewritten += localize(schema)
        with open(os.path.join(out_dir, name), "w") as f:
            json.dump(schema, f, separators=(",", ":"))
        files += 1
    # Every $ref left must be local: "#..." or "_definitions.json#...".
    for name in os.listdir(out_dir):
        with open(os.path.join(out_dir, name)) as f:
            text = f.read()
        for part in text.split('"$ref":"')[1:]:
            ref = part.split('"', 1)[0]
            if not (ref.startswith("#") or ref.startswith("_definitions.json#")):
                sys.exit(f"{name}: reference {ref} is not local")
    print(f"localized {files} schemas ({rewritten} references) for Kubernetes {version} "
          f"into {out_dir}")


if __name__ == "__main__":
    main()
