#!/usr/bin/env bash
# Puts the public test scenes into scenes/data/ (one folder each), where scenes/examples/*.json
# look for them: conference-room, cornell-box, dabrovic-sponza, teapot (McGuire's Computer
# Graphics Archive, https://casual-effects.com/data/). Copies the zips from ../shared/scenes when
# that folder has them (as NAME/ZIP or NAME.zip), otherwise downloads them with curl. For users:
# the build never runs it.
#
#   scripts/fetch-scenes.sh [--shared DIR] [--dest DIR] [--force] [NAME...]
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shared="$repo/../shared/scenes"
dest="$repo/scenes/data"
force=0
names=()
while [ $# -gt 0 ]; do
  case $1 in
    --shared) shared=$2; shift 2 ;;
    --dest) dest=$2; shift 2 ;;
    --force) force=1; shift ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fetch-scenes: error: unknown option $1" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done

# name -> zip file name and public URL.
declare -A zip=(
  [conference-room]=conference.zip
  [cornell-box]=CornellBox.zip
  [dabrovic-sponza]=sponza.zip
  [teapot]=teapot.zip
)
declare -A url=(
  [conference-room]=https://casual-effects.com/g3d/data10/research/model/conference/conference.zip
  [cornell-box]=https://casual-effects.com/g3d/data10/common/model/CornellBox/CornellBox.zip
  [dabrovic-sponza]=https://casual-effects.com/g3d/data10/research/model/dabrovic_sponza/sponza.zip
  [teapot]=https://casual-effects.com/g3d/data10/common/model/teapot/teapot.zip
)
[ ${#names[@]} -gt 0 ] || names=(conference-room cornell-box dabrovic-sponza teapot)

unpack() {  # zip folder
  if command -v unzip >/dev/null; then
    unzip -q -o "$1" -d "$2"
  else
    python3 -m zipfile -e "$1" "$2"
  fi
  rm -rf "$2/__MACOSX"  # resource forks some archives carry
}

mkdir -p "$dest"
for name in "${names[@]}"; do
  if [ -z "${zip[$name]+set}" ]; then
    echo "fetch-scenes: error: unknown scene '$name' (known: ${!zip[*]})" >&2
    exit 2
  fi
  if [ -e "$dest/$name/.unpacked" ] && [ $force -eq 0 ]; then
    echo "fetch-scenes: $name: already in $dest/$name"
    continue
  fi
  # Unpack into a temporary sibling and rename, so an interrupted run leaves no half scene.
  tmp=$(mktemp -d "$dest/.$name.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  if [ -f "$shared/$name/${zip[$name]}" ]; then
    echo "fetch-scenes: $name: copying from $shared/$name"
    cp "$shared/$name/${zip[$name]}" "$tmp/archive.zip"
  elif [ -f "$shared/$name.zip" ]; then  # flat layout (scripts/gpu-bundle.sh's scenes/NAME.zip)
    echo "fetch-scenes: $name: copying $shared/$name.zip"
    cp "$shared/$name.zip" "$tmp/archive.zip"
  else
    echo "fetch-scenes: $name: downloading ${url[$name]}"
    curl -fL --retry 2 -o "$tmp/archive.zip" "${url[$name]}"
  fi
  unpack "$tmp/archive.zip" "$tmp/files"
  touch "$tmp/files/.unpacked"
  rm -rf "$dest/$name"
  mv "$tmp/files" "$dest/$name"
  rm -rf "$tmp"
  trap - EXIT
  echo "fetch-scenes: $name: $(find "$dest/$name" -type f ! -name .unpacked | wc -l) files in $dest/$name"
done
