#!/usr/bin/env bash
# Runs on the CUDA host over a bundle from scripts/gpu-bundle.sh: the comparison of path
# pool modes, side by side in one run, on the Conference Room (lit by its panels) and open
# environment-lit scenes. Each configuration is one `streamrt profile` (every listed primitive
# and `none` in one process on one tree, warm-up then repeats, median render time), so the
# figures are steady-state and the images are compared by hash within and across configurations.
# bench/tracer/summarize.py turns the profile.json files into one table per scene.
#   CONFIGS="name:flags;..."  the configurations;  SCENES="path ..." the scenes;
#   SPP, W, H, DEPTH, WARMUP, REPEATS; STREAMRT: another streamrt binary of the bundle
set -u
cd "$(dirname "$0")/.."
source scripts/gpu-bundle-env.sh
res=$OUT/tracer
mkdir -p "$res"
W=${W:-1920} H=${H:-1080} SPP=${SPP:-16} DEPTH=${DEPTH:-8} WARMUP=${WARMUP:-1} REPEATS=${REPEATS:-5}
scenes=${SCENES:-$default_scenes}
# `none` is added to every list by profile: with --schedule waves it is the classic loop (one wave
# per sample, dead lanes kept: the pool holds exactly one sample's pixels), with regenerate it
# refills dead lanes in place.
px=$((W * H))
default_configs="waves:--schedule waves --pool $px --compaction cub,lookback --compact-every 1 --traversal standard;\
waves-persistent:--schedule waves --pool $px --compaction lookback --compact-every 1 --traversal persistent;\
regen:--compaction cub,tile-atomic,lookback,auto --traversal standard;\
regen-persistent:--compaction tile-atomic,lookback,auto --traversal persistent;\
regen-persistent-every1:--compaction tile-atomic,lookback --traversal persistent --compact-every 1;\
regen-persistent-every3:--compaction tile-atomic,lookback --traversal persistent --compact-every 3;\
regen-persistent-pool2m:--compaction lookback --traversal persistent --pool 2162688;\
index-persistent:--compaction tile-atomic,lookback --payload index --traversal persistent"
IFS=';' read -ra configs <<<"${CONFIGS:-$default_configs}"
nvidia-smi -L | tee "$res/device.txt"
for scene in $scenes; do
  sname=$(basename "$scene" .json)
  mkdir -p "$res/$sname"
  for c in "${configs[@]}"; do
    name=${c%%:*}
    flags=${c#*:}
    # shellcheck disable=SC2086
    "${STREAMRT:-$B/bin/streamrt}" profile "$scene" --backend cuda --width "$W" --height "$H" --spp "$SPP" \
      --max-depth "$DEPTH" --warmup "$WARMUP" --repeats "$REPEATS" $flags \
      --out "$res/$sname/$name" -q 2>&1 | tail -3
  done
done
python3 bench/tracer/summarize.py "$res" | tee "$res/summary.md"
