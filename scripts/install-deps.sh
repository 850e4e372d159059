#!/usr/bin/env bash
# Installs the Debian 12 packages streamrt builds and tests with (the CUDA toolkit is assumed:
# nvcc in /usr/local/cuda/bin or on PATH). Does nothing when they are all present.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config git
  libtinyobjloader-dev libstb-dev libcli11-dev nlohmann-json3-dev libassimp-dev libtinyexr-dev
  zlib1g-dev                         # PNG writing (our encoder over zlib)
  libgtest-dev libbenchmark-dev
  libtinygltf-dev                    # glTF/GLB reader
  clang libclang-rt-dev              # fuzz targets only (scripts/fuzz.sh); the build uses gcc/nvcc
  libepoxy-dev libegl-dev libgl-dev libegl1 libgl1-mesa-dri libegl-mesa0
  libglfw3-dev libimgui-dev          # the interactive viewer
  libvulkan-dev mesa-vulkan-drivers  # GL interop: Vulkan-made semaphores and memory; lavapipe tests
  xvfb xauth chromium ccache         # viewer test (a real window), report test (headless browser)
  libopenmpi-dev openmpi-bin        # mpirun -n K streamrt render (optional at configure time)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "streamrt: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
