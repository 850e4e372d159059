#!/usr/bin/env bash
# expect_error.sh [--rc N] REGEX OUTPUT -- COMMAND...
# Passes when COMMAND exits non-zero (exactly N with --rc), its stderr is one
# `streamrt: error: ...` line matching REGEX (other lines only `streamrt: ` notices), and OUTPUT
# was not created.
set -u
want_rc=
if [ "$1" = --rc ]; then want_rc=$2; shift 2; fi
regex=$1 output=$2
shift 3
rm -f "$output"
err=$("$@" 2>&1 >/dev/null)
rc=$?
if [ $rc -eq 0 ]; then echo "expected a non-zero exit, got 0"; exit 1; fi
if [ -n "$want_rc" ] && [ $rc -ne "$want_rc" ]; then echo "expected exit $want_rc, got $rc: $err"; exit 1; fi
if [ "$(grep -c '^streamrt: error: ' <<<"$err")" -ne 1 ]; then
  echo "expected exactly one 'streamrt: error:' line: $err"; exit 1
fi
if grep -qv '^streamrt: ' <<<"$err"; then echo "stderr has lines besides streamrt's: $err"; exit 1; fi
if ! grep -Eq -- "$regex" <<<"$err"; then echo "stderr does not match /$regex/: $err"; exit 1; fi
if [ -e "$output" ]; then echo "$output was written despite the error"; exit 1; fi
echo "ok (exit $rc): $err"
