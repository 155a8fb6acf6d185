#!/usr/bin/env bash
# Runs each cmocka unit-test binary given on the command line; fails if any fails.
set -u
fail=0
for t in "$@"; do
    echo "== $t"
    "$t" || fail=1
done
exit $fail
