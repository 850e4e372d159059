#!/usr/bin/env bash
# Command 2 of the README: install what is missing, build, and run every test (labels cpu, gl,
# gpu; GPU tests skip with a reason on a machine without a CUDA device).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
# Each scene reader's fuzz target for STREAMRT_FUZZ_SECONDS (25; 0 skips), where clang is: about
# 3 minutes with the clang build. Before ctest, so that ctest's summary stays the last line.
fuzz=0 fuzz_s=${STREAMRT_FUZZ_SECONDS:-25}
if [ "$fuzz_s" != 0 ] && command -v clang++ >/dev/null; then
  nice -n 10 scripts/fuzz.sh --time "$fuzz_s" || fuzz=$?
fi
# ctest runs $(nproc) tests at once and each OpenMP test takes every core: threads that spin at
# barriers then starve each other (two path-pool tests took 360 s instead of 4 on 2 cores).
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
ctest --test-dir build --output-on-failure -j "$(nproc)" "$@"
exit $fuzz
