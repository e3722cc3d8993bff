#!/usr/bin/env bash
# Runs libFuzzer targets built by `make fuzz-build`: run.sh BUILD_DIR SECONDS TARGET...
# Each target starts from a working corpus in BUILD_DIR/fuzz-corpus/<target>, seeded from
# fuzz/corpus/<target> (the repository's seeds stay small and hand-written), with the dictionary
# fuzz/dicts/<target>.dict when there is one. Crashes, timeouts and out-of-memory inputs land in
# BUILD_DIR/fuzz-artifacts/<target>/; each such input becomes a file of fuzz/corpus/<target>/ (a
# regression test replayed by ctest) once the defect is fixed. Prints executions per target and
# appends them to BUILD_DIR/fuzz-artifacts/executions.tsv (UTC time, target, seconds, executions,
# exit code, final coverage, corpus size and the extra flags: one line per run, kept across runs).
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1 seconds=$2
shift 2
status=0
for target in "$@"; do
  binary="$build/fuzz/${target}_fuzzer"
  corpus="$build/fuzz-corpus/$target"
  artifacts="$build/fuzz-artifacts/$target"
  mkdir -p "$corpus" "$artifacts"
  cp -n "fuzz/corpus/$target"/* "$corpus"/ 2>/dev/null || true
  dict=()
  [ -f "fuzz/dicts/$target.dict" ] && dict=(-dict="fuzz/dicts/$target.dict")
  # The targets that run most of the coordinator hit tens of thousands of coverage features per
  # input, and libFuzzer's entropic schedule (its default) updates a frequency for each of them
  # after every run: 55% of query_local's CPU, 431 vs 3,130 runs/s (bench/results/
  # fuzzing-2026-12-01.md). Those use the plain schedule; FUZZ_ARGS adds flags to every target.
  extra=()
  case "$target" in sql_bind|query_local|query_info) extra=(-entropic=0) ;; esac
  # shellcheck disable=SC2206  # FUZZ_ARGS is a list of flags
  extra+=(${FUZZ_ARGS:-})
  log="$build/fuzz-artifacts/$target.log"
  set +e
  ASAN_OPTIONS=detect_leaks=0 "$binary" "$corpus" "${dict[@]}" "${extra[@]}" -max_total_time="$seconds" \
    -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" > "$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | awk '{print $2}' || true)
  corp=$(grep -oE 'corp: [0-9]+' "$log" | tail -1 | awk '{print $2}' || true)
  echo "fuzz $target: exit $rc, ${execs:-?} executions in ${seconds}s (log $log)"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$target" "$seconds" "${execs:-?}" \
    "$rc" "${cov:-?}" "${corp:-?}" "${extra[*]}" >> "$build/fuzz-artifacts/executions.tsv"
  [ "$rc" -eq 0 ] || status=1
done
exit $status
