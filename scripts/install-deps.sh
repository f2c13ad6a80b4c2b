#!/usr/bin/env bash
# Installs what commsim needs from Debian's packages. Idempotent: safe to run again.
#   scripts/install-deps.sh commsim   what building and running `commsim` needs (the README's first
#                                     command): the compiler, CMake, Ninja and the libraries
#   scripts/install-deps.sh           all of it, for the test suite (scripts/test.sh, .ci/run):
#                                     also clang (fuzzers, sanitizers), Python's test tools, the
#                                     shells the completion tests drive and Chromium (report tests)
set -euo pipefail
# Catch2 and Google Benchmark are header/library packages CMake looks for when it configures
# (the test and bench targets exist even when only `commsim` is built).
pkgs=(build-essential cmake ninja-build
      libeigen3-dev libboost-graph-dev libtomlplusplus-dev catch2 libbenchmark-dev
      libcli11-dev libfmt-dev nlohmann-json3-dev libyaml-cpp-dev)
case "${1:-all}" in
  commsim) ;;
  all)
    pkgs+=(clang libclang-rt-14-dev python3 python3-pytest python3-jsonschema python3-yaml zsh fish)
    [ "${COMMSIM_WITH_BROWSER:-1}" = 1 ] && pkgs+=(chromium)
    ;;
  *) echo "usage: scripts/install-deps.sh [commsim]" >&2; exit 2 ;;
esac
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
