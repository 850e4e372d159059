#!/usr/bin/env bash
# Configures and builds streamrt into ./build (Release; CUDA arch: the visible GPU's, else sm_90).
# Extra arguments go to CMake's configure step, e.g. -DCMAKE_CUDA_ARCHITECTURES=89.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j "$jobs"
