#!/usr/bin/env bash
# Renders every file of fuzz corpora through the streamrt CLI (CPU backend, 16x12, 1 spp) and
# sorts the outcomes: an image (exit 0), a clean error (exit 1 or 2 whose last line is
# "streamrt: error: ..." and whose other lines are warnings or notices), or a failure (a signal,
# a hang past 60 s, anything else), printed with its file. Exits 1 on any failure.
#
#   tests/fuzz/replay_cli.sh build/apps/streamrt build-fuzz/corpus [obj mtl json ply gltf]
# The corpora's layout is scripts/fuzz.sh's: DIR/<reader>/<file>. Side files the fuzz targets
# provide (fuzz.mtl, tri.obj, tri.bin) are written next to each input, as the targets see them.
set -uo pipefail
cli=$(realpath "$1") root=$2
shift 2
readers=("$@")
[ ${#readers[@]} -gt 0 ] || readers=(obj mtl json ply gltf)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'mtllib fuzz.mtl\nusemtl red\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/1 3/1\n' >"$work/tri.obj"
printf 'newmtl red\nKd 1 0 0\nmap_Kd tex.png\n' >"$work/side.mtl"
python3 -c 'import struct,sys; sys.stdout.buffer.write(struct.pack("<9f4H",0,0,0,1,0,0,0,1,0,0,1,2,0))' >"$work/tri.bin"
obj='mtllib fuzz.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\nusemtl red\nf 1/1/1 2/1/1 3/1/1\nusemtl glass\nf 1 3 2\n'
images=0 clean=0 failed=0
for r in "${readers[@]}"; do
  for f in "$root/$r"/*; do
    [ -f "$f" ] || continue
    cp "$work/side.mtl" "$work/fuzz.mtl"
    case $r in
      mtl) cp "$f" "$work/fuzz.mtl"; printf "$obj" >"$work/fuzz.obj"; name=fuzz.obj ;;
      gltf) name=fuzz.gltf; [ "$(head -c 4 "$f")" = glTF ] && name=fuzz.glb; cp "$f" "$work/$name" ;;
      *) name=fuzz.$r; cp "$f" "$work/$name" ;;
    esac
    (cd "$work" && timeout 60 "$cli" render "$name" -o out.png --backend cpu --width 16 \
      --height 12 --spp 1 -q >stdout 2>stderr)
    rc=$?
    last=$(tail -n 1 "$work/stderr")
    others=$(head -n -1 "$work/stderr" | grep -a -v -E '^streamrt: (warning|notice):' | head -1)
    if [ $rc -eq 0 ]; then
      images=$((images + 1))
    elif { [ $rc -eq 1 ] || [ $rc -eq 2 ]; } && [[ "$last" == "streamrt: error: "* ]] && [ -z "$others" ]; then
      clean=$((clean + 1))
    else
      failed=$((failed + 1))
      echo "FAILED ($r, exit $rc): $f: $(head -c 300 "$work/stderr")" >&2
    fi
    rm -f "$work"/fuzz.* "$work/out.png"
  done
done
echo "replay: $((images + clean + failed)) files: $images images, $clean clean errors, $failed failures"
[ $failed -eq 0 ]
