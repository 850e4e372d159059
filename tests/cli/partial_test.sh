#!/usr/bin/env bash
# partial_test.sh STREAMRT DIR
# Partial images: SIGINT or SIGTERM during a CPU render, or --time-limit, finish the pass in
# flight and write the image of the samples completed: a whole PNG, statistics saying how many
# samples (stopped, fewer than asked), exit 130 / 143 for the signals and 0 for the time limit.
set -u
cli=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
render=("$cli" render cornell --backend cpu --threads 1 --width 32 --height 32 --spp 1000000
  --pool 2048)  # two samples in flight: the pass in flight ends soon after the signal
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# A PNG that is whole: the signature first, the IEND chunk last.
whole_png() {
  [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
    [ "$(tail -c 12 "$1" | od -An -tx1 | tr -d ' \n')" = 0000000049454e44ae426082 ]
}

# check_partial NAME: NAME.png whole, NAME.json says stopped with 1 <= samples_done < spp.
check_partial() {
  whole_png "$1.png" || fail "$1: not a whole PNG"
  grep -q '"stopped": true' "$1.json" || fail "$1: statistics do not say stopped"
  local done
  done=$(grep -o '"samples_done": [0-9]*' "$1.json" | grep -o '[0-9]*$')
  [ -n "$done" ] && [ "$done" -ge 1 ] && [ "$done" -lt 1000000 ] ||
    fail "$1: samples_done '$done' is not in [1, 1000000)"
  [ -z "$(find . -name '.*.tmp*')" ] || fail "$1: temporaries left"
}

for sig in INT TERM; do
  status=$([ $sig = INT ] && echo 130 || echo 143)
  # --progress: the bar, drawn after a second of rendering, says the render has begun.
  "${render[@]}" --progress -o $sig.png --stats $sig.json 2>$sig.err &
  pid=$!
  for _ in $(seq 300); do
    grep -q 'rendering \[' $sig.err 2>/dev/null && break
    sleep 0.1
  done
  kill -$sig $pid
  wait $pid
  rc=$?
  [ $rc -eq $status ] || fail "SIG$sig: exit $rc, not $status: $(cat $sig.err)"
  grep -q "^streamrt: SIG$sig: stopping after the pass in flight" $sig.err ||
    fail "SIG$sig: no notice that the render stops: $(cat $sig.err)"
  grep -q "^streamrt: stopped by SIG$sig after writing $sig.png$" $sig.err ||
    fail "SIG$sig: $(cat $sig.err)"
  check_partial $sig
done

"${render[@]}" -o limit.png --stats limit.json --time-limit 0.3 2>limit.err
rc=$?
[ $rc -eq 0 ] || fail "--time-limit: exit $rc: $(cat limit.err)"
grep -q "wrote limit.png (32x32, [0-9]* of 1000000 spp, stopped early" limit.err ||
  fail "--time-limit: $(cat limit.err)"
check_partial limit

[ $failures -eq 0 ] && echo "ok" || exit 1
