#!/usr/bin/env bash
# Source coverage reached by the fuzz corpora: coverage.sh COV_BUILD_DIR CORPUS_ROOT TARGET...
# COV_BUILD_DIR holds fuzz_replay_<target> built with clang's -fprofile-instr-generate
# -fcoverage-mapping (`make fuzz-coverage` configures build-cov/ so). Each replay runs over
# fuzz/corpus/<target>/ and, when it exists, CORPUS_ROOT/<target>/ (the working corpus `make fuzz`
# grows in build-fuzz/fuzz-corpus/); the profiles are merged with llvm-profdata and reported by
# llvm-cov per source directory (COVERAGE_DIRS) and per file, into COV_BUILD_DIR/coverage/:
#   summary.txt   a Markdown table: line, function, region and branch coverage per directory
#                 (a directory none of the binaries contains has 0 files)
#   files.txt     llvm-cov's per-file report over all the directories
#   html/         llvm-cov show's annotated sources
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1 corpora=$2
shift 2
default_dirs="coordinator/sql coordinator/formats core/block_codec.cc storage/part.cc \
  storage/part_format.cc storage/sparse_serialization.cc"
dirs=${COVERAGE_DIRS:-$default_dirs}
profdata=${LLVM_PROFDATA:-llvm-profdata-14}
cov=${LLVM_COV:-llvm-cov-14}
out="$build/coverage"
rm -rf "$out"
mkdir -p "$out/profiles"
objects=()
for target in "$@"; do
  binary="$build/fuzz/fuzz_replay_$target"
  inputs=("fuzz/corpus/$target")
  [ -d "$corpora/$target" ] && inputs+=("$corpora/$target")
  LLVM_PROFILE_FILE="$out/profiles/$target.profraw" "$binary" "${inputs[@]}" > /dev/null
  echo "coverage: replayed $target over ${inputs[*]}"
  [ ${#objects[@]} -eq 0 ] && objects+=("$binary") || objects+=(-object "$binary")
done
"$profdata" merge -sparse "$out"/profiles/*.profraw -o "$out/fuzz.profdata"
# Per directory: the sums of llvm-cov's per-file summaries (export -summary-only) under it.
# shellcheck disable=SC2086
"$cov" export "${objects[@]}" -instr-profile="$out/fuzz.profdata" -summary-only $dirs \
  2>/dev/null > "$out/summary.json"
python3 - "$out/summary.json" "$PWD" $dirs > "$out/summary.txt" <<'PY'
import json, sys
files = json.load(open(sys.argv[1]))["data"][0]["files"]
root = sys.argv[2].rstrip("/") + "/"
print("| source | files | lines | functions | regions | branches |")
print("|---|---:|---:|---:|---:|---:|")
for d in sys.argv[3:]:
    mine = [f for f in files if f["filename"].startswith(root + d)]
    cells = []
    for kind in ("lines", "functions", "regions", "branches"):
        count = sum(f["summary"][kind]["count"] for f in mine)
        covered = sum(f["summary"][kind]["covered"] for f in mine)
        cells.append(f"{100 * covered / count:.1f}% of {count}" if count else "-")
    print(f"| {d} | {len(mine)} | " + " | ".join(cells) + " |")
PY
# shellcheck disable=SC2086
"$cov" report "${objects[@]}" -instr-profile="$out/fuzz.profdata" $dirs > "$out/files.txt" \
  2>/dev/null
# shellcheck disable=SC2086
"$cov" show "${objects[@]}" -instr-profile="$out/fuzz.profdata" -format=html \
  -output-dir="$out/html" $dirs 2>/dev/null
cat "$out/summary.txt"
echo "per file: $out/files.txt; annotated sources: $out/html/index.html"
