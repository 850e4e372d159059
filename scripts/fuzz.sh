#!/usr/bin/env bash
# Builds the scene readers' libFuzzer targets with clang (tests/fuzz/targets) and runs each for a
# bounded time on a working corpus seeded from tests/fuzz/corpus/<reader> and
# tests/fuzz/crashes/<reader>. Prints one summary line per reader and exits 1 on any crash, hang
# (an input over 10 s) or out-of-memory (over 2 GB), naming the input that caused it.
#
#   scripts/fuzz.sh                      # every reader, 10 minutes each
#   scripts/fuzz.sh --time 25            # what CI runs (scripts/test.sh, when clang is installed)
#   scripts/fuzz.sh --runs 1000000 ply   # one reader until a million executions
#   options: --time S, --runs N, --build-dir DIR (build-fuzz), --no-build, readers...
set -euo pipefail
cd "$(dirname "$0")/.."
time_s=600 runs=0 build=build-fuzz do_build=1 readers=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) time_s="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --build-dir) build="$2"; shift 2 ;;
    --no-build) do_build=0; shift ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    obj|mtl|json|ply|gltf) readers+=("$1"); shift ;;
    *) echo "streamrt: error: fuzz.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
[ ${#readers[@]} -gt 0 ] || readers=(obj mtl json ply gltf)

if [ "$do_build" = 1 ]; then
  command -v clang++ >/dev/null || { echo "streamrt: error: fuzz.sh needs clang++ (apt-get install clang libclang-rt-dev)" >&2; exit 1; }
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # Quiet when it works; a failed configure or build shows its output and says so.
  if ! out=$(cmake -S tests/fuzz/targets -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
      "${launcher[@]}" 2>&1 && cmake --build "$build" -j "$(nproc)" 2>&1); then
    printf '%s\n' "$out" | grep -E 'error|FAILED|undefined' | head -20 >&2
    echo "streamrt: error: fuzz.sh: the fuzz targets did not build (tests/fuzz/targets)" >&2
    exit 1
  fi
fi

failed=0
for r in "${readers[@]}"; do
  corpus="$build/corpus/$r" artifacts="$build/artifacts/$r/" log="$build/fuzz-$r.log"
  mkdir -p "$corpus" "$artifacts"
  seeds=(tests/fuzz/corpus/$r)
  [ -d tests/fuzz/crashes/$r ] && seeds+=(tests/fuzz/crashes/$r)
  args=(-max_total_time="$time_s" -timeout=10 -rss_limit_mb=2048 -max_len=8192
        -print_final_stats=1 -artifact_prefix="$artifacts" -dict=tests/fuzz/dict/$r.dict)
  [ "$runs" -gt 0 ] && args+=(-runs="$runs")
  status=0
  "$build/fuzz_$r" "${args[@]}" "$corpus" "${seeds[@]}" >"$log" 2>&1 || status=$?
  stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
  execs=$(stat number_of_executed_units) rate=$(stat average_exec_per_sec) rss=$(stat peak_rss_mb)
  files=$(find "$corpus" -type f | wc -l)
  if [ "$status" -eq 0 ]; then
    echo "fuzz $r: ${execs:-?} executions (${rate:-?}/s), peak ${rss:-?} MB, corpus $files files: no crash, hang or out-of-memory"
  else
    failed=1
    echo "fuzz $r: FAILED (exit $status) after ${execs:-?} executions; log $log" >&2
    grep -E '^==[0-9]+==ERROR|^SUMMARY|ALARM|out-of-memory|Test unit written' "$log" | head -5 >&2 || true
    echo "  fix the reader, then copy the input into tests/fuzz/crashes/$r/ (test_fuzz_replay replays it)" >&2
  fi
done
exit $failed
