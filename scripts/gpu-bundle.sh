#!/usr/bin/env bash
# Packs what scripts/gpu-host-check.sh needs on a CUDA host without our Debian libraries: the
# stripped binaries and their shared libraries (through ../shared/gpu-host/bundle.sh), plus the
# shared scenes as zips. Build first with scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=90.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.gpu}
rm -rf "$out" && mkdir -p "$out/scenes"
stage=$(mktemp -d)
bins=(build/apps/streamrt)
[ -n "${BINS:-}" ] || for t in build/tests/*/test_*gpu* build/tests/accel/test_traversal_persistent build/tests/gl/test_gl \
    build/tests/viewer/test_viewer_interop \
    build/bench/*/streamrt-bench-*; do
  [[ $t == *.cmake || $t == *_cpu ]] || bins+=("$t")
done
# BINS="a b" replaces the default list (a smaller bundle for one run); EXTRA_BINS adds to it.
if [ -n "${BINS:-}" ]; then read -ra bins <<<"$BINS"; fi
# Optional extra binaries, e.g. a streamrt built with different settings: EXTRA_BINS="a b"
for b in ${EXTRA_BINS:-}; do bins+=("$b"); done
../shared/gpu-host/bundle.sh "$stage" "${bins[@]}" >/dev/null
strip "$stage"/bin/* 2>/dev/null || true
# The Vulkan loader, which the GL compaction's interop opens at run time (Vulkan makes the memory
# and semaphores CUDA and GL share), so ldd does not list it; and the host driver's Vulkan ICD.
vk=$(ldconfig -p | awk '$1=="libvulkan.so.1" && /x86-64/{print $NF; exit}')
[ -n "$vk" ] && cp -L "$vk" "$stage/lib/"
cat >>"$stage/env.sh" <<'EOF'
for j in /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json \
    /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; do
  if [ -e "$j" ]; then export VK_DRIVER_FILES=$j VK_ICD_FILENAMES=$j; break; fi
done
EOF
cp "$stage/env.sh" "$out/"
tar czf "$out/bundle.tgz" -C "$stage" bin lib
# The tests' small data (example scenes, fuzz inputs), found through SRT_TEST_DATA_DIR there.
cp -r build/test-data "$out/test-data"
for s in conference-room cornell-box teapot dabrovic-sponza; do cp ../shared/scenes/$s/*.zip "$out/scenes/$s.zip"; done
# Optional extra meshes for the kd-tree bench (e.g. the Stanford dragon as PLY): MESHES="a.ply b.ply"
for m in ${MESHES:-}; do gzip -c "$m" >"$out/scenes/$(basename "$m").gz"; done
du -sh "$out"
