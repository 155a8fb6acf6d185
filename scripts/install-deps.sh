#!/usr/bin/env bash
# Installs the Debian packages taskexec needs to build, run and test, when missing.
# Usage: scripts/install-deps.sh [build|run|test]   (each level includes the previous)
# With TE_RUN_REDIS=1 (`make run REDIS=1`) it also installs redis-server and redis-cli, with
# TE_RUN_KAFKA=1 (`make run KAFKA=1`) kcat, to read the test Kafka broker's topics.
set -euo pipefail

level=${1:-build}
build_pkgs=(gcc make pkg-config libuv1-dev libpq-dev node-llhttp libcjson-dev librdkafka-dev
            libhiredis-dev libsodium-dev libcurl4-openssl-dev tzdata ca-certificates)
run_pkgs=(postgresql openssl)
test_pkgs=(libcmocka-dev redis-server kcat python3 python3-pytest python3-requests
           python3-psycopg python3-croniter python3-confluent-kafka procps
           clang-format cppcheck)

want=("${build_pkgs[@]}")
case $level in
    build) ;;
    run) want+=("${run_pkgs[@]}") ;;
    test) want+=("${run_pkgs[@]}" "${test_pkgs[@]}") ;;
    *) echo "usage: $0 [build|run|test]" >&2; exit 2 ;;
esac
enabled() { # value: 1, yes, true or on
    case $1 in 1 | yes | true | on) return 0 ;; *) return 1 ;; esac
}
if enabled "${TE_RUN_REDIS:-}"; then
    want+=(redis-server redis-tools)
fi
if enabled "${TE_RUN_KAFKA:-}"; then
    want+=(kcat)
fi

missing=()
for p in "${want[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [[ $status == "install ok installed" ]] || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0

if [[ $(id -u) -ne 0 ]]; then
    echo "missing Debian packages: ${missing[*]}" >&2
    echo "run as root, or: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
