#!/usr/bin/env bash
# benchmark_test.sh STREAMRT [BACKEND]
# `streamrt view --benchmark N` runs without a window (headless EGL): it exits 0 and prints the
# frame rate and the split by stage, with N frames timed. Exit 77 (skip) when no EGL context can
# be made (the viewer says why on stderr).
set -uo pipefail
streamrt=$1 backend=${2:-cpu}
out=$("$streamrt" view cornell --backend "$backend" --width 33 --height 17 --benchmark 4 \
  --warmup 1 --integrator whitted 2>/tmp/benchmark_test.$$)
rc=$? err=$(cat /tmp/benchmark_test.$$); rm -f /tmp/benchmark_test.$$
if [ $rc -ne 0 ] && [ "$backend" = cuda ] && grep -qi 'no CUDA device\|cuda.*not available' <<<"$err"; then
  echo "SKIP: $err"; exit 77
fi
if [ $rc -ne 0 ] && grep -qi 'EGL\|OpenGL\|GL context' <<<"$err"; then
  echo "SKIP: no headless GL context: $err"; exit 77
fi
[ $rc -eq 0 ] || { echo "FAIL: exit $rc: $err"; exit 1; }
echo "$out"
fail() { echo "FAIL: $*"; exit 1; }
grep -Eq '^  4 frames: [0-9.]+ frames/s' <<<"$out" || fail "no '4 frames: ... frames/s' line"
grep -Eq 'build [0-9.]+ +trace [0-9.]+ +shade [0-9.]+ +shadow [0-9.]+ +compaction [0-9.]+ +display [0-9.]+ +other [0-9.]+' \
  <<<"$out" || fail "no split by stage"
grep -q "33x17" <<<"$out" || fail "the resolution is not the one asked for"
grep -q "display: " <<<"$out" || fail "no display line"
# The last frame is always shown, and no more frames than were rendered.
grep -Eq '^  shown [1-4] of 4 frames \(--display-hz 120\)' <<<"$out" || fail "no 'shown K of 4' line"
echo PASS
