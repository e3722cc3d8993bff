#!/usr/bin/env python3
"""Checks deploy/docker/Dockerfile without a Docker engine, by parsing it.

Required: a multi-stage build on Debian 12 with stages "build" and "runtime" (runtime last); the
runtime stage copies exactly one file from the build stage, the granite binary; runs as a numeric
non-root user; has a HEALTHCHECK that runs `granite health`; ENTRYPOINT ["granite"] in exec form;
EXPOSE 9100 9200 9363; apt-get installs use --no-install-recommends and clean their lists.
With --binary PATH, also: every Debian package providing a shared library of that binary (ldd +
dpkg -S) is installed in the runtime stage, apart from those every Debian image has.

usage: check_dockerfile.py DOCKERFILE [--binary PATH]
"""
import re
import shlex
import subprocess
import sys

BASE_IMAGE_PACKAGES = {"libc6", "libgcc-s1", "libstdc++6"}


def instructions(text):
    """Yields (line number, INSTRUCTION, arguments) with continuations joined, comments dropped."""
    pending, start = "", 0
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if pending and stripped.startswith("#"):
            continue
        if not pending:
            start = number
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        pending += stripped
        keyword, _, arguments = pending.partition(" ")
        yield start, keyword.upper(), arguments.strip()
        pending = ""


def stages(text):
    """Returns [{name, image, instructions: [(line, keyword, args)]}] in order."""
    result = []
    for line, keyword, args in instructions(text):
        if keyword == "FROM":
            match = re.fullmatch(r"(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?", args, re.I)
            if not match:
                raise SystemExit(f"line {line}: cannot parse FROM {args}")
            result.append({"name": match.group(2), "image": match.group(1), "instructions": []})
        elif result:
            result[-1]["instructions"].append((line, keyword, args))
    return result


def apt_packages(args):
    """Returns the packages of every `apt-get install` in a RUN command."""
    packages = []
    for command in re.split(r"&&|;", args):
        words = shlex.split(command)
        if words[:2] == ["apt-get", "install"]:
            packages += [w for w in words[2:] if not w.startswith("-")]
    return packages


def binary_packages(binary):
    """Returns the Debian packages that provide the shared libraries `binary` links."""
    ldd = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    packages = set()
    for library in re.findall(r"=> (/\S+)", ldd):
        for path in (library, subprocess.run(["realpath", library], capture_output=True,
                                             text=True).stdout.strip()):
            owner = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
            if owner.returncode == 0:
                packages.add(owner.stdout.split(":")[0])
                break
        else:
            raise SystemExit(f"no Debian package provides {library}")
    return packages


def check(text, binary=None):
    problems = []
    parsed = stages(text)
    names = [s["name"] for s in parsed]
    if len(parsed) < 2 or "build" not in names or names[-1] != "runtime":
        problems.append(f"stages are {names}; need 'build' and a final 'runtime'")
        return problems
    for stage in parsed:
        if not re.fullmatch(r"debian:12(\.\d+)?(-slim)?(@sha256:[0-9a-f]{64})?", stage["image"]):
            problems.append(f"stage {stage['name']} is FROM {stage['image']}, not Debian 12")
    build = next(s for s in parsed if s["name"] == "build")
    build_runs = " ".join(a for _, k, a in build["instructions"] if k == "RUN")
    if "--target granite" not in build_runs:
        problems.append("the build stage must build the granite target")
    runtime = parsed[-1]
    steps = runtime["instructions"]

    copies = [a for _, k, a in steps if k == "COPY" and "--from=" in a]
    if len(copies) != 1 or not re.fullmatch(r"--from=build\s+\S*/granite\s+/usr/local/bin/granite",
                                            copies[0]):
        problems.append(f"the runtime stage must copy only the granite binary from build: {copies}")
    users = [a for _, k, a in steps if k == "USER"]
    if not users or not re.fullmatch(r"[1-9][0-9]*(:[1-9][0-9]*)?", users[-1]):
        problems.append(f"the runtime stage must end as a numeric non-root USER, got {users}")
    if not any(k == "RUN" and "useradd" in a for _, k, a in steps):
        problems.append("the runtime stage must create its unprivileged user (useradd)")
    health = [a for _, k, a in steps if k == "HEALTHCHECK"]
    if len(health) != 1 or not re.search(r'CMD\s+\[\s*"granite",\s*"health"', health[0]):
        problems.append(f"need one HEALTHCHECK running [\"granite\", \"health\"], got {health}")
    entry = [a for _, k, a in steps if k == "ENTRYPOINT"]
    if entry != ['["granite"]']:
        problems.append(f'ENTRYPOINT must be ["granite"] (exec form), got {entry}')
    exposed = set(" ".join(a for _, k, a in steps if k == "EXPOSE").split())
    if not {"9100", "9200", "9363"} <= exposed:
        problems.append(f"EXPOSE must list 9100 9200 9363, got {sorted(exposed)}")

    installed = []
    for stage in parsed:
        for line, keyword, args in stage["instructions"]:
            if keyword == "RUN" and "apt-get install" in args:
                if "--no-install-recommends" not in args:
                    problems.append(f"line {line}: apt-get install without --no-install-recommends")
                if "rm -rf /var/lib/apt/lists" not in args:
                    problems.append(f"line {line}: apt lists are not removed in the same layer")
                if stage is runtime:
                    installed += apt_packages(args)
    if binary:
        missing = binary_packages(binary) - BASE_IMAGE_PACKAGES - set(installed)
        if missing:
            problems.append(f"the runtime stage lacks packages the binary links: {sorted(missing)}")
    return problems


def main():
    args = sys.argv[1:]
    binary = None
    if "--binary" in args:
        index = args.index("--binary")
        binary = args[index + 1]
        del args[index:index + 2]
    if len(args) != 1:
        raise SystemExit(__doc__)
    with open(args[0]) as f:
        problems = check(f.read(), binary)
    for problem in problems:
        print(f"{args[0]}: {problem}")
    if not problems:
        print(f"{args[0]}: multi-stage Debian 12 build, non-root runtime with the single granite "
              f"binary and a health check" + (f"; runtime packages cover {binary}" if binary else ""))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
