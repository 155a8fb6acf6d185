#!/usr/bin/env bash
# Runs `make lint`, then every test, twice: with the normal build (build/) and with ASan+UBSan
# (build/asan/).
# Each pass: build (taskexec, tools, unit tests), C unit tests, the JSON-Schema test suite
# (draft2020-12 and draft7), integration tests. What `make test` runs after installing
# packages; prints a summary and exits non-zero if anything failed.
#
# Environment:
#   TE_JSON_SCHEMA_SUITE  JSON-Schema-Test-Suite checkout
#                         (default: ../shared/testdata/json-schema-test-suite from the repo)
#   TE_TEST_JOBS          parallel make jobs (default 2)
#   TE_TEST_SKIP_SAN=1    skip the sanitizer pass (quicker local runs; CI runs both)
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
repo=$(pwd -P)
jobs=${TE_TEST_JOBS:-2}
suite=${TE_JSON_SCHEMA_SUITE:-$repo/../shared/testdata/json-schema-test-suite}
[[ -d $suite ]] && suite=$(cd "$suite" && pwd -P)
started=$SECONDS
results=()
failed=0

elapsed() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# step LABEL COMMAND...: runs COMMAND, records PASS/FAIL with its duration.
step() {
    local label=$1 t0=$SECONDS rc
    shift
    printf '\n==== %s\n==== $ %s\n' "$label" "$*"
    "$@"
    rc=$?
    if ((rc == 0)); then
        results+=("PASS  $label  ($(elapsed $((SECONDS - t0))))")
    else
        results+=("FAIL  $label  (exit $rc, $(elapsed $((SECONDS - t0))))")
        failed=1
    fi
    return $rc
}

skip() { results+=("SKIP  $1  ($2)"); }

# unit_bins BUILD_DIR: the unit-test binaries the Makefile builds from tests/unit/test_*.c
unit_bins() {
    local f
    for f in tests/unit/test_*.c; do
        [[ -e $f ]] || continue
        f=${f#tests/unit/}
        echo "$1/tests/${f%.c}"
    done
}

# pass NAME BUILD_DIR [MAKE_VARS...]
pass() {
    local name=$1 build=$2
    shift 2
    # shellcheck disable=SC2046 # one word per unit-test binary
    if ! step "$name: build" make -j"$jobs" --no-print-directory "$@" all tools $(unit_bins "$build"); then
        skip "$name: unit, JSON-Schema suite, integration" "build failed"
        return
    fi
    step "$name: unit tests" make --no-print-directory "$@" unit
    if [[ ! -x $build/tools/jsonschema_suite ]]; then
        skip "$name: JSON-Schema suite" "$build/tools/jsonschema_suite not built"
    elif [[ ! -d $suite ]]; then
        skip "$name: JSON-Schema suite" "no suite at $suite; set TE_JSON_SCHEMA_SUITE"
    else
        local draft
        for draft in draft2020-12 draft7; do
            step "$name: JSON-Schema suite $draft" "$build/tools/jsonschema_suite" "$suite" "$draft"
        done
    fi
    step "$name: integration tests" make --no-print-directory "$@" integration
}

echo "taskexec tests: $(date -u '+%Y-%m-%d %H:%M:%S UTC') in $repo"

step "lint (clang-format, cppcheck)" make --no-print-directory lint

pass "plain" build

if [[ ${TE_TEST_SKIP_SAN:-0} == 1 ]]; then
    skip "asan+ubsan" "TE_TEST_SKIP_SAN=1"
else
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:halt_on_error=1}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
    pass "asan+ubsan" build/asan SAN=1
fi

echo
echo "==================== summary ===================="
printf '%s\n' "${results[@]}"
echo "================================================="
total=$(elapsed $((SECONDS - started)))
if ((failed)); then
    echo "FAILED (total time $total)"
    exit 1
fi
echo "all passed (total time $total)"
