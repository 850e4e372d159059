# shellcheck shell=bash
# Sourced by the scripts that run on the CUDA host over a bundle from scripts/gpu-bundle.sh, from
# the repository root: unpacks the bundle once, loads its environment and unzips its scenes into
# scenes/data. Sets B (the bundle folder), OUT (the results folder) and default_scenes.
B=${BUNDLE:-.gpu}
OUT=${OUT:-gpu-results}
[ -d "$B/bin" ] || tar xzf "$B/bundle.tgz" -C "$B"
# shellcheck source=/dev/null  # the bundle's, made by scripts/gpu-bundle.sh
source "$B/env.sh"
mkdir -p scenes/data
for z in "$B"/scenes/*.zip; do
  name=$(basename "$z" .zip)
  [ -d "scenes/data/$name" ] || python3 -m zipfile -e "$z" "scenes/data/$name"
done
# shellcheck disable=SC2034  # read by the scripts that source this one
default_scenes="scenes/examples/conference-room.json bench/tracer/scenes/sponza-env.json bench/tracer/scenes/sponza-lit.json bench/tracer/scenes/teapot-env.json"
