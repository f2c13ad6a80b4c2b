#!/usr/bin/env bash
# The test suite again under AddressSanitizer and UndefinedBehaviorSanitizer, in its own build
# directory (build-asan). Any report fails the run. Browser and validation tests are skipped
# here: they test rendering and accuracy, which the sanitizers do not change.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
# -O1 -g1 (line tables for the reports): what ASan recommends, and less than half the compile
# time of RelWithDebInfo (-O2 -g): scenarios/load/loader.cpp took 6.8 s instead of 15.5 s of CPU,
# which keeps .ci/run within its 45 minutes on 2 cores.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
      -DCOMMSIM_SANITIZE=ON -DCOMMSIM_BENCH=OFF >/dev/null
cmake --build build-asan -j"$jobs"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE "browser|validation"
