#!/usr/bin/env bash
# Command 2 of the README: install what is missing, build, and run every test (labels cpu, gl,
# gpu; GPU tests skip with a reason on a machine without a CUDA device).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" "$@"
