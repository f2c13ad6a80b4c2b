#!/usr/bin/env bash
# The test suite again under AddressSanitizer and UndefinedBehaviorSanitizer, built with clang in
# its own build directory (build-asan), which also builds the libFuzzer targets: scripts/fuzz.sh
# then fuzzes from the same objects (FUZZ_BUILD=build-asan), so the libraries compile once for both.
# Any report fails the run.
# Skipped here, because the sanitizers add nothing to what they test and they would take most of
# the 45 minutes .ci/run has: the browser and validation tests (rendering and accuracy), and the two
# whole-library loops that run every shipped scenario (fold_equals_full_test.cpp runs each twice,
# once with --full; breakdown_test.cpp's seven terms). Both run in scripts/test.sh; the code they
# reach is reached here by the smaller tests of each mechanism.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
# -O1 -g1 (line tables for the reports): what ASan recommends, and less than half the compile
# time of RelWithDebInfo (-O2 -g).
cmake -S . -B build-asan -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
      -DCOMMSIM_SANITIZE=ON -DCOMMSIM_FUZZ=ON -DCOMMSIM_BENCH=OFF >/dev/null
cmake --build build-asan -j"$jobs"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
heavy="rank classes and closed forms give the full simulation's run --json, events and mode note apart"
heavy+="|every rank's breakdown has the seven terms and adds up to the step on every shipped scenario"
# The browser tests (Catch tag [browser]; CTest has no label for a tag, so by name).
browser="reports render in headless Chromium|no two labels overlap in the rendered report"
browser+="|the sweep page over nodes renders its three charts"
ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE "validation|long" -E "$heavy|$browser"
