#!/usr/bin/env bash
# The whole test suite from a clean checkout: install what is missing, build (Release), run every
# test registered with CTest (unit, bad-input corpus, validation against real measurements,
# headless-browser report checks). This is the README's second command and what .ci/run runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"
# -LE long: the long validation rows (tests/CMakeLists.txt) run apart: ctest --test-dir build -L long
ctest --test-dir build --output-on-failure -j"$jobs" -LE long "$@"
