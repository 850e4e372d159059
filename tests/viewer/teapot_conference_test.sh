#!/usr/bin/env bash
# teapot_conference_test.sh STREAMRT EXAMPLE SCENES WORK
# The animated example scenes/examples/teapot-conference.json loads and renders on the CPU: three
# frames of the Whitted tracer, each with its own kd-tree build over at least 100K triangles, and
# the teapot moved between the first two (times 0 and 2; the 4 s loop ends where it starts).
# EXAMPLE is the JSON (copied into the build tree); SCENES holds conference-room/ and teapot/
# ($SRT_TEST_SCENES_DIR when set); the JSON reads them as ../data/, so WORK gets examples/ and a
# data link to SCENES. Exit 77 (skip) when the meshes are absent.
set -euo pipefail
streamrt=$1 example=$2 scenes=${SRT_TEST_SCENES_DIR:-$3} work=$4
for mesh in conference-room/conference.obj teapot/teapot.obj; do
  if [ ! -f "$scenes/$mesh" ]; then
    echo "SKIP: no $scenes/$mesh (../shared/scenes at configure time, or scripts/fetch-scenes.sh" \
      "and SRT_TEST_SCENES_DIR=scenes/data)"
    exit 77
  fi
done
rm -rf "$work" && mkdir -p "$work/examples"
cp "$example" "$work/examples/"
ln -s "$(cd "$scenes" && pwd)" "$work/data"
"$streamrt" render "$work/examples/$(basename "$example")" --backend cpu --width 160 --height 90 \
  --spp 1 --frames 3 --integrator whitted -o "$work/frame.png" --stats "$work/stats.json" -q

fail() { echo "FAIL: $*"; exit 1; }
for f in 0000 0001 0002; do [ -s "$work/frame-$f.png" ] || fail "frame-$f.png not written"; done
cmp -s "$work/frame-0000.png" "$work/frame-0001.png" && fail "the two frames are identical"
# One "triangles" and one "builder" per frame: the kd-tree was rebuilt for the second frame too.
tris=$(grep -o '"triangles": *[0-9]*' "$work/stats.json" | grep -o '[0-9]*$')
[ "$(wc -l <<<"$tris")" -eq 3 ] || fail "expected 3 frames in the statistics: $tris"
while read -r n; do [ "$n" -ge 100000 ] || fail "$n triangles, expected >= 100000"; done <<<"$tris"
builds=$(grep -c '"builder": *"cpu"' "$work/stats.json" || true)
[ "$builds" -eq 3 ] || fail "expected a kd-tree build in each of 3 frames, found $builds"
echo "PASS: 3 frames of $(head -1 <<<"$tris") triangles, a kd-tree build each"
