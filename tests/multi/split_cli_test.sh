#!/usr/bin/env bash
# `streamrt render` split over MPI ranks or GPUs writes the image of one process on one device,
# bit for bit (PFM: the floats as rendered).
#   split_cli_test.sh mpi STREAMRT MPIEXEC DIR EXAMPLES   (CPU backend, 2 and 3 ranks on this machine)
#   split_cli_test.sh devices STREAMRT - DIR EXAMPLES     (CUDA: --devices 0,0 and all; exit 77 = skip)
set -euo pipefail
mode=$1 cli=$2 mpiexec=$3 dir=$4 examples=$5
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
fail() { echo "FAIL: $*" >&2; exit 1; }
same() { cmp -s "$1" "$2" || fail "$1 and $2 differ"; echo "same: $1 $2"; }

if [ "$mode" = mpi ]; then
  # OpenMPI refuses root unless told; CI containers run as root.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  run() { "$cli" render "$@" --backend cpu --threads 1 -q; }
  ranks() { local n=$1; shift; "$mpiexec" --oversubscribe -n "$n" "$cli" render "$@" --backend cpu --threads 1 -q; }
  common=(cornell --width 37 --height 29 --max-depth 5)
  run "${common[@]}" --spp 5 -o one.pfm --stats one.json
  ranks 2 "${common[@]}" --spp 5 -o two.pfm --stats two.json
  same one.pfm two.pfm
  grep -q '"2 MPI ranks; rank 0: ' two.json || fail "two.json does not name the ranks"
  grep -q '"samples_done": 5' two.json || fail "two.json does not hold every rank's samples"
  # Every path is the same whichever rank traced it: the rays add up to one process's exactly.
  rays() { grep -o '"rays": [0-9]*' "$1"; }
  [ "$(rays one.json)" = "$(rays two.json)" ] || fail "rays: $(rays one.json) alone, $(rays two.json) over 2 ranks"
  # More ranks than samples: the third adds an empty film.
  run "${common[@]}" --spp 2 -o one2.pfm
  ranks 3 "${common[@]}" --spp 2 -o three2.pfm
  same one2.pfm three2.pfm
  run "${common[@]}" --spp 3 --integrator whitted -o whitted1.pfm
  ranks 2 "${common[@]}" --spp 3 --integrator whitted -o whitted2.pfm
  same whitted1.pfm whitted2.pfm
  # An animation: every frame split over the ranks, written by rank 0.
  orbit=("$examples/cornell-orbit.json" --width 24 --height 20 --spp 3 --frames 2)
  run "${orbit[@]}" -o orbit1.pfm --stats orbit1.json
  ranks 2 "${orbit[@]}" -o orbit2.pfm --stats orbit2.json
  same orbit1-0000.pfm orbit2-0000.pfm
  same orbit1-0001.pfm orbit2-0001.pfm
  # --devices is refused under mpirun (and on the CPU backend), on every rank, before any work.
  if ranks 2 "${common[@]}" --spp 2 -o refused.pfm --devices 0 2> refused.txt; then
    fail "--devices under mpirun was accepted"
  fi
  grep -q -- "--devices" refused.txt || fail "the refusal does not name --devices"
  [ ! -e refused.pfm ] || fail "a refused run wrote an image"
  exit 0
fi

if [ "$mode" = devices ]; then
  if ! "$cli" render cornell -o probe.pfm --backend cuda --spp 1 --width 8 --height 8 -q \
      2> probe.txt; then
    echo "skipping: no CUDA device ($(cat probe.txt))"
    exit 77
  fi
  common=(cornell --width 211 --height 157 --spp 9 --backend cuda -q)
  "$cli" render "${common[@]}" -o one.pfm --stats one.json
  "$cli" render "${common[@]}" -o twice.pfm --devices 0,0 --stats twice.json
  "$cli" render "${common[@]}" -o all.pfm --devices all
  "$cli" render "${common[@]}" -o zero.pfm --devices 0
  same one.pfm twice.pfm
  same one.pfm all.pfm
  same one.pfm zero.pfm
  grep -q '"2 parts: ' twice.json || fail "twice.json does not name the parts"
  rays() { grep -o '"rays": [0-9]*' "$1"; }
  [ "$(rays one.json)" = "$(rays twice.json)" ] || fail "rays: $(rays one.json) on one, $(rays twice.json) on 0,0"
  "$cli" render "${common[@]}" -o w1.pfm --integrator whitted
  "$cli" render "${common[@]}" -o w2.pfm --integrator whitted --devices 0,0
  same w1.pfm w2.pfm
  if "$cli" render "${common[@]}" -o bad.pfm --devices 0,99 2> bad.txt; then
    fail "--devices 0,99 was accepted"
  fi
  grep -q "no device 99" bad.txt || fail "the error does not name device 99: $(cat bad.txt)"
  exit 0
fi
fail "unknown mode $mode"
