#!/usr/bin/env bash
# Command 1 of the README: install the Debian packages, build, render the default scene
# (the Cornell box) to cornell.png.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
build/apps/streamrt render cornell -o cornell.png --spp 64 --width 512 --height 512
