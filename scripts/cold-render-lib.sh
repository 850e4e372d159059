# shellcheck shell=bash
# Sourced by the scripts that time cold renders on the CUDA host (gpu-cold-render.sh,
# gpu-cold-auto.sh): one fresh `streamrt render` process, timed from outside, and its line for
# the summary, which scripts/cold_runs.py reads back. Expects STREAMRT, W, H and SPP (and EXT:
# the image's extension, png when unset).

# cold_render RES NAME SCENE REPEAT [VAR=VALUE...] -- [FLAG...]
# Renders SCENE with the variables in its environment and the flags added: the image to
# RES/S-NAME.EXT, the statistics to RES/S-NAME-REPEAT.json and stderr to RES/S-NAME-REPEAT.err
# (S: SCENE's base name). Appends "S NAME REPEAT EXIT T0 T1" (the wall clock before and after, in
# seconds) to RES/runs.txt.
cold_render() {
  local res=$1 name=$2 scene=$3 r=$4 sname t0 rc
  local envs=()
  shift 4
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    envs+=("$1")
    shift
  done
  [ $# -gt 0 ] && shift
  sname=$(basename "$scene" .json)
  t0=$EPOCHREALTIME
  env "${envs[@]}" "$STREAMRT" render "$scene" -o "$res/$sname-$name.${EXT:-png}" --width "$W" \
    --height "$H" --spp "$SPP" --stats "$res/$sname-$name-$r.json" -q "$@" \
    2>"$res/$sname-$name-$r.err"
  rc=$?
  echo "$sname $name $r $rc $t0 $EPOCHREALTIME" >>"$res/runs.txt"
}
