#!/usr/bin/env bash
# expect_error.sh REGEX OUTPUT -- COMMAND...
# Passes when COMMAND exits non-zero, its stderr matches REGEX, and OUTPUT was not created.
set -u
regex=$1 output=$2
shift 3
rm -f "$output"
err=$("$@" 2>&1 >/dev/null)
rc=$?
if [ $rc -eq 0 ]; then echo "expected a non-zero exit, got 0"; exit 1; fi
if ! grep -Eq -- "$regex" <<<"$err"; then echo "stderr does not match /$regex/: $err"; exit 1; fi
if [ -e "$output" ]; then echo "$output was written despite the error"; exit 1; fi
echo "ok (exit $rc): $err"
