#!/usr/bin/env bash
# Configures and builds streamrt into ./build (Release; CUDA arch: the visible GPU's, else sm_90).
# Extra arguments go to CMake's configure step, e.g. -DCMAKE_CUDA_ARCHITECTURES=89.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
jobs=$(nproc)
launcher=()
if command -v ccache >/dev/null; then  # rebuilds after a clean clone reuse earlier compiles
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="$PWD"  # paths relative to the checkout: clones share the cache
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@" >/dev/null
cmake --build build -j "$jobs"
