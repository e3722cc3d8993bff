#!/usr/bin/env bash
# Source coverage reached by the fuzz corpora: coverage.sh COV_BUILD_DIR CORPUS_ROOT TARGET...
# COV_BUILD_DIR holds fuzz_replay_<target> built with clang's -fprofile-instr-generate
# -fcoverage-mapping (`make fuzz-coverage` configures build-cov/ so). Each replay runs over
# fuzz/corpus/<target>/ and, when it exists, CORPUS_ROOT/<target>/ (the working corpus `make fuzz`
# grows in build-fuzz/fuzz-corpus/); the profiles are merged with llvm-profdata and reported by
# llvm-cov per source directory (COVERAGE_DIRS) and per file, into COV_BUILD_DIR/coverage/:
#   summary.txt   one TOTAL line (regions, functions, lines) per directory
#   files.txt     llvm-cov's per-file report over all the directories
#   html/         llvm-cov show's annotated sources
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1 corpora=$2
shift 2
dirs=${COVERAGE_DIRS:-coordinator/sql coordinator/formats core/block_codec.cc storage/part.cc storage/part_format.cc storage/sparse_serialization.cc}
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
: > "$out/summary.txt"
for dir in $dirs; do
  total=$("$cov" report "${objects[@]}" -instr-profile="$out/fuzz.profdata" "$dir" | grep '^TOTAL' || true)
  printf '%-40s %s\n' "$dir" "${total#TOTAL}" >> "$out/summary.txt"
done
# shellcheck disable=SC2086
"$cov" report "${objects[@]}" -instr-profile="$out/fuzz.profdata" $dirs > "$out/files.txt"
# shellcheck disable=SC2086
"$cov" show "${objects[@]}" -instr-profile="$out/fuzz.profdata" -format=html \
  -output-dir="$out/html" $dirs
echo "columns: regions, missed, cover; functions, missed, executed; lines, missed, cover; branches"
cat "$out/summary.txt"
echo "per file: $out/files.txt; annotated sources: $out/html/index.html"
