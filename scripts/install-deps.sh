#!/usr/bin/env bash
# Installs everything commsim needs from Debian's packages. Idempotent: safe to run again.
# Used by the README's first command and by .ci/run.
set -euo pipefail
pkgs=(build-essential cmake ninja-build
      libeigen3-dev libboost-graph-dev libtomlplusplus-dev catch2 libbenchmark-dev
      libcli11-dev libfmt-dev nlohmann-json3-dev libyaml-cpp-dev
      clang libclang-rt-14-dev
      python3 python3-pytest python3-jsonschema python3-yaml zsh fish)
[ "${COMMSIM_WITH_BROWSER:-1}" = 1 ] && pkgs+=(chromium)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
